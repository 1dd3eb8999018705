// The Python module gpuvis._gpuvis: a thin layer over the C++ API (pybind11). NumPy arrays are
// viewed without copying when each row's pixels are contiguous (any C-contiguous array, and crops
// of one); the GIL is released while the library works; gpuvis::Error becomes gpuvis.Error.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "gpuvis/core/build_info.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/filters/auto_backend.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/device.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/life/life.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "gpuvis/output/tuio.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/source/frame_source.hpp"
#include "gpuvis/threshold/device.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "gpuvis/track/tracker.hpp"

#include "device_arrays.hpp"

namespace py = pybind11;
using namespace gpuvis;
using namespace gpuvis::python;

namespace {

// ---- arrays <-> image views ----

// A 2D (H x W) or 3D (H x W x C, C = 1, 3 or 4) array of T whose rows hold contiguous pixels.
template <class T>
HostView<T> view_of(py::array& a, const char* what) {
  if (!py::isinstance<py::array_t<T>>(a))
    throw py::type_error(std::string(what) + ": expected dtype " + py::str(py::dtype::of<T>()).cast<std::string>() + ", got " +
                         py::str(a.dtype()).cast<std::string>());
  if (a.ndim() != 2 && a.ndim() != 3)
    throw py::value_error(std::string(what) + ": expected a 2D (H, W) or 3D (H, W, C) array, got " + std::to_string(a.ndim()) + "D");
  const int channels = a.ndim() == 3 ? static_cast<int>(a.shape(2)) : 1;
  const auto item = static_cast<py::ssize_t>(sizeof(T));
  const bool pixels_contiguous = (a.ndim() == 2 ? a.strides(1) == item : a.strides(2) == item && a.strides(1) == item * channels);
  if (!pixels_contiguous || a.strides(0) < a.shape(1) * channels * item)
    throw py::value_error(std::string(what) + ": each row's pixels must be contiguous (pass np.ascontiguousarray(a))");
  // Inputs may be read-only (np.frombuffer, memory maps): only outputs, made here, are written.
  return HostView<T>(static_cast<T*>(const_cast<void*>(a.data())), static_cast<int>(a.shape(1)), static_cast<int>(a.shape(0)),
                     channels, static_cast<std::ptrdiff_t>(a.strides(0)));
}

template <class T>
py::array_t<T> like(const HostView<T>& v, bool keep_3d) {
  if (keep_3d) return py::array_t<T>({v.height, v.width, v.channels});
  return py::array_t<T>({v.height, v.width});
}

// Calls f<T>(src view, dst view) for the array's element type (u8, u16, f32) and returns dst.
template <class F>
py::array for_each_type(py::array src, const char* what, F&& f) {
  auto run = [&](auto tag) -> py::array {
    using T = decltype(tag);
    HostView<T> in = view_of<T>(src, what);
    py::array_t<T> out = like(in, src.ndim() == 3);
    py::array out_any = out;
    HostView<T> o = view_of<T>(out_any, what);
    {
      py::gil_scoped_release release;
      f(HostView<const T>(in), o);
    }
    return out;
  };
  if (py::isinstance<py::array_t<std::uint8_t>>(src)) return run(std::uint8_t{});
  if (py::isinstance<py::array_t<std::uint16_t>>(src)) return run(std::uint16_t{});
  if (py::isinstance<py::array_t<float>>(src)) return run(float{});
  throw py::type_error(std::string(what) + ": expected dtype uint8, uint16 or float32, got " + py::str(src.dtype()).cast<std::string>());
}

Backend backend_of(const std::string& name) { return parse_backend(name); }

// Anything NumPy can read as an array (lists too), as the host functions take it.
py::array host_array(const py::object& obj, const char* what) {
  py::array a = py::array::ensure(obj);
  if (!a) throw py::type_error(std::string(what) + ": expected a NumPy array or a device array (__cuda_array_interface__)");
  return a;
}

// ---- device arrays (device_arrays.hpp) ----

// Calls f<T>(src, dst, stream) on device views of `in` (read from `src`) for its element type;
// returns the result like the input (same shape and dtype).
template <class F>
py::object on_device(const py::object& src, const DeviceInput& in, const char* what, F&& f) {
  auto run = [&](auto tag) -> py::object {
    using T = decltype(tag);
    auto out = DeviceArray::make(in.shape, typestr_of<T>());
    const DeviceView<T> d = device_view<T>(*out, in.width, in.height, in.channels);
    {
      py::gil_scoped_release release;
      f(device_view<T>(in), d, in.stream);
    }
    return like_input(src, std::move(out));
  };
  if (in.kind == 'u' && in.item == 1) return run(std::uint8_t{});
  if (in.kind == 'u' && in.item == 2) return run(std::uint16_t{});
  if (in.kind == 'f' && in.item == 4) return run(float{});
  throw py::type_error(std::string(what) + ": expected dtype uint8, uint16 or float32 on the device");
}

// The same for an image, (H, W) or (H, W, C).
template <class F>
py::object for_each_device_type(const py::object& src, const char* what, F&& f) {
  return on_device(src, device_input(src, what), what, std::forward<F>(f));
}

// ---- image operations ----

py::object threshold_py(const py::object& img_obj, const std::string& method, std::optional<int> window, std::optional<int> gate,
                       std::optional<int> tile, std::optional<float> bias, std::optional<int> contrast,
                       std::optional<int> sharpen, const std::string& backend) {
  threshold::Params p = pipeline::DetectorParams::default_threshold();  // as `gpuvis threshold`
  p.method = threshold::parse_method(method);
  if (sharpen) p.sharpen = *sharpen;
  p.backend = backend_of(backend);
  if (window) p.bernsen.half_window = p.bradley_roth.size = *window;
  if (gate) p.bernsen.gate = p.tiled.gradient = *gate;
  if (tile) p.tiled.tile = *tile;
  if (bias) p.bradley_roth.bias = *bias;
  if (contrast) p.bradley_roth.contrast = *contrast;
  threshold::validate(p);
  if (is_device_array(img_obj)) {
    require_cuda_for_device_arrays(backend, "threshold");
    return for_each_device_type(img_obj, "threshold", [&](auto src, auto dst, cuda::StreamHandle stream) {
      using T = std::remove_const_t<typename decltype(src)::value_type>;
      if constexpr (std::is_same_v<T, std::uint8_t>) {
        if (src.channels != 1) throw std::invalid_argument("threshold: expected a grey (H, W) uint8 image");
        threshold::threshold(src, dst, p, stream);
      } else {
        throw std::invalid_argument("threshold: expected dtype uint8");
      }
    });
  }
  py::array img = host_array(img_obj, "threshold");
  HostView<std::uint8_t> in = view_of<std::uint8_t>(img, "threshold");
  if (in.channels != 1) throw py::value_error("threshold: expected a grey (H, W) uint8 image");
  py::array_t<std::uint8_t> out({in.height, in.width});
  py::array out_any = out;
  HostView<std::uint8_t> o = view_of<std::uint8_t>(out_any, "threshold");
  py::gil_scoped_release release;
  threshold::threshold(HostView<const std::uint8_t>(in), o, p);
  return out;
}

filters::Kernel kernel_of(const py::object& k) {
  if (py::isinstance<py::str>(k)) return filters::parse_kernel(k.cast<std::string>());
  auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(k);
  if (!a || a.ndim() != 2) throw py::value_error("convolve: kernel must be a 2D array or a kernel string such as 'gaussian:sigma=2'");
  filters::Kernel out;
  out.height = static_cast<int>(a.shape(0));
  out.width = static_cast<int>(a.shape(1));
  out.weights.assign(a.data(), a.data() + a.size());
  return out;
}

py::object convolve_py(const py::object& img, const py::object& kernel, const std::string& border, bool flip,
                       const std::string& backend, bool fixed_point) {
  filters::ConvolveParams o;
  o.border = filters::parse_border(border);
  o.flip = flip;
  o.fixed_point = fixed_point;
  o.backend = backend_of(backend);
  const filters::Kernel k = kernel_of(kernel);
  if (is_device_array(img)) {
    require_cuda_for_device_arrays(backend, "convolve");
    return for_each_device_type(img, "convolve", [&](auto src, auto dst, cuda::StreamHandle stream) {
      using T = std::remove_const_t<typename decltype(src)::value_type>;
      filters::convolve<T>(src, dst, k, o, stream);
    });
  }
  return for_each_type(host_array(img, "convolve"), "convolve", [&](auto src, auto dst) {
    using T = std::remove_const_t<typename decltype(src)::value_type>;
    filters::convolve<T>(src, dst, k, o);
  });
}

py::object bilateral_py(const py::object& img, int radius, float sigma_space, float sigma_range, bool adaptive, bool per_channel,
                       const std::string& distance, const std::string& border, const std::string& backend) {
  filters::BilateralParams p;
  p.radius = radius;
  p.sigma_space = sigma_space;
  p.sigma_range = sigma_range;
  p.adaptive = adaptive;
  p.mode = per_channel ? filters::RangeMode::per_channel : filters::RangeMode::colour;
  if (distance != "l1" && distance != "l2") throw py::value_error("bilateral: distance must be 'l1' or 'l2'");
  p.distance = distance == "l1" ? filters::ColourDistance::l1 : filters::ColourDistance::l2;
  p.border = filters::parse_border(border);
  p.backend = backend_of(backend);
  filters::validate(p);
  if (is_device_array(img)) {
    require_cuda_for_device_arrays(backend, "bilateral");
    return for_each_device_type(img, "bilateral", [&](auto src, auto dst, cuda::StreamHandle stream) {
      using T = std::remove_const_t<typename decltype(src)::value_type>;
      filters::bilateral<T>(src, dst, p, stream);
    });
  }
  return for_each_type(host_array(img, "bilateral"), "bilateral", [&](auto src, auto dst) {
    using T = std::remove_const_t<typename decltype(src)::value_type>;
    filters::bilateral<T>(src, dst, p);
  });
}

filters::MeanShiftParams mean_shift_params(float spatial, float range, const std::string& kernel, const std::string& colour, float eps,
                                           int max_iter, const std::string& backend, const std::vector<float>& ranges, float axial,
                                           float time, const char* what) {
  filters::MeanShiftParams p;
  p.spatial = spatial;
  p.range = range;
  if (kernel != "epanechnikov" && kernel != "gaussian") throw py::value_error(std::string(what) + ": kernel must be 'epanechnikov' or 'gaussian'");
  p.kernel = kernel == "gaussian" ? filters::MeanShiftKernel::gaussian : filters::MeanShiftKernel::epanechnikov;
  if (colour != "luv" && colour != "rgb") throw py::value_error(std::string(what) + ": colour must be 'luv' or 'rgb'");
  p.colour = colour == "rgb" ? filters::MeanShiftColour::rgb : filters::MeanShiftColour::luv;
  if (ranges.size() > 4) throw py::value_error(std::string(what) + ": ranges takes at most 4 values (one per channel)");
  for (std::size_t c = 0; c < ranges.size(); ++c) p.channel_range[c] = ranges[c];
  p.axial = axial;
  p.time = time;
  p.eps = eps;
  p.max_iter = max_iter;
  p.backend = backend_of(backend);
  filters::validate(p);
  return p;
}

// A volume array, (Z, H, W) or (T, Z, H, W), with a trailing channel axis when `channels`, as the
// stacked image the library takes: (T*Z*H, W[, C]), C-contiguous, and its shape.
std::pair<py::array, VolumeShape> stacked_volume(py::array vol, bool channels, const char* what) {
  const int spatial = static_cast<int>(vol.ndim()) - (channels ? 1 : 0);
  if (spatial != 3 && spatial != 4)
    throw py::value_error(std::string(what) + ": expected (Z, H, W) or (T, Z, H, W)" + (channels ? " plus a channel axis" : "") + ", got " +
                          std::to_string(vol.ndim()) + " dimensions");
  py::array c = py::array::ensure(vol, py::array::c_style);
  const py::ssize_t frames = spatial == 4 ? c.shape(0) : 1, depth = c.shape(spatial - 3), h = c.shape(spatial - 2), w = c.shape(spatial - 1);
  std::vector<py::ssize_t> shape{frames * depth * h, w};
  if (channels) shape.push_back(c.shape(c.ndim() - 1));
  return {c.reshape(shape), VolumeShape{static_cast<int>(depth), static_cast<int>(frames)}};
}

py::object mean_shift_py(const py::object& img, float spatial, float range, const std::string& kernel, const std::string& colour, float eps,
                         int max_iter, const std::string& backend, const std::vector<float>& ranges) {
  const auto p = mean_shift_params(spatial, range, kernel, colour, eps, max_iter, backend, ranges, 0, 0, "mean_shift");
  if (is_device_array(img)) {
    require_cuda_for_device_arrays(backend, "mean_shift");
    return for_each_device_type(img, "mean_shift", [&](auto src, auto dst, cuda::StreamHandle stream) {
      using T = std::remove_const_t<typename decltype(src)::value_type>;
      filters::mean_shift_filter<T>(src, dst, VolumeShape{}, p, stream);
    });
  }
  return for_each_type(host_array(img, "mean_shift"), "mean_shift", [&](auto src, auto dst) {
    using T = std::remove_const_t<typename decltype(src)::value_type>;
    filters::mean_shift_filter<T>(src, dst, p);
  });
}

py::object mean_shift_volume_py(const py::object& vol, float spatial, float range, float axial, float time, bool channels,
                                const std::string& kernel, const std::string& colour, float eps, int max_iter, const std::string& backend,
                                const std::vector<float>& ranges) {
  const auto p = mean_shift_params(spatial, range, kernel, colour, eps, max_iter, backend, ranges, axial, time, "mean_shift_volume");
  if (is_device_array(vol)) {
    require_cuda_for_device_arrays(backend, "mean_shift_volume");
    VolumeShape shape;
    const DeviceInput in = device_volume(vol, channels, "mean_shift_volume", shape);
    return on_device(vol, in, "mean_shift_volume", [&](auto src, auto dst, cuda::StreamHandle stream) {
      using T = std::remove_const_t<typename decltype(src)::value_type>;
      filters::mean_shift_filter<T>(src, dst, shape, p, stream);
    });
  }
  py::array host = host_array(vol, "mean_shift_volume");
  auto [stacked, shape] = stacked_volume(host, channels, "mean_shift_volume");
  py::array out = for_each_type(stacked, "mean_shift_volume", [&, sh = shape](auto src, auto dst) {
    using T = std::remove_const_t<typename decltype(src)::value_type>;
    filters::mean_shift_filter_volume<T>(src, dst, sh, p);
  });
  std::vector<py::ssize_t> original(host.shape(), host.shape() + host.ndim());
  return out.reshape(original);
}

template <class T>
py::tuple segmentation_tuple(const filters::MeanShiftSegmentation<T>& seg, VolumeShape shape, const std::vector<py::ssize_t>& original,
                             bool channels, bool keep_3d);

// labels (int32), filtered (the input's dtype) and the region table, for an image or a volume.
template <class T>
py::tuple segment_typed(py::array arr, const filters::MeanShiftSegmentParams& p, VolumeShape shape, const std::vector<py::ssize_t>& original,
                        bool channels) {
  HostView<T> in = view_of<T>(arr, "mean_shift_segment");
  filters::MeanShiftSegmentation<T> seg;
  {
    py::gil_scoped_release release;
    seg = filters::mean_shift_segment<T>(HostView<const T>(in), p, shape);
  }
  return segmentation_tuple(seg, shape, original, channels, arr.ndim() == 3);
}

// The region table of a segmentation, as dicts (label, size, mean, centroid, bbox).
template <class T>
py::list region_list(const filters::MeanShiftSegmentation<T>& seg, VolumeShape shape, const std::vector<py::ssize_t>& original, bool channels) {
  const bool volume = shape.depth > 1 || shape.frames > 1 || original.size() - (channels ? 1 : 0) >= 3;
  const int axes = shape.frames > 1 ? 4 : volume ? 3 : 2;
  py::list regions;
  for (const auto& r : seg.regions) {
    py::list mean, centroid, bbox;
    for (int k = 0; k < seg.filtered.channels(); ++k) mean.append(r.mean[k]);
    for (int a = 0; a < axes; ++a) centroid.append(r.centroid[a]);
    for (int a = 0; a < axes; ++a) bbox.append(r.lo[a]);
    for (int a = 0; a < axes; ++a) bbox.append(r.hi[a]);
    py::dict d;
    d["label"] = r.label;
    d["size"] = r.size;
    d["mean"] = mean;
    d["centroid"] = py::tuple(centroid);
    d["bbox"] = py::tuple(bbox);
    regions.append(d);
  }
  return regions;
}

template <class T>
py::tuple segmentation_tuple(const filters::MeanShiftSegmentation<T>& seg, VolumeShape shape, const std::vector<py::ssize_t>& original,
                             bool channels, bool keep_3d) {
  const HostView<const T> in = seg.filtered.view();
  py::array_t<std::int32_t> labels({in.height, in.width});
  auto l = labels.template mutable_unchecked<2>();
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) l(y, x) = seg.labels(x, y);
  py::array_t<T> filtered = like(in, keep_3d);
  py::array filtered_any = filtered;
  copy<T>(seg.filtered.view(), view_of<T>(filtered_any, "mean_shift_segment"));
  std::vector<py::ssize_t> label_shape(original.begin(), original.end() - (channels ? 1 : 0));
  return py::make_tuple(py::array(labels).reshape(label_shape), py::array(filtered).reshape(original),
                        region_list(seg, shape, original, channels));
}

