"""Arrays on the GPU (__cuda_array_interface__: CuPy, PyTorch, gpuvis.DeviceArray; or DLPack alone) filtered,
segmented and detected where they are: the result is the same kind of array (a gpuvis.DeviceArray, which
offers both protocols, for DLPack-only inputs), still on the device, and equal to the host path's.
The CUDA cases run on a machine with a CUDA device (scripts/gpu-check.sh); the refusals run anywhere."""
import numpy as np
import pytest

import gpuvis

cuda = pytest.mark.skipif(not gpuvis.cuda_available(), reason="no CUDA device")


def frame(h=240, w=320, channels=None, dtype=np.uint8, seed=1):
    rng = np.random.default_rng(seed)
    shape = (h, w) if channels is None else (h, w, channels)
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32) * 255
    return rng.integers(0, np.iinfo(dtype).max, shape, dtype=dtype)


class HostPretendingToBeDevice:
    """A NumPy array's memory announced as device memory: must be refused, not read."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, False),
                                          "strides": None, "version": 3}


def test_host_memory_announced_as_device_memory_is_refused():
    with pytest.raises(ValueError, match="does not point at memory of the current CUDA device"):
        gpuvis.convolve(HostPretendingToBeDevice(frame()), "box:3")


def test_a_device_array_with_the_cpu_backend_is_refused():
    with pytest.raises(ValueError, match="needs backend='cuda'"):
        gpuvis.threshold(HostPretendingToBeDevice(frame()), backend="cpu")


@pytest.mark.skipif(gpuvis.cuda_available(), reason="a CUDA device is present")
def test_to_device_without_cuda_says_why():
    with pytest.raises(gpuvis.Error, match="CUDA"):
        gpuvis.to_device(frame())


@cuda
@pytest.mark.parametrize("dtype,channels", [(np.uint8, None), (np.uint16, 3), (np.float32, None), (np.float32, 4)])
def test_device_array_results_equal_the_host_path(dtype, channels):
    img = frame(dtype=dtype, channels=channels)
    d = gpuvis.to_device(img)
    out = gpuvis.convolve(d, "gaussian:sigma=1.5", backend="cuda")
    assert isinstance(out, gpuvis.DeviceArray) and out.shape == img.shape and out.dtype == img.dtype
    np.testing.assert_array_equal(out.get(), gpuvis.convolve(img, "gaussian:sigma=1.5", backend="cuda"))
    np.testing.assert_array_equal(gpuvis.bilateral(d, radius=2).get(), gpuvis.bilateral(img, radius=2, backend="cuda"))


@cuda
def test_cupy_in_cupy_out_on_the_device():
    cp = pytest.importorskip("cupy")
    img = frame()
    x = cp.asarray(img)
    binary = gpuvis.threshold(x)
    assert isinstance(binary, cp.ndarray) and binary.device == x.device
    np.testing.assert_array_equal(cp.asnumpy(binary), gpuvis.threshold(img, backend="cpu"))
    # A crop is read in place (row pitch larger than its width); a transposed view is refused.
    crop = x[10:200, 30:300]
    np.testing.assert_array_equal(cp.asnumpy(gpuvis.convolve(crop, "box:5")), gpuvis.convolve(img[10:200, 30:300], "box:5",
                                                                                              backend="cuda"))
    with pytest.raises(ValueError, match="contiguous"):
        gpuvis.convolve(x.T, "box:5")
    # Work queued on a non-default stream is finished before gpuvis reads it (the interface's stream).
    with cp.cuda.Stream(non_blocking=True):
        y = cp.asarray(frame(seed=7)) * 1  # produced on that stream
        out = gpuvis.convolve(y, "box:3")
    np.testing.assert_array_equal(cp.asnumpy(out), gpuvis.convolve(frame(seed=7), "box:3", backend="cuda"))


@cuda
def test_torch_in_torch_out_on_the_device():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    img = frame(channels=3)
    t = torch.from_numpy(img).cuda()
    out = gpuvis.bilateral(t, radius=3, sigma_range=20)
    assert isinstance(out, torch.Tensor) and out.is_cuda and out.dtype == torch.uint8
    np.testing.assert_array_equal(out.cpu().numpy(), gpuvis.bilateral(img, radius=3, sigma_range=20, backend="cpu"))


@cuda
def test_mean_shift_on_device_arrays_equals_the_host_path():
    """Mean shift of a CuPy array (grey and colour) and of a gpuvis.DeviceArray, on the device: the
    same kind of array back, equal to the host path (and so to the CPU)."""
    cp = pytest.importorskip("cupy")
    for channels in (None, 3):
        img = frame(h=60, w=80, channels=channels, seed=3)
        out = gpuvis.mean_shift(cp.asarray(img), spatial=4, range=12)
        assert isinstance(out, cp.ndarray) and out.shape == img.shape and out.dtype == img.dtype
        np.testing.assert_array_equal(cp.asnumpy(out), gpuvis.mean_shift(img, spatial=4, range=12, backend="cpu"))
    img = frame(h=50, w=70, dtype=np.float32, seed=4)
    out = gpuvis.mean_shift(gpuvis.to_device(img), spatial=3, range=20)
    assert isinstance(out, gpuvis.DeviceArray)
    np.testing.assert_array_equal(out.get(), gpuvis.mean_shift(img, spatial=3, range=20, backend="cpu"))
    with pytest.raises(ValueError, match="needs backend='cuda'"):
        gpuvis.mean_shift(cp.asarray(img), backend="cpu")


class DlpackOnly:
    """An array that offers DLPack alone (as JAX's do): __dlpack__ and __dlpack_device__, no
    __cuda_array_interface__."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_a_numpy_array_is_not_taken_for_a_device_array():
    """NumPy arrays have __dlpack__ too, on the CPU: they take the host path, and an object that offers
    only a CPU DLPack tensor is neither kind of array."""
    img = frame()
    assert img.__dlpack_device__()[0] == 1  # kDLCPU
    np.testing.assert_array_equal(gpuvis.convolve(img, "box:3", backend="auto"), gpuvis.convolve(img, "box:3", backend="cpu"))
    with pytest.raises(TypeError, match="expected dtype"):
        gpuvis.convolve(DlpackOnly(img), "box:3", backend="cpu")


@cuda
def test_dlpack_only_arrays_are_read_on_the_device_and_results_leave_by_dlpack():
    cp = pytest.importorskip("cupy")
    img = frame(channels=3, seed=5)
    out = gpuvis.bilateral(DlpackOnly(cp.asarray(img)), radius=2)
    assert isinstance(out, gpuvis.DeviceArray) and out.shape == img.shape
    assert out.__dlpack_device__()[0] == 2  # kDLCUDA
    expected = gpuvis.bilateral(img, radius=2, backend="cpu")
    np.testing.assert_array_equal(out.get(), expected)
    np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(out)), expected)  # no copy: the same memory
    assert cp.from_dlpack(out).data.ptr == out.__cuda_array_interface__["data"][0]
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        t = torch.from_dlpack(out)
        assert t.is_cuda and t.data_ptr() == out.__cuda_array_interface__["data"][0]
        np.testing.assert_array_equal(t.cpu().numpy(), expected)
        # A PyTorch tensor offered by DLPack alone, float32.
        f = frame(dtype=np.float32, seed=6)
        got = gpuvis.convolve(DlpackOnly(torch.from_numpy(f).cuda()), "gaussian:sigma=2")
        np.testing.assert_array_equal(got.get(), gpuvis.convolve(f, "gaussian:sigma=2", backend="cpu"))


