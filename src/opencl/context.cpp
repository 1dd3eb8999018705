#include "opencl/context.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/streaming_copy.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::opencl {
namespace {

// FNV-1a, 64 bits: a cache key, not a security measure (a program from the cache is one this
// user's gpuvis built).
std::uint64_t fnv1a(const std::string& text, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(std::uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  api().GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size) api().GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The program's binary for the one device it was built for.
std::vector<unsigned char> program_binary(cl_program program) {
  std::size_t size = 0;
  if (api().GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return {};
  std::vector<unsigned char> binary(size);
  unsigned char* at = binary.data();
  if (api().GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof at, &at, nullptr) != CL_SUCCESS) return {};
  return binary;
}

// Written to a temporary name and renamed: another gpuvis reading the cache sees all or nothing.
void store(const std::filesystem::path& file, const std::vector<unsigned char>& binary) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return;
  const std::filesystem::path temporary = file.string() + ".tmp" + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
    if (!out) {
      std::filesystem::remove(temporary, ec);
      return;
    }
  }
  std::filesystem::rename(temporary, file, ec);
  if (ec) std::filesystem::remove(temporary, ec);
}

}  // namespace

std::string program_cache_dir() {
  if (const char* dir = std::getenv("GPUVIS_OPENCL_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/gpuvis/opencl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/gpuvis/opencl";
  return "";
}

Context& Context::get() {
  static Context context;
  return context;
}

Context::Context() : id_(choose_device()) {
  cl_int status = CL_SUCCESS;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(id_.platform), 0};
  context_ = api().CreateContext(properties, 1, &id_.device, nullptr, nullptr, &status);
  check(status, "creating a context");
  // Time stamps on every command (KernelTimer reads the kernels'): no measurable cost per call.
  queue_ = api().CreateCommandQueue(context_, id_.device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "creating a command queue");
}

cl_command_queue Context::new_queue() {
  cl_int status = CL_SUCCESS;
  cl_command_queue queue = api().CreateCommandQueue(context_, id_.device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "creating a command queue");
  return queue;
}

Context::~Context() {
  for (auto& [key, program] : programs_) api().ReleaseProgram(program);
  if (queue_) api().ReleaseCommandQueue(queue_);
  if (context_) api().ReleaseContext(context_);
}

cl_program Context::program(const std::string& source, const std::string& options) {
  std::lock_guard lock(mutex_);
  const std::string key =
      hex(fnv1a(source, fnv1a(options + '\n' + id_.info.platform + '\n' + id_.info.name + '\n' + id_.info.version + '\n' + id_.driver)));
  if (auto it = programs_.find(key); it != programs_.end()) return it->second;
  const std::string dir = program_cache_dir();
  const std::filesystem::path file = dir.empty() ? std::filesystem::path() : std::filesystem::path(dir) / (key + ".bin");
  cl_program program = nullptr;
  cl_int status = CL_SUCCESS;
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<unsigned char> binary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!binary.empty()) {
      const unsigned char* bytes = binary.data();
      const std::size_t size = binary.size();
      cl_int binary_status = CL_SUCCESS;
      program = api().CreateProgramWithBinary(context_, 1, &id_.device, &size, &bytes, &binary_status, &status);
      if (status != CL_SUCCESS || binary_status != CL_SUCCESS ||
          api().BuildProgram(program, 1, &id_.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
        if (program) api().ReleaseProgram(program);  // a stale or damaged binary: built again below
        program = nullptr;
      }
    }
  }
  if (!program) {
    const char* text = source.c_str();
    const std::size_t length = source.size();
    program = api().CreateProgramWithSource(context_, 1, &text, &length, &status);
    check(status, "creating a program");
    if (api().BuildProgram(program, 1, &id_.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      const std::string log = build_log(program, id_.device);
      api().ReleaseProgram(program);
      fail(ErrorCode::opencl, "OpenCL: building a program for " + id_.info.name + " failed: " + log);
    }
    if (!file.empty()) store(file, program_binary(program));
  }
  programs_[key] = program;
  return program;
}

Buffer::Buffer(std::size_t bytes) { reserve(bytes); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (mem_) api().ReleaseMemObject(mem_);
    mem_ = other.mem_, bytes_ = other.bytes_;
    other.mem_ = nullptr, other.bytes_ = 0;
  }
  return *this;
}

