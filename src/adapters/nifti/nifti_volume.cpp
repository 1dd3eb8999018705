// The NIfTI plugin (libgpuvis_nifti.so, io/nifti_plugin.hpp): NIfTI-1 and NIfTI-2 volumes (.nii, .nii.gz) through nifticlib's nifti2_io, which reads both.
// Samples are kept as stored (scl_slope / scl_inter stay in the header for what is written back):
// uint8 (and RGB24, RGBA32) as 8-bit, uint16 as 16-bit, float32 as float, and int8, int16,
// int32, uint32 and float64 as float, written back in their own type (rounded and clamped).
#include <nifti2_io.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <tuple>

#include "adapters/nifti/header_check.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/read_limited.hpp"
#include "gpuvis/io/volume_file.hpp"
#include "io/nifti_plugin.hpp"

namespace gpuvis::nifti {
namespace {

namespace fs = std::filesystem;

struct Free {
  void operator()(nifti_image* p) const { nifti_image_free(p); }
};
using Owned = std::unique_ptr<nifti_image, Free>;

template <class S>
void to_float(const void* data, std::int64_t n, float* out) {
  const S* s = static_cast<const S*>(data);
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(s[i]);
}

template <class S>
void from_float(const float* in, std::int64_t n, void* data) {
  S* d = static_cast<S*>(data);
  const double lo = static_cast<double>(std::numeric_limits<S>::lowest()), hi = static_cast<double>(std::numeric_limits<S>::max());
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<S>) d[i] = static_cast<S>(in[i]);
    else d[i] = static_cast<S>(std::clamp(std::nearbyint(static_cast<double>(in[i])), lo, hi));
  }
}

double memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

// Writes `nim` (with its data) to `path` through a temporary file beside it, renamed into place
// once it has been written and reads back with the same dimensions.
void write_checked(nifti_image* nim, const std::string& path) {
  const fs::path target(path);
  const std::string gz = path.size() > 3 && path.substr(path.size() - 3) == ".gz" ? ".gz" : "";
  const std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".partial-" + std::to_string(getpid()) + ".nii" + gz)).string();
  if (nifti_set_filenames(nim, tmp.c_str(), 0, 1) != 0) fail(ErrorCode::io, "cannot name the NIfTI file '" + path + "'");
  nifti_image_write(nim);
  const Owned back(nifti_image_read(tmp.c_str(), 1));  // header and every voxel read back
  std::error_code ec;
  if (!back || back->nvox != nim->nvox || back->datatype != nim->datatype) {
    fs::remove(tmp, ec);
    fail(ErrorCode::io, "could not write '" + path + "' (disk full or not writable?)");
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail(ErrorCode::io, "could not write '" + path + "': " + ec.message());
  }
}

