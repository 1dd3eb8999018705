#include "gpuvis/opencl/devices.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpuvis/core/error.hpp"
#include "opencl/device_ids.hpp"

namespace gpuvis::opencl {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

template <class Get, class Object>
std::string info_string(Get get, Object object, cl_uint what) {
  std::size_t size = 0;
  if (get(object, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (get(object, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::vector<DeviceId> device_ids(std::string* why) {
  std::vector<DeviceId> out;
  const Api* a = find_api(why);
  if (!a) return out;
  cl_uint platforms = 0;
  const cl_int status = a->GetPlatformIDs(0, nullptr, &platforms);
  if (status != CL_SUCCESS || platforms == 0) {
    if (why) *why = "OpenCL has no platform here (" + status_name(status) + "): install a driver (your GPU vendor's, or pocl-opencl-icd for the CPU)";
    return out;
  }
  std::vector<cl_platform_id> ids(platforms);
  a->GetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id p : ids) {
    cl_uint count = 0;
    if (a->GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) continue;
    std::vector<cl_device_id> devices(count);
    a->GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      DeviceId id;
      id.platform = p;
      id.device = d;
      id.info.index = static_cast<int>(out.size());
      id.info.platform = info_string(a->GetPlatformInfo, p, CL_PLATFORM_NAME);
      id.info.name = info_string(a->GetDeviceInfo, d, CL_DEVICE_NAME);
      id.info.version = info_string(a->GetDeviceInfo, d, CL_DEVICE_VERSION);
      id.driver = info_string(a->GetDeviceInfo, d, CL_DRIVER_VERSION);
      cl_device_type type = 0;
      a->GetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      id.info.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
      cl_ulong memory = 0;
      a->GetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, nullptr);
      id.info.memory = memory;
      cl_ulong local = 0;
      a->GetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
      id.info.local_memory = local;
      cl_device_fp_config fp = 0;
      a->GetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr);
      id.info.exact_divide_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
      out.push_back(id);
    }
  }
  if (out.empty() && why) *why = "OpenCL has platforms but no device here";
  return out;
}

DeviceId choose_device() {
  std::string why;
  const std::vector<DeviceId> all = device_ids(&why);
  if (all.empty()) fail(ErrorCode::unsupported, "--backend opencl requested but " + why);
  auto listing = [&] {
    std::string s;
    for (const DeviceId& d : all) s += (s.empty() ? "" : ", ") + std::to_string(d.info.index) + ": " + d.info.name + " (" + d.info.platform + ")";
    return s;
  };
  if (const char* wanted = std::getenv("GPUVIS_OPENCL_DEVICE"); wanted && *wanted) {
    const std::string w = wanted;
    if (std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isdigit(c); })) {
      const long index = std::strtol(w.c_str(), nullptr, 10);
      if (index >= 0 && index < static_cast<long>(all.size())) return all[static_cast<std::size_t>(index)];
    } else {
      for (const DeviceId& d : all)
        if (lower(d.info.name).find(lower(w)) != std::string::npos || lower(d.info.platform).find(lower(w)) != std::string::npos) return d;
    }
    fail(ErrorCode::unsupported, "the OpenCL device '" + w + "' (--device or GPUVIS_OPENCL_DEVICE) matches none; the devices are " +
                                     listing());
  }
  for (const DeviceId& d : all)
    if (d.info.gpu) return d;
  return all.front();
}

std::vector<DeviceInfo> devices(std::string* why) {
  std::vector<DeviceInfo> out;
  for (const DeviceId& d : device_ids(why)) out.push_back(d.info);
  return out;
}

DeviceInfo chosen_device() { return choose_device().info; }

// PoCL's devices are the CPU. OCL_ICD_FILENAMES is read by both the Khronos and the ocl-icd loader.
bool driver_other_than_pocl() {
  namespace fs = std::filesystem;
  auto not_pocl = [](const std::string& library) { return !library.empty() && lower(library).find("pocl") == std::string::npos; };
  if (const std::string named = icd_filenames_env(); !named.empty()) {
    std::istringstream list(named);
    for (std::string library; std::getline(list, library, ':');)
      if (not_pocl(library)) return true;
  }
  const char* listed = std::getenv("OCL_ICD_VENDORS");
  const fs::path where = listed && *listed ? fs::path(listed) : fs::path("/etc/OpenCL/vendors");
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_regular_file(where, ec)) files.push_back(where);
  else
    for (const auto& entry : fs::directory_iterator(where, ec))
      if (entry.path().extension() == ".icd") files.push_back(entry.path());
  return std::any_of(files.begin(), files.end(), [&](const fs::path& f) {
    std::ifstream in(f);
    std::string library;
    std::getline(in, library);
    return not_pocl(library);
  });
}

bool gpu_present() {
  static const bool present = [] {
    if (!driver_other_than_pocl()) return false;
    const auto all = devices();
    return std::any_of(all.begin(), all.end(), [](const DeviceInfo& d) { return d.gpu; });
  }();
  return present;
}

Backend prefer_opencl_gpu(Backend requested, Backend resolved, bool runs_here) {
  return requested == Backend::automatic && resolved == Backend::cpu && runs_here && gpu_present() ? Backend::opencl : resolved;
}

}  // namespace gpuvis::opencl