Buffer::~Buffer() {
  if (mem_) api().ReleaseMemObject(mem_);
}

void Buffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_ && mem_) return;
  if (mem_) api().ReleaseMemObject(mem_);
  mem_ = nullptr;
  bytes_ = 0;
  cl_int status = CL_SUCCESS;
  mem_ = api().CreateBuffer(Context::get().context(), CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &status);
  check(status, "allocating a device buffer");
  bytes_ = bytes;
}

Kernel::Kernel(cl_program program, const char* name) : name_(name) {
  cl_int status = CL_SUCCESS;
  kernel_ = api().CreateKernel(program, name, &status);
  check(status, name);
}

Kernel::~Kernel() {
  if (kernel_) api().ReleaseKernel(kernel_);
}

namespace {
thread_local KernelTimer* active_timer = nullptr;
}

KernelTimer::KernelTimer() : outer_(active_timer) { active_timer = this; }

KernelTimer::~KernelTimer() {
  for (cl_event e : events_) api().ReleaseEvent(e);
  active_timer = outer_;
}

KernelTimer* KernelTimer::active() { return active_timer; }

double KernelTimer::take_microseconds() {
  double ns = 0;
  if (!events_.empty()) check(api().WaitForEvents(static_cast<cl_uint>(events_.size()), events_.data()), "waiting for kernels");
  for (cl_event e : events_) {
    cl_ulong start = 0, end = 0;
    check(api().GetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "reading a kernel's start");
    check(api().GetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "reading a kernel's end");
    ns += static_cast<double>(end - start);
    api().ReleaseEvent(e);
  }
  events_.clear();
  return ns / 1000.0;
}

void Kernel::run(std::size_t width, std::size_t height, cl_command_queue queue) {
  // Work groups of 32 x 4 items, the grid rounded up to them (the kernels skip items past the
  // image): left to choose, PoCL took groups of one item, 70 times slower on a 1080p convolution.
  const std::size_t local[2] = {32, 4};
  const std::size_t global[2] = {(width + local[0] - 1) / local[0] * local[0], (height + local[1] - 1) / local[1] * local[1]};
  KernelTimer* timer = KernelTimer::active();
  cl_event done = nullptr;
  check(api().EnqueueNDRangeKernel(queue ? queue : Context::get().queue(), kernel_, 2, nullptr, global, local, 0, nullptr, timer ? &done : nullptr), name_);
  if (timer) timer->add(done);
}

namespace {

// Images smaller than this are copied by the driver straight from the caller's rows: staging a
// 640x480 frame (300 KB) made NVIDIA's Bernsen call slower, 97 → 168 µs, where a 1080p one (2 MB)
// went from 383 to 245 µs (H200 host, 2026-11-28).
constexpr std::size_t kStagedBytes = std::size_t{1} << 20;
// Pieces of about this size: the host copies one while the bus carries the one before.
constexpr std::size_t kPieceBytes = std::size_t{2} << 20;

PinnedHost& staging() {
  thread_local PinnedHost s;
  return s;
}

// Rows per piece.
std::size_t piece_rows(std::size_t row_bytes) { return std::max<std::size_t>(1, kPieceBytes / std::max<std::size_t>(1, row_bytes)); }

}  // namespace