Volume read(const std::string& path, std::size_t max_pixels) {
  nifti_set_debug_level(0);
  std::error_code ec;
  require_regular_file(path, "NIfTI file");
  check_header(path);
  Owned header(nifti_image_read(path.c_str(), 0));
  if (!header) fail(ErrorCode::format, path + ": not a NIfTI-1 or NIfTI-2 file (bad or truncated header)");
  for (int d = 5; d <= 7; ++d)
    if (header->dim[0] >= d && header->dim[d] > 1)
      fail(ErrorCode::unsupported, path + ": has " + std::to_string(header->dim[0]) + " dimensions; gpuvis reads up to 4 (x, y, z, t)");
  const std::int64_t nx = header->nx, ny = header->ny, nz = std::max<std::int64_t>(1, header->nz), nt = std::max<std::int64_t>(1, header->nt);
  const int dt = header->datatype;
  const int channels = dt == DT_RGB24 ? 3 : dt == DT_RGBA32 ? 4 : 1;
  const bool supported = dt == DT_UINT8 || dt == DT_RGB24 || dt == DT_RGBA32 || dt == DT_UINT16 || dt == DT_FLOAT32 || dt == DT_INT8 ||
                         dt == DT_INT16 || dt == DT_INT32 || dt == DT_UINT32 || dt == DT_FLOAT64;
  if (!supported)
    fail(ErrorCode::unsupported, path + ": samples of type " + nifti_datatype_string(dt) +
                                     " are not supported (uint8, rgb24, rgba32, int8, int16, uint16, int32, uint32, float32, float64)");
  const double rows = static_cast<double>(ny) * static_cast<double>(nz) * static_cast<double>(nt);
  const double bytes = static_cast<double>(nx) * rows * channels * 4.0;
  const double have = memory_bytes();
  if (nx > 65535 || rows >= 2147483647.0 || (have > 0 && bytes * 4 > have))
    fail(ErrorCode::invalid_argument, path + ": a volume of " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
                                          "x" + std::to_string(nt) + " voxels is too large for this machine's memory");
  // The volume is one image of nx x (ny nz nt) pixels here: the image limit applies to it.
  const std::string shape = std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) + "x" + std::to_string(nt);
  if (static_cast<double>(nx) * rows > static_cast<double>(max_pixels))
    fail(ErrorCode::invalid_argument, path + ": a volume of " + shape + " voxels is over the limit of " + std::to_string(max_pixels) +
                                          " (set GPUVIS_MAX_IMAGE_PIXELS to raise it)");
  // An uncompressed file must hold the data its header announces: checked before nifticlib
  // allocates it. (A .nii.gz is checked as it is read.)
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  const double wanted = static_cast<double>(header->iname_offset) + static_cast<double>(header->nvox) * header->nbyper;
  if (!gz && static_cast<double>(fs::file_size(path, ec)) < wanted)
    fail(ErrorCode::format, path + ": the voxel data is truncated (the header announces " + shape + " voxels)");
  if (nifti_image_load(header.get()) != 0) fail(ErrorCode::format, path + ": the voxel data is truncated or unreadable");
  Volume v;
  v.shape = {static_cast<int>(nz), static_cast<int>(nt)};
  v.nifti_datatype = dt;
  const int w = static_cast<int>(nx), h = static_cast<int>(rows);
  const std::int64_t n = header->nvox;
  const void* data = header->data;
  if (dt == DT_UINT8 || dt == DT_RGB24 || dt == DT_RGBA32) {
    Image<std::uint8_t> img(w, h, channels);
    for (int y = 0; y < h; ++y) std::memcpy(img.row(y), static_cast<const std::uint8_t*>(data) + static_cast<std::size_t>(y) * w * channels, img.view().row_bytes());
    v.stacked = std::move(img);
  } else if (dt == DT_UINT16) {
    Image<std::uint16_t> img(w, h);
    for (int y = 0; y < h; ++y) std::memcpy(img.row(y), static_cast<const std::uint16_t*>(data) + static_cast<std::size_t>(y) * w, img.view().row_bytes());
    v.stacked = std::move(img);
  } else {
    std::vector<float> f(static_cast<std::size_t>(n));
    switch (dt) {
      case DT_FLOAT32: to_float<float>(data, n, f.data()); break;
      case DT_INT8: to_float<std::int8_t>(data, n, f.data()); break;
      case DT_INT16: to_float<std::int16_t>(data, n, f.data()); break;
      case DT_INT32: to_float<std::int32_t>(data, n, f.data()); break;
      case DT_UINT32: to_float<std::uint32_t>(data, n, f.data()); break;
      default: to_float<double>(data, n, f.data()); break;
    }
    Image<float> img(w, h);
    for (int y = 0; y < h; ++y) std::memcpy(img.row(y), f.data() + static_cast<std::size_t>(y) * w, img.view().row_bytes());
    v.stacked = std::move(img);
  }
  nifti_image_unload(header.get());
  nifti_image* kept = header.release();
  v.nifti_header = std::shared_ptr<const void>(kept, [](const void* p) { nifti_image_free(static_cast<nifti_image*>(const_cast<void*>(p))); });
  return v;
}

namespace {

// The header for a result shaped like `like`: its own when it came from NIfTI.
Owned header_like(const std::string& path, const Volume& like, int w, int h) {
  const int depth = like.shape.depth, frames = like.shape.frames, slice_h = h / (depth * frames);
  Owned nim;
  if (like.nifti_header) {
    nim.reset(nifti_copy_nim_info(static_cast<const nifti_image*>(like.nifti_header.get())));
  } else {
    const std::int64_t dims[8] = {frames > 1 ? 4 : 3, w, slice_h, depth, frames, 1, 1, 1};
    nim.reset(nifti_make_new_nim(dims, DT_UINT8, 0));
  }
  if (!nim) fail(ErrorCode::io, "cannot make a NIfTI header for '" + path + "'");
  if (static_cast<std::int64_t>(w) * h != nim->nvox) fail(ErrorCode::invalid_argument, "the result does not have the NIfTI volume's shape");
  return nim;
}

void write_data(nifti_image* nim, const std::string& path, std::vector<std::uint8_t>& bytes) {
  nim->data = bytes.data();
  try {
    write_checked(nim, path);
  } catch (...) {
    nim->data = nullptr;
    throw;
  }
  nim->data = nullptr;  // ours, not nifticlib's to free
}

}  // namespace

