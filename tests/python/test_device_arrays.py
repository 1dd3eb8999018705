"""Arrays on the GPU (__cuda_array_interface__: CuPy, PyTorch, gpuvis.DeviceArray) filtered where they
are: the result is the same kind of array, still on the device, and equal to the host path's.
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