unsigned char* PinnedHost::reserve(std::size_t bytes) {
  if (bytes <= bytes_ && host_) return host_;
  release();
  cl_int status = CL_SUCCESS;
  mem_ = api().CreateBuffer(Context::get().context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
  check(status, "allocating page-locked staging memory");
  void* p = api().EnqueueMapBuffer(Context::get().queue(), mem_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) {
    api().ReleaseMemObject(mem_);
    mem_ = nullptr;
    check(status, "mapping page-locked staging memory");
  }
  host_ = static_cast<unsigned char*>(p);
  bytes_ = bytes;
  return host_;
}

void PinnedHost::release() noexcept {
  if (!mem_) return;
  if (host_) {
    api().EnqueueUnmapMemObject(Context::get().queue(), mem_, host_, 0, nullptr, nullptr);
    api().Finish(Context::get().queue());
  }
  api().ReleaseMemObject(mem_);
  mem_ = nullptr, host_ = nullptr, bytes_ = 0;
}

bool worth_staging(std::size_t bytes) { return bytes >= kStagedBytes; }

std::ptrdiff_t copy_task_rows(std::size_t row_bytes) {
  return static_cast<std::ptrdiff_t>(std::max<std::size_t>(1, (std::size_t{128} << 10) / std::max<std::size_t>(1, row_bytes)));
}

void upload_rows(const void* data, std::size_t row_bytes, std::size_t rows, std::ptrdiff_t stride, Buffer& buffer) {
  buffer.reserve(row_bytes * rows);
  const cl_command_queue queue = Context::get().queue();
  if (worth_staging(row_bytes * rows)) {
    unsigned char* staged = staging().reserve(row_bytes * rows);
    const auto* from = static_cast<const unsigned char*>(data);
    const std::size_t step = piece_rows(row_bytes);
    for (std::size_t r0 = 0; r0 < rows; r0 += step) {
      const std::size_t n = std::min(step, rows - r0);
      parallel_for(static_cast<std::ptrdiff_t>(r0), static_cast<std::ptrdiff_t>(r0 + n), copy_task_rows(row_bytes), [&](std::ptrdiff_t a, std::ptrdiff_t b) {
        for (std::ptrdiff_t r = a; r < b; ++r)
          copy_streaming(staged + static_cast<std::size_t>(r) * row_bytes, from + r * stride, row_bytes);
      });
      // Not blocking: the next piece's host copy runs while this one crosses the bus.
      check(api().EnqueueWriteBuffer(queue, buffer.get(), CL_FALSE, r0 * row_bytes, n * row_bytes, staged + r0 * row_bytes, 0, nullptr,
                                     nullptr),
            "copying an image to the device");
    }
    check(api().Finish(queue), "copying an image to the device");
    return;
  }
  const std::size_t origin[3] = {0, 0, 0}, region[3] = {row_bytes, rows, 1};
  check(api().EnqueueWriteBufferRect(queue, buffer.get(), CL_TRUE, origin, origin, region, row_bytes, 0, static_cast<std::size_t>(stride), 0,
                                     data, 0, nullptr, nullptr),
        "copying an image to the device");
}

void download_rows(const Buffer& buffer, std::size_t row_bytes, std::size_t rows, std::ptrdiff_t stride, void* data) {
  const cl_command_queue queue = Context::get().queue();
  if (worth_staging(row_bytes * rows)) {
    unsigned char* staged = staging().reserve(row_bytes * rows);
    auto* to = static_cast<unsigned char*>(data);
    const std::size_t step = piece_rows(row_bytes);
    std::vector<cl_event> arrived;
    // Every piece is asked for at once; each is copied out as soon as it has arrived.
    try {
      for (std::size_t r0 = 0; r0 < rows; r0 += step) {
        const std::size_t n = std::min(step, rows - r0);
        cl_event e = nullptr;
        check(api().EnqueueReadBuffer(queue, buffer.get(), CL_FALSE, r0 * row_bytes, n * row_bytes, staged + r0 * row_bytes, 0, nullptr, &e),
              "copying an image from the device");
        arrived.push_back(e);
      }
      for (std::size_t k = 0, r0 = 0; r0 < rows; ++k, r0 += step) {
        const std::size_t n = std::min(step, rows - r0);
        check(api().WaitForEvents(1, &arrived[k]), "copying an image from the device");
        parallel_for(static_cast<std::ptrdiff_t>(r0), static_cast<std::ptrdiff_t>(r0 + n), copy_task_rows(row_bytes), [&](std::ptrdiff_t a, std::ptrdiff_t b) {
          for (std::ptrdiff_t r = a; r < b; ++r) std::memcpy(to + r * stride, staged + static_cast<std::size_t>(r) * row_bytes, row_bytes);
        });
      }
    } catch (...) {
      api().Finish(queue);
      for (cl_event e : arrived) api().ReleaseEvent(e);
      throw;
    }
    for (cl_event e : arrived) api().ReleaseEvent(e);
    return;
  }
  const std::size_t origin[3] = {0, 0, 0}, region[3] = {row_bytes, rows, 1};
  check(api().EnqueueReadBufferRect(queue, buffer.get(), CL_TRUE, origin, origin, region, row_bytes, 0, static_cast<std::size_t>(stride), 0,
                                    data, 0, nullptr, nullptr),
        "copying an image from the device");
}

}  // namespace gpuvis::opencl