@cuda
def test_mean_shift_volume_and_segmentation_of_device_arrays_equal_the_host_path():
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(8)
    vol = (rng.integers(0, 4, (4, 10, 12)) * 60 + rng.integers(0, 8, (4, 10, 12))).astype(np.uint8)
    for v in (vol, vol.reshape(2, 2, 10, 12)):
        out = gpuvis.mean_shift_volume(cp.asarray(v), spatial=3, range=20, axial=2, time=1)
        assert isinstance(out, cp.ndarray) and out.shape == v.shape
        np.testing.assert_array_equal(cp.asnumpy(out), gpuvis.mean_shift_volume(v, spatial=3, range=20, axial=2, time=1, backend="cpu"))
    for img in (frame(h=48, w=64, seed=9) // 64 * 64, frame(h=40, w=50, channels=3, seed=10) // 80 * 80):
        labels, filtered, regions = gpuvis.mean_shift_segment(cp.asarray(img), spatial=4, range=16)
        assert isinstance(labels, cp.ndarray) and labels.dtype == np.int32 and isinstance(filtered, cp.ndarray)
        h_labels, h_filtered, h_regions = gpuvis.mean_shift_segment(img, spatial=4, range=16, backend="cpu")
        np.testing.assert_array_equal(cp.asnumpy(labels), h_labels)
        np.testing.assert_array_equal(cp.asnumpy(filtered), h_filtered)
        assert regions == h_regions and len(regions) > 1
        labels, filtered, regions = gpuvis.mean_shift_segment(cp.asarray(img), spatial=4, range=16, smooth=0.7)
        h_labels, h_filtered, h_regions = gpuvis.mean_shift_segment(img, spatial=4, range=16, smooth=0.7, backend="cpu")
        np.testing.assert_array_equal(cp.asnumpy(labels), h_labels)
        np.testing.assert_array_equal(cp.asnumpy(filtered), h_filtered)
        assert regions == h_regions
    labels, _, regions = gpuvis.mean_shift_segment(cp.asarray(vol), spatial=3, range=20, volume=True, axial=2)
    h_labels, _, h_regions = gpuvis.mean_shift_segment(vol, spatial=3, range=20, volume=True, axial=2, backend="cpu")
    assert labels.shape == vol.shape
    np.testing.assert_array_equal(cp.asnumpy(labels), h_labels)
    assert regions == h_regions
    with pytest.raises(ValueError, match="C-contiguous"):
        gpuvis.mean_shift_volume(cp.asarray(vol)[:, :, ::2])


def smeared(img, length=7):
    """The frame smeared along x by a box of `length` pixels (motion blur: the second look works)."""
    return gpuvis.convolve(img, np.full((1, length), 1.0 / length, np.float32), backend="cpu")


@cuda
def test_detector_and_tracker_on_device_frames_equal_host_frames(table):
    """Detector.detect takes CuPy, PyTorch and DLPack frames on a CUDA detector: the same detections
    as the host frames, sharp and smeared (the second look downloads those), and a tracker fed from
    either keeps the same objects and sessions."""
    cp = pytest.importorskip("cupy")
    frames = [table, smeared(table, 5), np.roll(table, 3, axis=1), smeared(np.roll(table, 6, axis=1), 7)]
    host, dev = gpuvis.Detector(backend="cuda"), gpuvis.Detector(backend="cuda")
    th, td = gpuvis.Tracker(), gpuvis.Tracker()
    found = 0
    for i, f in enumerate(frames):
        dh = host.detect(f)
        dd = dev.detect(cp.asarray(f) if i % 2 == 0 else DlpackOnly(cp.asarray(f)))
        key = lambda d: [(x.id, x.x, x.y, x.angle) for x in d.fiducials]  # noqa: E731
        assert key(dd) == key(dh), i
        found += sum(x.id >= 0 for x in dh.fiducials)
        oh, od = th.update(dh, time=i / 60), td.update(dd, time=i / 60)
        assert [(o.session_id, o.symbol_id, o.x, o.y) for o in od.objects] == [(o.session_id, o.symbol_id, o.x, o.y) for o in oh.objects]
        host.expect(th.expected_symbols())
        dev.expect(td.expected_symbols())
    assert found >= 4 * 4
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        d = dev.detect(torch.from_numpy(table).cuda())
        assert [x.id for x in d.fiducials] == [x.id for x in host.detect(table).fiducials]
    with pytest.raises(ValueError, match="backend='cuda'"):
        gpuvis.Detector(backend="cpu").detect(cp.asarray(table))
    with pytest.raises(ValueError, match="grey"):
        dev.detect(cp.zeros((10, 10, 3), cp.uint8))


@cuda
def test_life_on_device_boards_equals_the_host_path():
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(12)
    for rule, border in (("B3/S23", "torus"), ("B36/S23", "dead"), ("B2/S/C3", "torus")):
        board = (rng.random((70, 101)) < 0.35).astype(np.uint8) * rng.integers(1, 256, (70, 101), dtype=np.uint8)
        out = gpuvis.life(cp.asarray(board), 17, rule=rule, border=border)
        assert isinstance(out, cp.ndarray) and out.dtype == np.uint8 and out.shape == board.shape
        np.testing.assert_array_equal(cp.asnumpy(out), gpuvis.life(board, 17, rule=rule, border=border, backend="cpu"))
    with pytest.raises(ValueError, match="needs backend='cuda'"):
        gpuvis.life(cp.asarray(board), 1, backend="cpu")
