// Device arrays in and out of the Python module (device_arrays.hpp).
#include "device_arrays.hpp"

#include <dlpack/dlpack.h>

#include <numeric>

#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::python {
namespace {

// ---- DLPack (the protocol of data-apis.org: __dlpack__ hands over a capsule named "dltensor";
// the consumer renames it "used_dltensor" and calls the tensor's deleter when done) ----

// The byte strides of a C-contiguous array of `shape`.
std::vector<py::ssize_t> c_strides(const std::vector<py::ssize_t>& shape, int item) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t step = item;
  for (std::size_t a = shape.size(); a-- > 0;) {
    strides[a] = step;
    step *= shape[a];
  }
  return strides;
}

bool on_cuda(const DLDevice& d) { return d.device_type == kDLCUDA || d.device_type == kDLCUDAManaged; }

bool dlpack_on_cuda(const py::object& obj) {
  if (!py::hasattr(obj, "__dlpack_device__") || !py::hasattr(obj, "__dlpack__")) return false;
  const py::tuple dev = obj.attr("__dlpack_device__")();
  const int type = dev[0].cast<int>();
  return type == kDLCUDA || type == kDLCUDAManaged;
}

// The tensor of obj.__dlpack__(), ready on the legacy default stream (stream=1 asks the producer to
// order its work before that stream's; a producer without the argument is asked plainly).
DeviceArrayIn from_dlpack(const py::object& obj, const char* what) {
  py::object capsule;
  try {
    capsule = obj.attr("__dlpack__")(py::arg("stream") = 1);
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    capsule = obj.attr("__dlpack__")();
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!managed) throw py::error_already_set();
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  DeviceArrayIn in;
  in.keep = std::shared_ptr<void>(managed, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  const DLTensor& t = managed->dl_tensor;
  if (!on_cuda(t.device)) throw py::value_error(std::string(what) + ": the array's __dlpack__ is not on a CUDA device");
  if (t.dtype.lanes != 1 || t.dtype.bits % 8 != 0)
    throw py::type_error(std::string(what) + ": unsupported element type (DLPack code " + std::to_string(t.dtype.code) + ", " +
                         std::to_string(t.dtype.bits) + " bits)");
  in.kind = t.dtype.code == kDLUInt ? 'u' : t.dtype.code == kDLInt ? 'i' : t.dtype.code == kDLFloat ? 'f' : '?';
  in.item = t.dtype.bits / 8;
  in.data = static_cast<const char*>(t.data) + t.byte_offset;
  in.shape.assign(t.shape, t.shape + t.ndim);
  in.strides = c_strides(in.shape, in.item);  // none given: C-contiguous
  if (t.strides)                               // DLPack's count elements
    for (int a = 0; a < t.ndim; ++a) in.strides[static_cast<std::size_t>(a)] = t.strides[a] * in.item;
  return in;
}

DeviceArrayIn from_cuda_array_interface(const py::object& obj, const char* what) {
  const py::dict cai = obj.attr("__cuda_array_interface__");
  DeviceArrayIn in;
  in.shape = cai["shape"].cast<std::vector<py::ssize_t>>();
  const std::string typestr = cai["typestr"].cast<std::string>();
  if (typestr.size() < 3 || (typestr[0] == '>' && typestr.substr(1) != "u1"))
    throw py::type_error(std::string(what) + ": unsupported element type " + typestr);
  in.kind = typestr[1];
  in.item = std::stoi(typestr.substr(2));
  in.data = reinterpret_cast<const void*>(cai["data"].cast<py::tuple>()[0].cast<std::uintptr_t>());
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    in.strides = cai["strides"].cast<std::vector<py::ssize_t>>();
  } else {
    in.strides = c_strides(in.shape, in.item);
  }
  // Version 3: 1 legacy default, 2 per-thread default, which are also CUDA's own handles for them;
  // absent or None: nothing to wait for.
  if (cai.contains("stream") && !cai["stream"].is_none())
    in.stream = reinterpret_cast<cuda::StreamHandle>(cai["stream"].cast<std::uintptr_t>());
  return in;
}

// The DLPack tensor of a DeviceArray: it holds the array (and so its memory) until the consumer
// calls the deleter.
struct Exported {
  std::shared_ptr<DeviceArray> array;
  std::vector<std::int64_t> shape;
  DLManagedTensor tensor{};
};

DLDataType dl_type(const std::string& typestr) {
  DLDataType t{};
  t.code = static_cast<std::uint8_t>(typestr[1] == 'f' ? kDLFloat : typestr[1] == 'i' ? kDLInt : kDLUInt);
  t.bits = static_cast<std::uint8_t>(8 * std::stoi(typestr.substr(2)));
  t.lanes = 1;
  return t;
}

