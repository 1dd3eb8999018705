#pragma once
// Device arrays in the Python module: a caller's GPU array read through __cuda_array_interface__
// (CuPy, PyTorch, Numba) or DLPack's __dlpack__ (JAX and any other
// array-API library), and gpuvis.DeviceArray, the device memory results are returned in, which
// offers both protocols again.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/core/volume.hpp"
#include "gpuvis/cuda/device_memory.hpp"

namespace gpuvis::python {

namespace py = pybind11;

// Device memory holding a result, exposed through __cuda_array_interface__ (version 3) and
// __dlpack__, so that cupy.asarray, torch.as_tensor or torch.from_dlpack take it without a copy;
// it stays alive as long as they hold it.
struct DeviceArray {
  cuda::DeviceAllocation memory;
  std::vector<py::ssize_t> shape;
  std::string typestr;  // NumPy's: |u1, <u2, <i4, <f4

  // An empty C-contiguous array of `shape` and `typestr` on the current device.
  static std::shared_ptr<DeviceArray> make(std::vector<py::ssize_t> shape, std::string typestr);
  std::size_t elements() const;
  py::dict interface() const;
  py::array to_host() const;
};

// A caller's device array as it came: its geometry (strides in bytes), element type and the stream
// its producer said its data is ready on (null: the legacy default stream, or nothing to wait for).
struct DeviceArrayIn {
  const void* data = nullptr;
  std::vector<py::ssize_t> shape, strides;
  char kind = 0;  // 'u', 'i' or 'f'
  int item = 0;   // bytes per element
  cuda::StreamHandle stream = nullptr;
  std::shared_ptr<void> keep;  // a DLPack tensor: handed back (deleted) once the call is done
  // Whether the elements are laid out as one C-contiguous block from axis `from` on (rows may have
  // any larger stride when from == 1).
  bool contiguous_from(std::size_t from) const;
};

// True when `obj` is a CUDA array by either protocol (a NumPy array, whose __dlpack__ is on the
// CPU, is not).
bool is_device_array(const py::object& obj);
DeviceArrayIn device_array_in(const py::object& obj, const char* what);

// A device image, (H, W) or (H, W, C), as the library's device views take it.
struct DeviceInput {
  std::vector<py::ssize_t> shape;  // the array's own
  const void* data = nullptr;
  int width = 0, height = 0, channels = 1;
  std::ptrdiff_t stride = 0;
  char kind = 0;
  int item = 0;
  bool keep_3d = false;
  cuda::StreamHandle stream = nullptr;
  std::shared_ptr<void> keep;
};
DeviceInput device_input(const py::object& obj, const char* what);
// A device volume, (Z, H, W) or (T, Z, H, W) with a trailing channel axis when `channels`, as the
// stacked image (T*Z*H, W[, C]) the library takes, and its shape. It must be C-contiguous.
DeviceInput device_volume(const py::object& obj, bool channels, const char* what, VolumeShape& shape);

template <class T>
DeviceView<const T> device_view(const DeviceInput& in) {
  return {static_cast<const T*>(in.data), in.width, in.height, in.channels, in.stride};
}
template <class T>
DeviceView<T> device_view(DeviceArray& a, int width, int height, int channels) {
  return {static_cast<T*>(a.memory.data()), width, height, channels, static_cast<std::ptrdiff_t>(width) * channels * static_cast<std::ptrdiff_t>(sizeof(T))};
}

// NumPy's name of T's element type, as DeviceArray holds it.
template <class T>
const char* typestr_of() {
  if constexpr (sizeof(T) == 1) return "|u1";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "<u2";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "<i4";
  else return "<f4";
}

// The result in the input's own library when it is CuPy or PyTorch (no copy), else the DeviceArray.
py::object like_input(const py::object& input, std::shared_ptr<DeviceArray> out);

void require_cuda_for_device_arrays(const std::string& backend, const char* what);

void bind_device_arrays(py::module_& m);

}  // namespace gpuvis::python
