"""gpuvis: reacTIVision-compatible fiducial tracking and fast image filters, on CUDA and the CPU.

Every image operation takes NumPy arrays and returns new ones; ``backend`` is ``"auto"`` (CUDA when
a device is usable, else the CPU), ``"cpu"`` or ``"cuda"``, and both backends give the same results;
``"opencl"`` runs the thresholds, convolution, the bilateral filter, mean shift (filter and segmentation) and Life on an OpenCL device (docs/opencl.md), other operations refuse it.

    import gpuvis, numpy as np
    binary = gpuvis.threshold(grey)                        # full Bernsen, h = 12, gate 32
    smooth = gpuvis.convolve(img, "gaussian:sigma=2")
    det = gpuvis.Detector(backend="cpu")
    for f in det.detect(grey).fiducials: print(f.id, f.x, f.y, f.angle)

A tracker tells the detector where its symbols should be in the next frame, so that symbols smeared
by motion are looked for there too: ``det.expect(tracker.expected_symbols())`` before each
``det.detect``.

Arrays on the GPU (anything with ``__cuda_array_interface__``: CuPy arrays, PyTorch CUDA tensors)
are filtered where they are by ``threshold``, ``convolve``, ``bilateral`` and ``mean_shift``, and the
result comes back as the same kind of array, still on the device.

Video files: ``gpuvis.VideoFrames(path, start)`` yields grey frames one at a time, ``read_video``
reads a range into one array.

``gpuvis.dask`` runs the filters over dask arrays in chunks, and detection over many frame files or
the frames of a video (docs/cluster.md).
"""
try:
    import numpy  # noqa: F401  (every array the module takes or returns is NumPy's)
except ImportError as _missing:
    import sys as _sys

    from ._built_for import PYTHON as _PYTHON

    raise ImportError(
        f"gpuvis needs NumPy, which {_sys.executable} cannot import; this gpuvis was built for {_PYTHON}: "
        f"run that interpreter (e.g. PYTHONPATH=build/python {_PYTHON}), or install numpy for this one"
    ) from _missing

from ._gpuvis import (  # noqa: F401
    Blob,
    Cursor,
    Detections,
    DeviceArray,
    Detector,
    Error,
    ExpectedSymbol,
    Fiducial,
    Finger,
    Frame,
    Object,
    SecondLook,
    TrackedBlob,
    Tracker,
    TuioSender,
    VideoFrames,
    __version__,
    auto_choices,
    bilateral,
    convolve,
    cuda_available,
    life,
    mean_shift,
    mean_shift_volume,
    mean_shift_segment,
    num_threads,
    opencl_devices,
    parse_kernel,
    read_grey,
    read_video,
    resolve_backend,
    set_num_threads,
    threshold,
    to_device,
    tuio_available,
    video_available,
    video_frame_count,
)