void write_labels(const std::string& path, const Volume& like, HostView<const std::int32_t> labels) {
  nifti_set_debug_level(0);
  Owned nim = header_like(path, like, labels.width, labels.height);
  nim->datatype = DT_INT32;
  nim->nbyper = 4;
  nim->scl_slope = 0;  // labels are not scaled
  nim->scl_inter = 0;
  nim->cal_min = nim->cal_max = 0;
  nim->intent_code = NIFTI_INTENT_LABEL;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(nim->nvox) * 4);
  for (int y = 0; y < labels.height; ++y) std::memcpy(bytes.data() + static_cast<std::size_t>(y) * labels.width * 4, labels.row(y), labels.row_bytes());
  write_data(nim.get(), path, bytes);
}

void write(const std::string& path, const Volume& like, const AnyImage& data) {
  nifti_set_debug_level(0);
  int w = 0, h = 0, c = 0;
  std::tie(w, h, c) = std::visit([](const auto& img) { return std::tuple{img.width(), img.height(), img.channels()}; }, data);
  Owned nim = header_like(path, like, w, h);
  // The sample type: the input file's own where the data is its samples read as float.
  int dt = 0;
  if (std::holds_alternative<Image<std::uint8_t>>(data)) dt = c == 3 ? DT_RGB24 : c == 4 ? DT_RGBA32 : DT_UINT8;
  else if (std::holds_alternative<Image<std::uint16_t>>(data)) dt = DT_UINT16;
  else dt = like.nifti_header && like.nifti_datatype != DT_UINT8 && like.nifti_datatype != DT_UINT16 && like.nifti_datatype != DT_RGB24 &&
                    like.nifti_datatype != DT_RGBA32 ? like.nifti_datatype : DT_FLOAT32;
  if (c != 1 && c != 3 && c != 4) fail(ErrorCode::unsupported, "NIfTI holds grey, RGB or RGBA voxels, not " + std::to_string(c) + " channels");
  if (!std::holds_alternative<Image<std::uint8_t>>(data) && c != 1) fail(ErrorCode::unsupported, "NIfTI colour voxels are 8-bit");
  int nbyper = 0, swapsize = 0;
  nifti_datatype_sizes(dt, &nbyper, &swapsize);
  nim->datatype = dt;
  nim->nbyper = nbyper;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(nim->nvox) * nbyper * (dt == DT_RGB24 || dt == DT_RGBA32 ? 1 : 1));
  std::visit(
      [&](const auto& img) {
        using T = std::decay_t<decltype(img(0, 0))>;
        const std::size_t row = static_cast<std::size_t>(w) * c;
        if constexpr (std::is_same_v<T, float>) {
          std::vector<float> f(static_cast<std::size_t>(nim->nvox));
          for (int y = 0; y < h; ++y) std::memcpy(f.data() + y * row, img.row(y), row * sizeof(float));
          switch (dt) {
            case DT_INT8: from_float<std::int8_t>(f.data(), nim->nvox, bytes.data()); break;
            case DT_INT16: from_float<std::int16_t>(f.data(), nim->nvox, bytes.data()); break;
            case DT_INT32: from_float<std::int32_t>(f.data(), nim->nvox, bytes.data()); break;
            case DT_UINT32: from_float<std::uint32_t>(f.data(), nim->nvox, bytes.data()); break;
            case DT_FLOAT64: from_float<double>(f.data(), nim->nvox, bytes.data()); break;
            default: from_float<float>(f.data(), nim->nvox, bytes.data()); break;
          }
        } else {
          for (int y = 0; y < h; ++y) std::memcpy(bytes.data() + y * row * sizeof(T), img.row(y), row * sizeof(T));
        }
      },
      data);
  write_data(nim.get(), path, bytes);
}

constexpr plugin::Api kApi{plugin::kPlugin.version, read, write, write_labels};

}  // namespace

}  // namespace gpuvis::nifti

extern "C" __attribute__((visibility("default"))) const void* gpuvis_nifti_plugin() { return &gpuvis::nifti::kApi; }