// mean_shift_segment of a device image or volume: the filter runs on the device array; its modes
// and filtered samples come to the host for the linking and merging, and the labels and filtered
// samples go back as device arrays.
template <class T>
py::tuple segment_on_device(const py::object& src, const DeviceInput& in, const filters::MeanShiftSegmentParams& p, VolumeShape shape,
                            bool channels) {
  auto filtered_dev = DeviceArray::make(in.shape, typestr_of<T>());
  std::vector<py::ssize_t> label_shape(in.shape.begin(), in.shape.end() - (channels ? 1 : 0));
  auto labels_dev = DeviceArray::make(label_shape, typestr_of<std::int32_t>());
  filters::MeanShiftSegmentation<T> seg;
  {
    py::gil_scoped_release release;
    const std::size_t row = static_cast<std::size_t>(in.width) * in.channels * sizeof(T);
    Image<T> source(in.width, in.height, in.channels);  // its local means colour the regions for the last fusion
    for (int y = 0; y < in.height; ++y) cuda::copy_to_host(source.row(y), static_cast<const char*>(in.data) + in.stride * y, row);
    // Smoothing runs on the host, as on every path (the same bytes everywhere); the smoothed image
    // goes up for the climbs.
    std::shared_ptr<DeviceArray> smoothed_dev;
    if (p.smooth > 0) {
      source = filters::mean_shift_segment_input<T>(source.view(), p, shape);
      smoothed_dev = DeviceArray::make(in.shape, typestr_of<T>());
      for (int y = 0; y < in.height; ++y)
        cuda::copy_to_device(static_cast<char*>(smoothed_dev->memory.data()) + row * static_cast<std::size_t>(y), source.row(y), row);
    }
    const DeviceView<const T> climbs = smoothed_dev ? DeviceView<const T>(device_view<T>(*smoothed_dev, in.width, in.height, in.channels))
                                                    : device_view<T>(in);
    std::vector<float> modes;
    filters::mean_shift_modes<T>(climbs, device_view<T>(*filtered_dev, in.width, in.height, in.channels), modes, shape, p.filter, in.stream);
    Image<T> filtered(in.width, in.height, in.channels);
    for (int y = 0; y < in.height; ++y)
      cuda::copy_to_host(filtered.row(y), static_cast<const char*>(filtered_dev->memory.data()) + row * static_cast<std::size_t>(y), row);
    seg = filters::mean_shift_segment_from_modes<T>(std::move(filtered), modes, source.view(), p, shape);
    for (int y = 0; y < in.height; ++y)
      cuda::copy_to_device(static_cast<char*>(labels_dev->memory.data()) + static_cast<std::size_t>(y) * in.width * sizeof(std::int32_t),
                           seg.labels.row(y), static_cast<std::size_t>(in.width) * sizeof(std::int32_t));
  }
  return py::make_tuple(like_input(src, std::move(labels_dev)), like_input(src, std::move(filtered_dev)),
                        region_list(seg, shape, in.shape, channels));
}