int current_device() { return cuda::device_count() > 0 ? cuda::current_device_index() : 0; }

py::capsule export_dlpack(const std::shared_ptr<DeviceArray>& a) {
  auto* e = new Exported{a, std::vector<std::int64_t>(a->shape.begin(), a->shape.end()), {}};
  DLTensor& t = e->tensor.dl_tensor;
  t.data = a->memory.data();
  t.device = {kDLCUDA, current_device()};
  t.ndim = static_cast<int>(e->shape.size());
  t.dtype = dl_type(a->typestr);
  t.shape = e->shape.data();
  t.strides = nullptr;  // C-contiguous
  t.byte_offset = 0;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  // A capsule never consumed (still named "dltensor") deletes its tensor itself.
  PyObject* capsule = PyCapsule_New(&e->tensor, "dltensor", [](PyObject* c) {
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto* unused = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
      if (unused && unused->deleter) unused->deleter(unused);
    }
  });
  if (!capsule) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace

std::shared_ptr<DeviceArray> DeviceArray::make(std::vector<py::ssize_t> shape, std::string typestr) {
  auto out = std::make_shared<DeviceArray>();
  out->shape = std::move(shape);
  out->typestr = std::move(typestr);
  out->memory = cuda::DeviceAllocation(out->elements() * static_cast<std::size_t>(std::stoi(out->typestr.substr(2))));
  return out;
}

std::size_t DeviceArray::elements() const {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, [](std::size_t a, py::ssize_t b) { return a * static_cast<std::size_t>(b); });
}

py::dict DeviceArray::interface() const {
  py::dict d;
  d["shape"] = py::tuple(py::cast(shape));
  d["typestr"] = typestr;
  d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(memory.data()), false);
  d["strides"] = py::none();  // C-contiguous
  d["version"] = 3;
  d["stream"] = py::none();  // complete when returned: nothing to wait for
  return d;
}

py::array DeviceArray::to_host() const {
  py::array out(py::dtype(typestr), shape);
  {
    py::gil_scoped_release release;
    cuda::copy_to_host(out.mutable_data(), memory.data(), memory.size());
  }
  return out;
}

bool DeviceArrayIn::contiguous_from(std::size_t from) const {
  py::ssize_t step = item;
  for (std::size_t a = shape.size(); a-- > from;) {
    if (shape[a] != 1 && strides[a] != step) return false;
    step *= shape[a];
  }
  return true;
}

bool is_device_array(const py::object& obj) { return py::hasattr(obj, "__cuda_array_interface__") || dlpack_on_cuda(obj); }

DeviceArrayIn device_array_in(const py::object& obj, const char* what) {
  DeviceArrayIn in = py::hasattr(obj, "__cuda_array_interface__") ? from_cuda_array_interface(obj, what) : from_dlpack(obj, what);
  for (py::ssize_t n : in.shape)
    if (n < 1) throw py::value_error(std::string(what) + ": the array is empty");
  if (!cuda::is_device_pointer(in.data))
    throw py::value_error(std::string(what) + ": the array does not point at memory of the current CUDA device");
  return in;
}

DeviceInput device_input(const py::object& obj, const char* what) {
  DeviceArrayIn a = device_array_in(obj, what);
  if (a.shape.size() != 2 && a.shape.size() != 3)
    throw py::value_error(std::string(what) + ": expected a 2D (H, W) or 3D (H, W, C) device array, got " + std::to_string(a.shape.size()) + "D");
  DeviceInput in;
  in.shape = a.shape;
  in.height = static_cast<int>(a.shape[0]);
  in.width = static_cast<int>(a.shape[1]);
  in.channels = a.shape.size() == 3 ? static_cast<int>(a.shape[2]) : 1;
  in.keep_3d = a.shape.size() == 3;
  in.kind = a.kind;
  in.item = a.item;
  in.data = a.data;
  in.stream = a.stream;
  in.keep = std::move(a.keep);
  const py::ssize_t row = static_cast<py::ssize_t>(in.width) * in.channels * in.item;
  if (!a.contiguous_from(1) || (in.height > 1 && a.strides[0] < row))
    throw py::value_error(std::string(what) + ": each row's pixels must be contiguous (pass a C-contiguous copy, e.g. "
                                              "cupy.ascontiguousarray or tensor.contiguous())");
  in.stride = static_cast<std::ptrdiff_t>(in.height > 1 ? a.strides[0] : row);
  return in;
}