// mean_shift_segment's parameters (its filter: the Epanechnikov kernel, eps 0.01, 100 steps), checked.
filters::MeanShiftSegmentParams segment_params(float spatial, float range, float connect, float fuse, int min_size, const std::string& colour,
                                               const std::string& backend, const std::vector<float>& ranges, float axial = 0.0f,
                                               float time = 0.0f, float smooth = 0.0f) {
  filters::MeanShiftSegmentParams p;
  p.filter = mean_shift_params(spatial, range, "epanechnikov", colour, 0.01f, 100, backend, ranges, axial, time, "mean_shift_segment");
  p.connect = connect;
  p.fuse = fuse;
  p.min_size = min_size;
  p.smooth = smooth;
  filters::validate(p);
  return p;
}

py::tuple mean_shift_segment_py(const py::object& img, float spatial, float range, float connect, float fuse, int min_size,
                                const std::string& colour, const std::string& backend, bool volume, bool channels, float axial, float time,
                                const std::vector<float>& ranges, float smooth) {
  const auto p = segment_params(spatial, range, connect, fuse, min_size, colour, backend, ranges, axial, time, smooth);
  if (smooth > 0 && volume) throw py::value_error("mean_shift_segment: smooth applies to images, not volumes");
  if (is_device_array(img)) {
    require_cuda_for_device_arrays(backend, "mean_shift_segment");
    VolumeShape shape;
    DeviceInput in = volume ? device_volume(img, channels, "mean_shift_segment", shape) : device_input(img, "mean_shift_segment");
    if (!volume) channels = in.keep_3d;
    if (in.kind == 'u' && in.item == 1) return segment_on_device<std::uint8_t>(img, in, p, shape, channels);
    if (in.kind == 'u' && in.item == 2) return segment_on_device<std::uint16_t>(img, in, p, shape, channels);
    if (in.kind == 'f' && in.item == 4) return segment_on_device<float>(img, in, p, shape, channels);
    throw py::type_error("mean_shift_segment: expected dtype uint8, uint16 or float32 on the device");
  }
  py::array a = host_array(img, "mean_shift_segment");
  std::vector<py::ssize_t> original(a.shape(), a.shape() + a.ndim());
  VolumeShape shape;
  if (volume) std::tie(a, shape) = stacked_volume(a, channels, "mean_shift_segment");
  else channels = a.ndim() == 3;
  if (py::isinstance<py::array_t<std::uint8_t>>(a)) return segment_typed<std::uint8_t>(a, p, shape, original, channels);
  if (py::isinstance<py::array_t<std::uint16_t>>(a)) return segment_typed<std::uint16_t>(a, p, shape, original, channels);
  if (py::isinstance<py::array_t<float>>(a)) return segment_typed<float>(a, p, shape, original, channels);
  throw py::type_error("mean_shift_segment: expected dtype uint8, uint16 or float32, got " + py::str(a.dtype()).cast<std::string>());
}

// The two halves of mean_shift_segment for gpuvis.dask.mean_shift_segment: the filter in chunks
// (each chunk's filtered pixels and modes, stacked along the last axis as float32, which holds u8
// and u16 samples exactly), then the linking on the whole image from the gathered stack.
py::array mean_shift_modes_py(py::array img, float spatial, float range, const std::string& colour, const std::string& backend,
                              const std::vector<float>& ranges) {
  const auto p = segment_params(spatial, range, 0.25f, 0.5f, 20, colour, backend, ranges);
  py::array a = host_array(img, "mean_shift_segment");
  auto run = [&](auto tag) -> py::array {
    using T = decltype(tag);
    HostView<T> in = view_of<T>(a, "mean_shift_segment");
    const int c = in.channels, lanes = filters::mean_shift_mode_lanes(c);
    Image<T> filtered(in.width, in.height, c);
    std::vector<float> modes;
    {
      py::gil_scoped_release release;
      filters::mean_shift_modes<T>(HostView<const T>(in), filtered.view(), modes, p.filter);
    }
    py::array_t<float> out({in.height, in.width, c + lanes});
    auto o = out.mutable_unchecked<3>();
    for (int y = 0; y < in.height; ++y)
      for (int x = 0; x < in.width; ++x) {
        for (int k = 0; k < c; ++k) o(y, x, k) = static_cast<float>(filtered(x, y, k));
        const float* m = &modes[(static_cast<std::size_t>(y) * in.width + x) * lanes];
        for (int k = 0; k < lanes; ++k) o(y, x, c + k) = m[k];
      }
    return out;
  };
  if (py::isinstance<py::array_t<std::uint8_t>>(a)) return run(std::uint8_t{});
  if (py::isinstance<py::array_t<std::uint16_t>>(a)) return run(std::uint16_t{});
  if (py::isinstance<py::array_t<float>>(a)) return run(float{});
  throw py::type_error("mean_shift_segment: expected dtype uint8, uint16 or float32, got " + py::str(a.dtype()).cast<std::string>());
}

py::tuple mean_shift_segment_from_modes_py(py::array stacked, int channels, const std::string& dtype, float spatial, float range,
                                           float connect, float fuse, int min_size, const std::string& colour,
                                           const std::vector<float>& ranges) {
  const auto p = segment_params(spatial, range, connect, fuse, min_size, colour, "cpu", ranges);
  auto st = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(stacked);
  const int lanes = filters::mean_shift_mode_lanes(channels);
  if (!st || st.ndim() != 3 || st.shape(2) != 2 * channels + lanes)
    throw py::value_error("mean_shift_segment: expected the stacked filtered pixels, modes and source pixels (H, W, " +
                          std::to_string(2 * channels + lanes) + ")");
  const int h = static_cast<int>(st.shape(0)), w = static_cast<int>(st.shape(1));
  auto s = st.unchecked<3>();
  std::vector<float> modes(static_cast<std::size_t>(h) * w * lanes);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < lanes; ++k) modes[(static_cast<std::size_t>(y) * w + x) * lanes + k] = s(y, x, channels + k);
  std::vector<py::ssize_t> original{h, w};
  if (channels > 1) original.push_back(channels);
  auto run = [&](auto tag) -> py::tuple {
    using T = decltype(tag);
    Image<T> filtered(w, h, channels), source(w, h, channels);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < channels; ++k) {
          filtered(x, y, k) = static_cast<T>(s(y, x, k));
          source(x, y, k) = static_cast<T>(s(y, x, channels + lanes + k));
        }
    filters::MeanShiftSegmentation<T> seg;
    {
      py::gil_scoped_release release;
      seg = filters::mean_shift_segment_from_modes<T>(std::move(filtered), modes, source.view(), p);
    }
    return segmentation_tuple(seg, VolumeShape{}, original, channels > 1, channels > 1);
  };
  if (dtype == "uint8") return run(std::uint8_t{});
  if (dtype == "uint16") return run(std::uint16_t{});
  if (dtype == "float32") return run(float{});
  throw py::type_error("mean_shift_segment: expected dtype uint8, uint16 or float32, got " + dtype);
}

// ---- Life ----

py::object life_py(const py::object& board_obj, std::int64_t generations, const std::string& rule, const std::string& border,
                   const std::string& backend) {
  if (generations < 0) throw py::value_error("life: generations must be >= 0");
  if (border != "torus" && border != "dead") throw py::value_error("life: border must be 'torus' or 'dead'");
  if (is_device_array(board_obj)) {
    require_cuda_for_device_arrays(backend, "life");
    const DeviceInput in = device_input(board_obj, "life");
    if (in.keep_3d || in.kind != 'u' || in.item != 1) throw py::value_error("life: expected a 2D uint8 board (H, W) of 0 and non-zero cells");
    life::Params o;
    o.rule = life::parse_rule(rule);
    o.topology = border == "dead" ? life::Topology::dead : life::Topology::torus;
    o.backend = Backend::cuda;
    auto out = DeviceArray::make(in.shape, typestr_of<std::uint8_t>());
    {
      py::gil_scoped_release release;
      life::advance_on_device(device_view<std::uint8_t>(in), device_view<std::uint8_t>(*out, in.width, in.height, 1), generations, o, in.stream);
    }
    return like_input(board_obj, std::move(out));
  }
  py::array board = host_array(board_obj, "life");
  HostView<std::uint8_t> in = view_of<std::uint8_t>(board, "life");
  if (in.channels != 1) throw py::value_error("life: expected a 2D board (H, W) of 0 and non-zero cells");
  life::Board b(in.width, in.height);
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) b.set(x, y, in(x, y) != 0);
  life::Params o;
  o.rule = life::parse_rule(rule);
  o.topology = border == "dead" ? life::Topology::dead : life::Topology::torus;
  o.backend = backend_of(backend);
  std::vector<std::uint8_t> states;  // 0 dead, 1 live, 2..C-1 dying (Generations rules)
  {
    py::gil_scoped_release release;
    auto sim = life::make_simulation(b, o);
    sim->advance(generations);
    sim->read_states(states);
  }
  py::array_t<std::uint8_t> out({in.height, in.width});
  std::copy(states.begin(), states.end(), out.mutable_data());
  return out;
}

// ---- detection and tracking ----

pipeline::DetectorParams detector_config(const std::string& trees, const std::string& method, std::optional<int> window,
                                         std::optional<int> gate, std::optional<int> sharpen, int finger_size, double finger_sensitivity,
                                         int finger_contrast, int blob_min, int blob_max, bool object_blobs,
                                         bool finger_blobs, int max_fid, bool yamaarashi, bool mirror,
                                         const std::string& backend, bool second_look) {
  pipeline::DetectorParams c;
  c.second_look.enabled = second_look;
  c.trees = trees;
  c.threshold.method = threshold::parse_method(method);
  if (window) c.threshold.bernsen.half_window = c.threshold.bradley_roth.size = *window;
  if (gate) c.threshold.bernsen.gate = c.threshold.tiled.gradient = *gate;
  if (sharpen) c.threshold.sharpen = *sharpen;
  c.fingers = {finger_size, finger_sensitivity, finger_contrast};
  c.blobs.min_size = blob_min;
  c.blobs.max_size = blob_max;
  c.blobs.object_blobs = object_blobs;
  c.blobs.finger_blobs = finger_blobs;
  c.max_fid = max_fid;
  c.yamaarashi = yamaarashi;
  c.mirror = mirror;
  c.backend = backend_of(backend);
  return c;
}

// Detections keep their own copy (the detector's result is valid only until its next frame).
py::object fiducials_array(const decode::Detections& d) {
  py::module_ np = py::module_::import("numpy");
  py::list fields;
  for (const char* f : {"x", "y", "angle"}) fields.append(py::make_tuple(f, "f8"));
  fields.insert(0, py::make_tuple("id", "i4"));
  fields.append(py::make_tuple("root_size", "i4"));
  py::object out = np.attr("zeros")(d.fiducials.size(), np.attr("dtype")(fields));
  for (std::size_t i = 0; i < d.fiducials.size(); ++i) {
    const auto& f = d.fiducials[i];
    out[py::int_(i)] = py::make_tuple(f.id, f.x, f.y, f.angle, f.root_size);
  }
  return out;
}

void bind_video(py::module_& m);