DeviceInput device_volume(const py::object& obj, bool channels, const char* what, VolumeShape& shape) {
  DeviceArrayIn a = device_array_in(obj, what);
  const std::size_t spatial = a.shape.size() - (channels ? 1 : 0);
  if (spatial != 3 && spatial != 4)
    throw py::value_error(std::string(what) + ": expected (Z, H, W) or (T, Z, H, W)" + (channels ? " plus a channel axis" : "") + ", got " +
                          std::to_string(a.shape.size()) + " dimensions");
  if (!a.contiguous_from(0))
    throw py::value_error(std::string(what) + ": a device volume must be C-contiguous (cupy.ascontiguousarray or tensor.contiguous())");
  const py::ssize_t frames = spatial == 4 ? a.shape[0] : 1, depth = a.shape[spatial - 3], h = a.shape[spatial - 2], w = a.shape[spatial - 1];
  shape = VolumeShape{static_cast<int>(depth), static_cast<int>(frames)};
  DeviceInput in;
  in.shape = a.shape;
  in.height = static_cast<int>(frames * depth * h);
  in.width = static_cast<int>(w);
  in.channels = channels ? static_cast<int>(a.shape.back()) : 1;
  in.keep_3d = channels;
  in.kind = a.kind;
  in.item = a.item;
  in.data = a.data;
  in.stream = a.stream;
  in.keep = std::move(a.keep);
  in.stride = static_cast<std::ptrdiff_t>(in.width) * in.channels * in.item;
  return in;
}

py::object like_input(const py::object& input, std::shared_ptr<DeviceArray> out) {
  const std::string module = py::type::of(input).attr("__module__").cast<std::string>();
  py::object result = py::cast(std::move(out));
  if (module.rfind("cupy", 0) == 0) return py::module_::import("cupy").attr("asarray")(result);
  if (module.rfind("torch", 0) == 0) return py::module_::import("torch").attr("as_tensor")(result, py::arg("device") = input.attr("device"));
  return result;
}

void require_cuda_for_device_arrays(const std::string& backend, const char* what) {
  if (backend != "auto" && backend != "cuda")
    throw py::value_error(std::string(what) + ": a device array needs backend='cuda' or 'auto' (copy it to the host for the "
                                              "CPU, e.g. cupy.asnumpy)");
}

void bind_device_arrays(py::module_& m) {
  py::class_<DeviceArray, std::shared_ptr<DeviceArray>>(m, "DeviceArray",
                                                       "A result in device memory: cupy.asarray(a), torch.as_tensor(a, "
                                                       "device='cuda') or torch.from_dlpack(a) use it without a copy; .get() copies "
                                                       "it to NumPy")
      .def_property_readonly("__cuda_array_interface__", &DeviceArray::interface, "The array as CUDA's array interface (version 3)")
      .def(
          "__dlpack__",
          [](const std::shared_ptr<DeviceArray>& self, const py::object& /*stream*/, const py::object& /*max_version*/,
             const py::object& /*dl_device*/, const py::object& /*copy*/) {
            return export_dlpack(self);  // complete when returned: no stream to order after
          },
          py::arg("stream") = py::none(), py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
          py::arg("copy") = py::none(), "The array as a DLPack capsule (the array API's protocol; no copy)")
      .def(
          "__dlpack_device__", [](const DeviceArray&) { return py::make_tuple(static_cast<int>(kDLCUDA), current_device()); },
          "DLPack's device of the array: (2, the CUDA device's index)")
      .def_property_readonly(
          "shape", [](const DeviceArray& a) { return py::tuple(py::cast(a.shape)); }, "The array's shape, as NumPy's")
      .def_property_readonly(
          "dtype", [](const DeviceArray& a) { return py::dtype(a.typestr); }, "The element type: uint8, uint16, int32 or float32")
      .def("get", &DeviceArray::to_host, "A NumPy copy on the host")
      .def("__repr__", [](const DeviceArray& a) {
        return "<gpuvis.DeviceArray shape=" + py::str(py::tuple(py::cast(a.shape))).cast<std::string>() + " dtype=" +
               py::str(py::dtype(a.typestr)).cast<std::string>() + ">";
      });
  m.def(
      "to_device",
      [](py::array host) {
        host = py::array::ensure(host, py::array::c_style);
        const char kind = host.dtype().kind();
        const auto item = host.itemsize();
        if (!((kind == 'u' && (item == 1 || item == 2)) || (kind == 'f' && item == 4)))
          throw py::type_error("to_device: expected dtype uint8, uint16 or float32");
        auto out = DeviceArray::make(std::vector<py::ssize_t>(host.shape(), host.shape() + host.ndim()),
                                     item == 1 ? "|u1" : (kind == 'u' ? "<u2" : "<f4"));
        cuda::copy_to_device(out->memory.data(), host.data(), static_cast<std::size_t>(host.nbytes()));
        return out;
      },
      py::arg("array"), "Copies a NumPy array to the CUDA device as a DeviceArray (for callers without CuPy or PyTorch)");
}

}  // namespace gpuvis::python