// Backends, files, kernels, threads.
void bind_utilities(py::module_& m) {
  m.def("cuda_available", [] { return cuda::device_count() > 0; }, "True when a CUDA device is usable");
  m.def(
      "opencl_devices",
      [] {
        py::list out;
        for (const auto& d : opencl::devices())
          out.append(py::dict(py::arg("index") = d.index, py::arg("platform") = d.platform, py::arg("name") = d.name,
                              py::arg("version") = d.version, py::arg("gpu") = d.gpu, py::arg("memory") = d.memory));
        return out;
      },
      "The OpenCL devices backend='opencl' can use (index, platform, name, version, gpu, memory in bytes); empty without "
      "OpenCL. GPUVIS_OPENCL_DEVICE picks one (docs/opencl.md)");
  m.def("resolve_backend", [](const std::string& b) { return std::string(to_string(resolve_backend(parse_backend(b)))); },
        py::arg("backend") = "auto", "The backend 'auto' (or the given one) runs on: 'cpu' or 'cuda'");
  m.def(
      "auto_choices",
      [] {
        py::list out;
        for (const auto& c : filters::auto_choices())
          out.append(py::dict(py::arg("call") = c.call, py::arg("gpu") = std::string(to_string(c.gpu)), py::arg("gpu_us") = c.gpu_us,
                              py::arg("cpu_us") = c.cpu_us, py::arg("chosen") = std::string(to_string(c.chosen)),
                              py::arg("calls") = c.calls));
        return out;
      },
      "What backend='auto' learnt in this process for convolve and bilateral on arrays in host memory: per kind of call "
      "(filter, settings, type, size), its faster timed GPU and CPU calls in microseconds (-1: not yet) and the backend it "
      "now runs on (the first call warms the GPU up, the next four run on the GPU and the CPU in turn, timed, the later ones "
      "on the faster; docs/filters.md)");
  m.def(
      "read_grey",
      [](const std::string& path) {
        Image<std::uint8_t> img = read_grey8(path);
        py::array_t<std::uint8_t> out({img.height(), img.width()});
        py::array out_any = out;
        copy<std::uint8_t>(img.view(), view_of<std::uint8_t>(out_any, "read_grey"));
        return out;
      },
      py::arg("path"), "An image file (PGM/PPM/PFM, PNG/JPEG when built with them) as 8-bit grey, as the CLI reads frames");
  m.def(
      "parse_kernel",
      [](const std::string& spec) {
        const filters::Kernel k = filters::parse_kernel(spec);
        py::array_t<float> out({k.height, k.width});
        std::copy(k.weights.begin(), k.weights.end(), out.mutable_data());
        return out;
      },
      py::arg("spec"), "A kernel string ('gaussian:sigma=2', 'box:5', '1,2,1;2,4,2;1,2,1/16') as a 2D float32 array");
  m.def("tuio_available", &output::tuio_available, "True when this build can send TUIO (liblo and Boost were found)");
  m.def("set_num_threads", &set_num_threads, py::arg("n"), "CPU worker threads (0 = one per core); results do not depend on it");
  m.def("num_threads", &num_threads, "The CPU worker threads in use");
  bind_video(m);
}

// Frames of a video file, one at a time (gpuvis.VideoFrames), and all at once (gpuvis.read_video).
class VideoFrames {
 public:
  VideoFrames(const std::string& path, long start) : source_(source::make_video_source(path, false, start)), next_index_(start) {}
  std::optional<py::array_t<std::uint8_t>> next() {
    {
      py::gil_scoped_release release;
      if (!source_ || !source_->next(frame_)) source_.reset();
    }
    if (!source_) return std::nullopt;
    ++next_index_;
    py::array_t<std::uint8_t> out({frame_.height(), frame_.width()});
    py::array out_any = out;
    copy<std::uint8_t>(frame_.view(), view_of<std::uint8_t>(out_any, "VideoFrames"));
    return out;
  }
  long next_index() const { return next_index_; }

 private:
  std::unique_ptr<source::FrameSource> source_;
  Image<std::uint8_t> frame_;
  long next_index_;
};

void bind_video(py::module_& m) {
  m.def("video_available", &source::video_available, "True when this build reads and writes video files (OpenCV's videoio)");
  m.def("video_frame_count", &source::video_frame_count, py::arg("path"), "The number of frames of a video file");
  py::class_<VideoFrames>(m, "VideoFrames", "The grey frames of a video file, one at a time: for frame in gpuvis.VideoFrames(path)")
      .def(py::init<const std::string&, long>(), py::arg("path"), py::arg("start") = 0,
           "path: any video file FFmpeg/OpenCV decodes; frames become grey with reacTIVision's weights, as gpuvis track "
           "--video reads them.\n"
           "start: the first frame to read, 0-based (default 0); exact in every format.")
      .def("__iter__", [](VideoFrames& v) -> VideoFrames& { return v; }, "The frames themselves")
      .def(
          "__next__",
          [](VideoFrames& v) {
            auto frame = v.next();
            if (!frame) throw py::stop_iteration();
            return *frame;
          },
          "The next frame as a (height, width) uint8 array")
      .def_property_readonly("next_index", &VideoFrames::next_index, "The index in the file of the frame __next__ returns");
  m.def(
      "read_video",
      [](const std::string& path, long start, std::optional<long> count) {
        if (count && *count < 0) throw py::value_error("read_video: count must be >= 0");
        VideoFrames frames(path, start);
        std::vector<py::array_t<std::uint8_t>> got;
        while (!count || static_cast<long>(got.size()) < *count) {
          auto frame = frames.next();
          if (!frame) break;
          if (!got.empty() && (frame->shape(0) != got[0].shape(0) || frame->shape(1) != got[0].shape(1)))
            throw py::value_error("read_video: the video's frames change size; read them with gpuvis.VideoFrames");
          got.push_back(std::move(*frame));
        }
        const py::ssize_t h = got.empty() ? 0 : got[0].shape(0), w = got.empty() ? 0 : got[0].shape(1);
        py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(got.size()), h, w});
        for (std::size_t i = 0; i < got.size(); ++i)
          std::memcpy(out.mutable_data(static_cast<py::ssize_t>(i)), got[i].data(), static_cast<std::size_t>(h * w));
        return out;
      },
      py::arg("path"), py::arg("start") = 0, py::arg("count") = py::none(),
      "Frames of a video file as one (frames, height, width) uint8 array of grey frames.\n\n"
      "path: any video file FFmpeg/OpenCV decodes.\n"
      "start: the first frame to read, 0-based (default 0); exact in every format.\n"
      "count: how many frames at most (default None: to the end).");
}

// The image filters and Life on NumPy arrays (and device arrays where noted).
void bind_filters(py::module_& m) {
  m.def("threshold", &threshold_py, py::arg("img"), py::arg("method") = "bernsen", py::arg("window") = py::none(),
        py::arg("gate") = py::none(), py::arg("tile") = py::none(), py::arg("bias") = py::none(), py::arg("contrast") = py::none(),
        py::arg("sharpen") = py::none(), py::arg("backend") = "auto",
        "Adaptive threshold of a grey uint8 image (H, W) into 0/255 (docs/thresholds.md).\n\n"
        "img: NumPy or device array (CuPy, PyTorch), uint8.\n"
        "method: 'bernsen' (full per-pixel Bernsen, the detector's), 'tiled' (reacTIVision's tiled Bernsen) or "
        "'bradley-roth'.\n"
        "window: pixels; Bernsen's half-width h, window (2h+1)^2 (default 16), Bradley-Roth's radius (default 16).\n"
        "gate: grey levels 0..255; Bernsen's contrast gate C (default 32), tiled's gradient (default 16).\n"
        "tile: pixels, >= 2 (tiled; default 16).\n"
        "bias: 0..1 (Bradley-Roth; default 0.16).\n"
        "contrast: grey levels, the least local mean (Bradley-Roth; default 32).\n"
        "sharpen: 0 (off) .. 4, sharpening before the threshold (default 0).\n"
        "backend: 'auto', 'cpu', 'cuda' or 'opencl'. Returns a uint8 array of the input's kind.");
  m.def("convolve", &convolve_py, py::arg("img"), py::arg("kernel"), py::arg("border") = "reflect101", py::arg("flip") = false,
        py::arg("backend") = "auto", py::arg("fixed_point") = true,
        "Correlate (flip=True: convolve) an image with a kernel (docs/filters.md).\n\n"
        "img: uint8/uint16/float32 (H, W) or (H, W, C), C in 1, 3, 4; NumPy or device array.\n"
        "kernel: a 2D float array (odd sides) or a string: 'gaussian:sigma=2', 'box:5', '1,2,1;2,4,2;1,2,1/16' "
        "(the separable ones, gaussian and box, run as a row and a column pass).\n"
        "border: 'reflect101' (default), 'reflect', 'replicate', 'wrap' or 'constant:V'.\n"
        "flip: True flips the kernel (true convolution; default False: correlation, as OpenCV's filter2D).\n"
        "backend: 'auto', 'cpu', 'cuda' or 'opencl'. Integer results are rounded and saturated.\n"
        "fixed_point: uint8 images under a symmetric smoothing kernel (gaussian, box; up to 33 taps a side) are\n"
        "summed in 16-bit fixed point, the same bytes on every backend and within 1 grey level of float\n"
        "sums (default True); False keeps float sums.");
  m.def("bilateral", &bilateral_py, py::arg("img"), py::arg("radius") = 3, py::arg("sigma_space") = 3.0f,
        py::arg("sigma_range") = 30.0f, py::arg("adaptive") = false, py::arg("per_channel") = false, py::arg("distance") = "l2",
        py::arg("border") = "reflect101", py::arg("backend") = "auto",
        "Bilateral filter (Tomasi & Manduchi; docs/filters.md).\n\n"
        "img: uint8/uint16/float32 (H, W) or (H, W, C), C in 1, 3, 4; NumPy or device array.\n"
        "radius: window radius in pixels, 1..64 (default 3).\n"
        "sigma_space: spatial sigma in pixels, > 0 (default 3).\n"
        "sigma_range: range sigma in sample units (grey levels for uint8), > 0 (default 30).\n"
        "adaptive: True takes each pixel's range sigma as twice its window's standard deviation.\n"
        "per_channel: True weighs each channel by its own distance (default: one colour distance).\n"
        "distance: colour distance 'l2' (default) or 'l1'.\n"
        "border: 'reflect101' (default), 'reflect', 'replicate', 'wrap' or 'constant:V'.\n"
        "backend: 'auto', 'cpu', 'cuda' or 'opencl'.");
  m.def("mean_shift", &mean_shift_py, py::arg("img"), py::arg("spatial") = 8.0f, py::arg("range") = 16.0f,
        py::arg("kernel") = "epanechnikov", py::arg("colour") = "luv", py::arg("eps") = 0.01f, py::arg("max_iter") = 100,
        py::arg("backend") = "auto", py::arg("ranges") = std::vector<float>{},
        "Mean shift filtering: every pixel climbs to the mode of its joint space-range neighbourhood and takes its "
        "value (docs/meanshift.md).\n\n"
        "img: uint8/uint16/float32 (H, W) or (H, W, C), C <= 4. A device array (CuPy, PyTorch, gpuvis.DeviceArray, "
        "or any array with __dlpack__ on a CUDA device) is filtered where it is, on its stream, and the result is the "
        "same kind of array on the device (a gpuvis.DeviceArray for DLPack-only inputs).\n"
        "spatial: spatial bandwidth h_s in pixels (default 8).\n"
        "range: range bandwidth h_r in sample units, or L*u*v* units for colour (default 16).\n"
        "kernel: 'epanechnikov' (the flat mean of the unit ball; default) or 'gaussian'.\n"
        "colour: 'luv' (colour images in CIE L*u*v*; default) or 'rgb' (the raw values).\n"
        "eps: convergence threshold in normalised units (default 0.01).\n"
        "max_iter: most steps per pixel (default 100).\n"
        "backend: 'auto', 'cpu', 'cuda' or 'opencl' (the same bytes on each).\n"
        "ranges: per-channel range bandwidths, replacing `range`.");
  m.def("mean_shift_volume", &mean_shift_volume_py, py::arg("volume"), py::arg("spatial") = 8.0f, py::arg("range") = 16.0f,
        py::arg("axial") = 0.0f, py::arg("time") = 0.0f, py::arg("channels") = false, py::arg("kernel") = "epanechnikov",
        py::arg("colour") = "luv", py::arg("eps") = 0.01f, py::arg("max_iter") = 100, py::arg("backend") = "auto",
        py::arg("ranges") = std::vector<float>{},
        "Mean shift filtering of a volume (Z, H, W) or a sequence of volumes (T, Z, H, W) (docs/meanshift.md).\n\n"
        "volume: uint8/uint16/float32; channels=True: a trailing channel axis (C <= 4). A C-contiguous device array "
        "is filtered on the device, as mean_shift's.\n"
        "spatial, range, kernel, colour, eps, max_iter, backend, ranges: as mean_shift.\n"
        "axial: bandwidth h_z across slices, in slices (0, the default: spatial).\n"
        "time: bandwidth h_t across frames, in frames (0, the default: spatial).");
  m.def("mean_shift_segment", &mean_shift_segment_py, py::arg("img"), py::arg("spatial") = 8.0f, py::arg("range") = 16.0f,
        py::arg("connect") = 0.25f, py::arg("fuse") = 0.5f, py::arg("min_size") = 20, py::arg("colour") = "luv",
        py::arg("backend") = "auto", py::arg("volume") = false, py::arg("channels") = false, py::arg("axial") = 0.0f,
        py::arg("time") = 0.0f, py::arg("ranges") = std::vector<float>{}, py::arg("smooth") = 0.0f,
        "Mean shift segmentation of an image, or with volume=True of a volume (Z, H, W) or sequence (T, Z, H, W) "
        "(docs/meanshift.md). Returns (labels int32, filtered, regions: list of {label, size, mean, centroid, bbox}).\n\n"
        "img: as mean_shift (channels=True with volume=True: a trailing channel axis). For a device array the filter "
        "runs on the device, the linking and merging on the host, and labels and filtered come back as device arrays.\n"
        "spatial, range, colour, backend, ranges, axial, time: as mean_shift and mean_shift_volume.\n"
        "connect: neighbours whose modes differ by less than connect x h_r join one region (default 0.25).\n"
        "fuse: adjacent regions whose mean modes differ by less than fuse x h_r are fused (default 0.5), and again after "
        "min_size's merging, each region coloured by the mean of its pixels' 5x5 local means of img.\n"
        "min_size: regions of fewer pixels merge into their most similar neighbour (default 20; 0: none).\n"
        "smooth: images only: sigma (pixels) of a Gaussian img is smoothed with first, on the CPU on every backend "
        "(default 0: none; 0.7 for noisy colour images, docs/meanshift.md); filtered and the regions' colours are "
        "then those of the smoothed image.");
  m.def("_mean_shift_modes", &mean_shift_modes_py, py::arg("img"), py::arg("spatial"), py::arg("range"), py::arg("colour"),
        py::arg("backend"), py::arg("ranges"),
        "gpuvis.dask.mean_shift_segment's chunk step: the filtered pixels and each pixel's mode, stacked as float32 "
        "(H, W, channels + mode lanes)");
  m.def("_mean_shift_segment_from_modes", &mean_shift_segment_from_modes_py, py::arg("stacked"), py::arg("channels"), py::arg("dtype"),
        py::arg("spatial"), py::arg("range"), py::arg("connect"), py::arg("fuse"), py::arg("min_size"), py::arg("colour"),
        py::arg("ranges"),
        "gpuvis.dask.mean_shift_segment's last step: mean_shift_segment's result from the gathered stack of _mean_shift_modes "
        "with the source pixels after the modes (H, W, 2 x channels + mode lanes)");
  m.def("life", &life_py, py::arg("board"), py::arg("generations"), py::arg("rule") = "B3/S23", py::arg("border") = "torus",
        py::arg("backend") = "auto",
        "Advance a Game of Life board by `generations` generations (docs/life.md).\n\n"
        "board: uint8 (H, W), non-zero = alive. A device array (CuPy, PyTorch, __dlpack__) runs on the device: packed, "
        "advanced and unpacked there, the states returned as the same kind of array.\n"
        "generations: >= 0.\n"
        "rule: 'B3/S23' (default), the S/B form '23/3', a Generations rule such as 'B2/S/C3' or '/2/3', or a name "
        "(conway, highlife, seeds, daynight, brianbrain, starwars).\n"
        "border: 'torus' (wrap around; default) or 'dead' (cells outside stay dead).\n"
        "backend: 'auto', 'cpu', 'cuda' or 'opencl' (the same boards on each).\n"
        "Returns each cell's state: 0 dead, 1 alive, 2..C-1 dying (Generations rules only).");
}

// Detector.detect: a host frame, or a device frame on a CUDA detector.
decode::Detections detect_py(pipeline::Detector& d, const py::object& frame_obj) {
  if (is_device_array(frame_obj)) {
    if (d.backend() != Backend::cuda)
      throw py::value_error("detect: a device frame needs a Detector(backend='cuda') (this one runs on the " +
                            std::string(to_string(d.backend())) + "; copy the frame to the host, e.g. cupy.asnumpy)");
    const DeviceInput in = device_input(frame_obj, "detect");
    if (in.channels != 1 || in.keep_3d || in.kind != 'u' || in.item != 1) throw py::value_error("detect: expected a grey (H, W) uint8 frame");
    py::gil_scoped_release release;
    return decode::Detections(d.detect(device_view<std::uint8_t>(in), in.stream));
  }
  py::array frame = host_array(frame_obj, "detect");
  HostView<std::uint8_t> v = view_of<std::uint8_t>(frame, "detect");
  if (v.channels != 1) throw py::value_error("detect: expected a grey (H, W) uint8 frame");
  py::gil_scoped_release release;
  return decode::Detections(d.detect(HostView<const std::uint8_t>(v)));
}

// The detector and what it finds.
void bind_detection(py::module_& m) {
  py::class_<decode::Fiducial>(m, "Fiducial", "A symbol found in one frame (Detections.fiducials)")
      .def_readonly("id", &decode::Fiducial::id, "The symbol's ID in its tree set, or -1 for a fuzzy candidate (a damaged symbol)")
      .def_readonly("x", &decode::Fiducial::x, "Centre, pixels from the frame's left edge (sub-pixel)")
      .def_readonly("y", &decode::Fiducial::y, "Centre, pixels from the frame's top edge (sub-pixel)")
      .def_readonly("angle", &decode::Fiducial::angle, "Orientation, radians in [0, 2π), clockwise with y down (reacTIVision's)")
      .def_readonly("root_size", &decode::Fiducial::root_size, "The larger side of the symbol's root region, pixels")
      .def_readonly("followed", &decode::Fiducial::followed,
                    "True when not decoded in this frame but found by its appearance where a tracker expected it "
                    "(Detector.expect); ID and root are those of its last decoding")
      .def_property_readonly("fuzzy", &decode::Fiducial::fuzzy, "True for a damaged symbol whose ID could not be read (id -1)")
      .def("__repr__", [](const decode::Fiducial& f) {
        return "Fiducial(id=" + std::to_string(f.id) + ", x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) +
               ", angle=" + std::to_string(f.angle) + ")";
      });
  py::class_<decode::Finger>(m, "Finger", "A finger tip found in one frame (Detector(finger_size=...))")
      .def_readonly("x", &decode::Finger::x, "Centre, pixels from the left edge")
      .def_readonly("y", &decode::Finger::y, "Centre, pixels from the top edge")
      .def_readonly("width", &decode::Finger::width, "Long side of its oriented box, pixels")
      .def_readonly("height", &decode::Finger::height, "Short side of its oriented box, pixels")
      .def_readonly("angle", &decode::Finger::angle, "Direction of the long side, radians in [0, π), clockwise with y down")
      .def_readonly("area", &decode::Finger::area, "Pixels");
  py::class_<decode::Blob>(m, "Blob", "A plain white blob found in one frame (Detector(blob_max=...))")
      .def_readonly("x", &decode::Blob::x, "Centre, pixels from the left edge")
      .def_readonly("y", &decode::Blob::y, "Centre, pixels from the top edge")
      .def_readonly("width", &decode::Blob::width, "Long side of its oriented box, pixels")
      .def_readonly("height", &decode::Blob::height, "Short side of its oriented box, pixels")
      .def_readonly("angle", &decode::Blob::angle, "Direction of the long side, radians in [0, π), clockwise with y down")
      .def_readonly("area", &decode::Blob::area, "Pixels");
  py::class_<decode::Detections>(m, "Detections", "What Detector.detect found in one frame; pass it to Tracker.update")
      .def_readonly("width", &decode::Detections::width, "The frame's width, pixels")
      .def_readonly("height", &decode::Detections::height, "The frame's height, pixels")
      .def_readonly("fiducials", &decode::Detections::fiducials, "Symbols (list of Fiducial): valid IDs first, then fuzzy candidates")
      .def_readonly("fingers", &decode::Detections::fingers, "Finger tips (list of Finger); empty unless finger_size > 0")
      .def_readonly("blobs", &decode::Detections::blobs, "Plain blobs (list of Blob); empty unless blob_max > 0")
      .def_readonly("second_looks", &decode::Detections::second_looks,
                    "The second looks taken in this frame (list of SecondLook), in order: candidates that did not "
                    "decode, looked at again with their motion blur taken out")
      .def("fiducials_array", &fiducials_array, "The fiducials as a structured array (id, x, y, angle, root_size)");

  py::class_<pipeline::Detector>(m, "Detector", "Finds fiducials, fingers and blobs in grey frames (gpuvis detect)")
      .def(py::init([](const std::string& trees, const std::string& method, std::optional<int> window, std::optional<int> gate,
                       std::optional<int> sharpen, int finger_size, double finger_sensitivity, int finger_contrast, int blob_min, int blob_max,
                       bool object_blobs, bool finger_blobs, int max_fid, bool yamaarashi, bool mirror,
                       const std::string& backend, bool second_look) {
             return pipeline::Detector(detector_config(trees, method, window, gate, sharpen, finger_size, finger_sensitivity,
                                                       finger_contrast, blob_min, blob_max, object_blobs, finger_blobs,
                                                       max_fid, yamaarashi, mirror, backend, second_look));
           }),
           py::arg("trees") = "default", py::arg("method") = "bernsen", py::arg("window") = py::none(),
           py::arg("gate") = py::none(), py::arg("sharpen") = py::none(), py::arg("finger_size") = 0, py::arg("finger_sensitivity") = 0.75,
           py::arg("finger_contrast") = 16, py::arg("blob_min") = 0, py::arg("blob_max") = 0, py::arg("object_blobs") = false,
           py::arg("finger_blobs") = false, py::arg("max_fid") = 0, py::arg("yamaarashi") = false, py::arg("mirror") = false,
           py::arg("backend") = "auto", py::arg("second_look") = true,
           "A detector of fiducials, fingers and blobs in grey frames, as `gpuvis detect` runs it (docs/decoding.md).\n\n"
           "trees: tree set, 'default', 'small', 'mini' or a .trees file.\n"
           "method, window, gate, sharpen: the threshold, as gpuvis.threshold (default: full Bernsen, window 16, gate 32).\n"
           "finger_size: average finger size in pixels (default 0: no finger detection).\n"
           "finger_sensitivity: finger test sensitivity 0..2, reacTIVision's percent / 100 (default 0.75).\n"
           "finger_contrast: least grey-level contrast inside a finger, 0..255 (default 16).\n"
           "blob_min, blob_max: plain white blobs of blob_min..blob_max pixels are reported when blob_max > 0 "
           "(default 0: none).\n"
           "object_blobs, finger_blobs: also report each symbol's root region / each finger as a blob "
           "(reacTIVision's obj_blob / cur_blob).\n"
           "max_fid: symbols with a higher ID are reported as fuzzy candidates (default 0: no limit).\n"
           "yamaarashi: also decode yamaarashi symbols; mirror: read their rings mirrored.\n"
           "backend: 'auto', 'cpu' or 'cuda' (the same detections on both).\n"
           "second_look: look again at candidates that did not decode, taking out motion blur (default True).")
      .def_property_readonly(
          "backend", [](const pipeline::Detector& d) { return std::string(to_string(d.backend())); },
          "The backend it runs on: 'cpu' or 'cuda' ('auto' resolved)")
      .def("expect", &pipeline::Detector::expect, py::arg("symbols"),
           "Where a tracker expects its symbols in the next frame (Tracker.expected_symbols()): the second look also "
           "deblurs there when a symbol did not decode")
      .def(
          "detect",
          &detect_py,
          py::arg("frame"),
          "Fiducials, fingers and blobs of a grey uint8 frame (H, W): a NumPy array, or on a CUDA detector a device "
          "array (CuPy, PyTorch, anything with __cuda_array_interface__ or __dlpack__), read on the array's stream without "
          "a trip through the host; the detections are the same either way");

  py::class_<decode::ExpectedSymbol>(m, "ExpectedSymbol", "Where a tracked symbol should be in the next frame (for Detector.expect)")
      .def(py::init([](int id, double x, double y, int root_size) { return decode::ExpectedSymbol{id, x, y, root_size}; }),
           py::arg("id"), py::arg("x"), py::arg("y"), py::arg("root_size"),
           "id: the symbol's ID.\n"
           "x, y: its predicted centre, pixels.\n"
           "root_size: the larger side of its root region, pixels (Fiducial.root_size).")
      .def_readwrite("id", &decode::ExpectedSymbol::id, "The symbol's ID")
      .def_readwrite("x", &decode::ExpectedSymbol::x, "Predicted centre, pixels from the left edge")
      .def_readwrite("y", &decode::ExpectedSymbol::y, "Predicted centre, pixels from the top edge")
      .def_readwrite("root_size", &decode::ExpectedSymbol::root_size, "The larger side of its root region, pixels");
  py::class_<decode::SecondLook>(m, "SecondLook", "One second look at a candidate that did not decode (gpuvis detect --debug)")
      .def_readonly("x", &decode::SecondLook::x, "The candidate's centre, pixels from the left edge")
      .def_readonly("y", &decode::SecondLook::y, "The candidate's centre, pixels from the top edge")
      .def_readonly("size", &decode::SecondLook::size, "The larger side of its root region, pixels")
      .def_readonly("angle", &decode::SecondLook::angle, "Estimated direction of the motion blur, radians")
      .def_readonly("length", &decode::SecondLook::length, "Estimated length of the motion blur, pixels")
      .def_readonly("anisotropy", &decode::SecondLook::anisotropy, "How directional the gradients were: 0 alike in every direction (no motion blur) .. 1 all across one direction")
      .def_readonly("id", &decode::SecondLook::id, "The symbol it found, or -1")
      .def_readonly("us", &decode::SecondLook::us, "How long the look took, microseconds")
      .def_property_readonly(
          "kind", [](const decode::SecondLook& l) { return std::string(l.kind); },
          "'fuzzy' or 'root' candidate, 'place' (where an expected symbol should be), 'verify' or 'appearance'")
      .def_property_readonly(
          "outcome", [](const decode::SecondLook& l) { return std::string(l.outcome); }, "What became of the look, in words");
}

// The tracker and its frames.
void bind_tracking(py::module_& m) {
  py::class_<track::Object>(m, "Object", "A tracked symbol (TUIO /tuio/2Dobj)")
      .def_readonly("session_id", &track::Object::session_id, "Unique while the symbol stays on the table; a new one when it comes back")
      .def_readonly("symbol_id", &track::Object::symbol_id, "The symbol's ID")
      .def_property_readonly(
          "x", [](const track::Object& o) { return o.m.x; }, "Centre, 0..1 of the frame's width (TUIO's normalised units)")
      .def_property_readonly(
          "y", [](const track::Object& o) { return o.m.y; }, "Centre, 0..1 of the frame's height (TUIO's normalised units)")
      .def_readonly("angle", &track::Object::angle, "Orientation, radians in [0, 2π)");
  py::class_<track::Cursor>(m, "Cursor", "A tracked finger (TUIO /tuio/2Dcur)")
      .def_readonly("session_id", &track::Cursor::session_id, "Unique while the finger stays down")
      .def_readonly("cursor_id", &track::Cursor::cursor_id, "A small number, reused after the finger is lifted")
      .def_readonly("visible", &track::Cursor::visible, "Reported (from its second frame on, as reacTIVision)")
      .def_property_readonly(
          "x", [](const track::Cursor& c) { return c.m.x; }, "Position, 0..1 of the frame's width")
      .def_property_readonly(
          "y", [](const track::Cursor& c) { return c.m.y; }, "Position, 0..1 of the frame's height");
  py::class_<track::TrackedBlob>(m, "TrackedBlob", "A tracked blob (TUIO /tuio/2Dblb)")
      .def_readonly("session_id", &track::TrackedBlob::session_id, "Unique while the blob stays; its owner's for object and finger blobs")
      .def_readonly("blob_id", &track::TrackedBlob::blob_id, "A small number, reused after the blob leaves")
      .def_readonly("visible", &track::TrackedBlob::visible, "Reported (from its second frame on)")
      .def_property_readonly(
          "x", [](const track::TrackedBlob& b) { return b.m.x; }, "Centre, 0..1 of the frame's width")
      .def_property_readonly(
          "y", [](const track::TrackedBlob& b) { return b.m.y; }, "Centre, 0..1 of the frame's height");
  py::class_<track::Frame>(m, "Frame", "The tracked state after one Tracker.update (what one TUIO bundle per profile says)")
      .def_readonly("fseq", &track::Frame::fseq, "Frame sequence number (TUIO fseq), counting from 1")
      .def_readonly("time", &track::Frame::time, "The time given to Tracker.update, seconds")
      .def_readonly("objects", &track::Frame::objects, "Symbols on the table (list of Object)")
      .def_readonly("cursors", &track::Frame::cursors, "Fingers (list of Cursor)")
      .def_readonly("blobs", &track::Frame::blobs, "Blobs (list of TrackedBlob)");
  py::class_<track::Tracker>(m, "Tracker", "Follows detections from frame to frame: session IDs, motion, TUIO's state (gpuvis track)")
      .def(py::init([](bool smooth_objects, bool smooth_cursors, bool smooth_blobs) {
             track::TrackerParams p;
             p.smooth_objects = smooth_objects;
             p.smooth_cursors = smooth_cursors;
             p.smooth_blobs = smooth_blobs;
             return track::Tracker(p);
           }),
           py::arg("smooth_objects") = false, py::arg("smooth_cursors") = false, py::arg("smooth_blobs") = false,
           "smooth_objects, smooth_cursors, smooth_blobs: 1€ smoothing of symbols, fingers and blobs with reacTIVision's "
           "parameters (its <filter> settings; default False: raw positions).")
      .def(
          "update", [](track::Tracker& t, const decode::Detections& d, double time) { return track::Frame(t.update(d, time)); },
          py::arg("detections"), py::arg("time"), "Advance by one frame taken at `time` seconds; returns the tracked state")
      .def(
          "expected_symbols",
          [](const track::Tracker& t) {
            std::vector<decode::ExpectedSymbol> out;
            t.expected_symbols(out);
            return out;
          },
          "Where each tracked symbol should be in the next frame (pixels), for Detector.expect");
}

// TUIO output.
void bind_tuio(py::module_& m) {
  py::class_<output::TuioSender>(m, "TuioSender", "Sends tracked frames as TUIO 1.1 (OSC) to one or more receivers")
      .def(py::init([](const std::vector<std::string>& targets, const std::string& source) {
             std::vector<output::TuioTarget> t;
             for (const auto& s : targets) t.push_back(output::parse_tuio_target(s));
             output::TuioParams o;
             o.source = source;
             return output::make_tuio_sender(t, o);
           }),
           py::arg("targets") = std::vector<std::string>{"udp:127.0.0.1:3333"}, py::arg("source") = "gpuvis",
           "targets: where to send, each 'udp:HOST:PORT', 'tcp:HOST:PORT', 'tcp:server:PORT' or 'web:PORT' (as gpuvis track --tuio; "
           "default udp:127.0.0.1:3333, TUIO's port).\n"
           "source: the name sent in each bundle's source message (default 'gpuvis').")
      .def("send", &output::TuioSender::send, py::arg("frame"), "Send one frame's TUIO 1.1 bundles")
      .def("send_empty", &output::TuioSender::send_empty, py::arg("fseq") = -1, "Empty alive lists (at shutdown)")
      .def_property_readonly("packets_sent", &output::TuioSender::packets_sent, "Bundles sent so far");
}

// The library's messages name command-line flags ("use --backend cpu", "--spatial must ..."); in
// Python the same advice names the keyword argument: backend="cpu", spatial, max_iter. A scan by
// hand, not std::regex: on the GPU machine's Python (a venv beside PyTorch) the first std::regex
// built in this module crashed inside libstdc++'s regex compiler, so every error became a crash.
std::string python_wording(const std::string& message) {
  auto lower = [&](std::size_t k) { return k < message.size() && message[k] >= 'a' && message[k] <= 'z'; };
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    if (message.compare(i, 2, "--") != 0 || !lower(i + 2)) {
      out += message[i++];
      continue;
    }
    // A flag: --word(-word)*, its dashes made underscores.
    std::size_t j = i + 2;
    std::string name;
    while (lower(j) || (message[j] == '-' && lower(j + 1))) name += message[j] == '-' ? '_' : message[j], ++j;
    i = j;
    if (name == "backend")
      for (const char* b : {"auto", "cpu", "cuda", "opencl"})
        if (message.compare(j, std::strlen(b) + 1, std::string(" ") + b) == 0) {
          name = std::string("backend=\"") + b + '"';
          i = j + std::strlen(b) + 1;
          break;
        }
    out += name;
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_gpuvis, m) {
  m.doc() = "gpuvis: reacTIVision-compatible fiducial tracking and fast image filters on CUDA and CPU";
  m.attr("__version__") = version();
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      const std::string message = python_wording(e.what());
      if (e.code() == ErrorCode::invalid_argument) PyErr_SetString(PyExc_ValueError, message.c_str());
      else error(message.c_str());
    }
  });
  bind_utilities(m);
  bind_filters(m);
  bind_device_arrays(m);
  bind_detection(m);
  bind_tracking(m);
  bind_tuio(m);
}
