"""gpuvis filters over dask arrays, in chunks: images larger than one machine's memory, or many
images, are processed across a cluster with results identical to one call on the whole array.

Each chunk gets a halo as wide as the filter reaches (``map_overlap``); the array's own edges get no
padding from dask (``boundary="none"``), so gpuvis applies its border rule there exactly as on the
whole image (for ``wrap`` dask supplies the opposite edge). Chunks must be at least as large as the
halo (mean shift merges smaller ones itself: its halo follows the bandwidth and the iteration cap).

    import dask.array as da, gpuvis.dask
    big = da.from_zarr(...)                      # (H, W) or (H, W, C), uint8/uint16/float32
    out = gpuvis.dask.convolve(big, "gaussian:sigma=3").compute()

Batch detection over many frame files: ``detect_files(paths, ...)`` returns one record per file;
over a video file: ``detect_video(path, ...)`` one record per frame. On a cluster with GPUs, start
each worker with one GPU (``CUDA_VISIBLE_DEVICES``) and the resource ``GPU=1`` (``dask worker
--resources GPU=1``, or dask-cuda's LocalCUDACluster) and compute with that resource, e.g.
``detect_files(paths, backend="cuda").compute(resources={"GPU": 1})``: every task then runs on a
worker that holds a GPU, one task per GPU at a time.
"""
import math

import dask.array as da
import dask.bag as db
import numpy as np

from . import _gpuvis


def _reach_of_kernel(kernel):
    """(rows, cols) a kernel reaches from its centre."""
    shape = (_gpuvis.parse_kernel(kernel) if isinstance(kernel, str) else np.asarray(kernel)).shape
    return shape[0] // 2, shape[1] // 2


def _depth(array, rows, cols):
    depth = {0: rows, 1: cols}
    if array.ndim == 3:
        depth[2] = 0
    return depth


def _boundary(border):
    """dask's padding of the array's own edges: none, so that gpuvis applies its border rule there as
    on the whole image, except for wrap, whose outside pixels come from the opposite edge, which a
    chunk does not hold: dask supplies them (periodic)."""
    return "periodic" if border == "wrap" else "none"


def _whole_channels(array):
    """Colour chunks must hold every channel of a pixel."""
    if array.ndim == 3 and len(array.chunks[2]) != 1:
        array = array.rechunk({2: -1})
    return array


# The chunk functions are plain Python functions of this module: a distributed scheduler pickles
# them by reference, which it cannot do with the extension's builtins.
def _convolve_chunk(block, **kwargs):
    return _gpuvis.convolve(block, **kwargs)


def _bilateral_chunk(block, **kwargs):
    return _gpuvis.bilateral(block, **kwargs)


def _mean_shift_chunk(block, **kwargs):
    return _gpuvis.mean_shift(block, **kwargs)


def convolve(array, kernel, border="reflect101", flip=False, backend="auto"):
    """gpuvis.convolve over a dask array (H, W) or (H, W, C), chunk by chunk with the kernel's halo."""
    array = _whole_channels(da.asarray(array))
    rows, cols = _reach_of_kernel(kernel)
    return array.map_overlap(_convolve_chunk, depth=_depth(array, rows, cols), boundary=_boundary(border),
                             dtype=array.dtype, kernel=kernel, border=border, flip=flip, backend=backend)


def bilateral(array, radius=3, sigma_space=3.0, sigma_range=30.0, border="reflect101", backend="auto", **kwargs):
    """gpuvis.bilateral over a dask array; the halo is the radius (twice it with adaptive=True, whose
    sigma comes from a window of the same radius around each neighbour)."""
    array = _whole_channels(da.asarray(array))
    reach = 2 * radius if kwargs.get("adaptive") else radius
    return array.map_overlap(_bilateral_chunk, depth=_depth(array, reach, reach), boundary=_boundary(border), dtype=array.dtype,
                             radius=radius, sigma_space=sigma_space, sigma_range=sigma_range, border=border,
                             backend=backend, **kwargs)


def _at_least(chunks, size, total):
    """Chunk sizes along one axis, merged so that every chunk holds at least `size` (or the whole
    axis): dask's overlap takes each halo from the neighbouring chunk alone."""
    if all(c >= size for c in chunks):
        return chunks
    out, run = [], 0
    for c in chunks:
        run += c
        if run >= size:
            out.append(run)
            run = 0
    if run:
        if out:
            out[-1] += run
        else:
            out.append(run)
    return tuple(out) if sum(out) == total else (total,)


def _with_climb_halo(array, spatial, max_iter, halo):
    """The array rechunked for mean shift's halo (spatial x max_iter unless `halo` is given) along its
    first two axes, and the depth per axis: along an axis no longer than the halo one chunk spans it
    (no overlap needed there); elsewhere chunks are merged until each holds the halo."""
    reach = int(math.ceil(spatial * max_iter)) if halo is None else int(halo)
    depth = [0 if reach >= array.shape[axis] else reach for axis in (0, 1)]
    chunks = {axis: (array.shape[axis],) if depth[axis] == 0 else _at_least(array.chunks[axis], reach, array.shape[axis])
              for axis in (0, 1)}
    return array.rechunk(chunks), depth


def mean_shift(array, spatial=8.0, range=16.0, halo=None, backend="auto", max_iter=100, **kwargs):
    """gpuvis.mean_shift over a dask array (H, W) or (H, W, C), equal to one call on the whole array.

    A step moves a climb by at most `spatial` pixels and reads pixels within `spatial` of where it
    starts, so after at most `max_iter` steps a climb has read nothing further than
    spatial x max_iter pixels from its own pixel: that is the default halo, and with it every chunk
    computes exactly what the whole-image call does. Chunks smaller than the halo are merged with
    their neighbours first, and an axis no longer than the halo becomes one chunk (the result's
    chunks are then larger). A smaller `halo` may be given to
    save work; pixels whose climb travels further than it are then not guaranteed equal."""
    array, depth = _with_climb_halo(_whole_channels(da.asarray(array)), spatial, max_iter, halo)
    return array.map_overlap(_mean_shift_chunk, depth=_depth(array, depth[0], depth[1]), boundary="none", dtype=array.dtype,
                             spatial=spatial, range=range, backend=backend, max_iter=max_iter, **kwargs)


def _record(d, **where):
    """One frame's detections as a plain record (what a bag holds and a distributed run pickles)."""
    return {**where, "width": d.width, "height": d.height,
            "fiducials": [(f.id, f.x, f.y, f.angle) for f in d.fiducials if f.id >= 0],
            "fingers": [(f.x, f.y) for f in d.fingers],
            "blobs": [(b.x, b.y, b.width, b.height) for b in d.blobs]}


def _modes_chunk(block, channels, sample_dtype, **kwargs):
    """A chunk of the padded stack: filters its first `channels` planes (the image, in its own
    dtype) and returns the filtered pixels, their modes and the image in the stack's layout."""
    image = block[..., :channels].astype(sample_dtype)
    if channels == 1:
        image = image[..., 0]
    filtered_and_modes = _gpuvis._mean_shift_modes(np.ascontiguousarray(image), **kwargs)
    return np.concatenate([filtered_and_modes, block[..., filtered_and_modes.shape[-1]:]], axis=-1)


def mean_shift_segment(array, spatial=8.0, range=16.0, connect=0.25, fuse=0.5, min_size=20, colour="luv", halo=None,
                       backend="auto", ranges=(), smooth=0.0):
    """gpuvis.mean_shift_segment of a dask array (H, W) or (H, W, C), equal to one call on the whole
    array: (labels int32, filtered, regions), computed.

    The filter, which is nearly all of the work, runs in chunks on the cluster with mean_shift's
    exact halo (spatial x 100, the segmentation's iteration cap; a smaller `halo` saves work and
    gives up exactness). Each chunk returns its filtered pixels and every pixel's mode; these are
    gathered and the linking (neighbours with close modes), fusing and merging of small regions
    run once over the whole image, so labels are numbered across chunk borders exactly as one call
    numbers them. The gathered stack takes (2 x channels + 1 or 4) float32 per pixel on the caller.
    `smooth` (a Gaussian's sigma in pixels, as in gpuvis.mean_shift_segment) smooths the array first,
    in chunks with the Gaussian's halo on the CPU backend: the same bytes as the one call's smoothing."""
    array = _whole_channels(da.asarray(array))
    dtype = np.dtype(array.dtype)
    if dtype not in (np.uint8, np.uint16, np.float32):
        raise TypeError(f"mean_shift_segment: expected dtype uint8, uint16 or float32, got {dtype}")
    if not 0 <= smooth <= 20:
        raise ValueError(f"mean_shift_segment: smooth must be in [0, 20] (a Gaussian's sigma in pixels), got {smooth}")
    if smooth > 0:
        # The library takes sigma as float32: the kernel is built from that value, written exactly.
        array = convolve(array, f"gaussian:sigma={float(np.float32(smooth))!r}", backend="cpu")
    channels = array.shape[2] if array.ndim == 3 else 1
    lanes = 4 if channels == 3 else channels
    planes = array.astype(np.float32)
    if array.ndim == 2:
        planes = planes[..., None]
    # The stack has the output's layout from the start (image planes, room for the modes, the image
    # again: the last fusion colours regions by the image's local means), so that the overlap and
    # its trimming act on one array of unchanging shape.
    planes = da.concatenate([planes, da.zeros(planes.shape[:2] + (lanes,), dtype=np.float32, chunks=planes.chunks[:2] + ((lanes,),)),
                             planes], axis=2).rechunk({2: -1})
    planes, depth = _with_climb_halo(planes, spatial, 100, halo)  # 100: the segmentation's step cap
    stacked = planes.map_overlap(_modes_chunk, depth={0: depth[0], 1: depth[1], 2: 0}, boundary="none", dtype=np.float32,
                                 channels=channels, sample_dtype=dtype, spatial=spatial, range=range, colour=colour,
                                 backend=backend, ranges=list(ranges))
    return _gpuvis._mean_shift_segment_from_modes(stacked.compute(), channels, dtype.name, spatial, range, connect, fuse,
                                                  min_size, colour, list(ranges))


def _detect_partition(paths, options):
    detector = _gpuvis.Detector(**options)
    return [_record(detector.detect(_gpuvis.read_grey(path)), file=path) for path in paths]


def _detect_video_ranges(ranges, path, options):
    detector = _gpuvis.Detector(**options)
    records = []
    for start, count in ranges:
        frames = _gpuvis.VideoFrames(path, start)  # seeks to its first frame; reads one frame at a time
        for index in range(start, start + count):
            frame = next(frames, None)
            if frame is None:
                break
            records.append(_record(detector.detect(frame), file=path, frame=index))
    return records


def detect_files(paths, partition_size=16, **options):
    """A dask bag with one record per frame file: {"file", "width", "height", "fiducials": [(id, x,
    y, angle)], "fingers": [(x, y)], "blobs": [(x, y, w, h)]}. Each partition builds one Detector
    (options as gpuvis.Detector) on its worker; call .compute() on a distributed Client to spread
    the files over its workers. Frames are independent here: no tracking across partitions."""
    paths = [str(p) for p in paths]
    return db.from_sequence(paths, partition_size=partition_size).map_partitions(_detect_partition, options)


def detect_video(path, frames_per_task=256, **options):
    """A dask bag with one record per frame of a video file: {"file", "frame" (0-based index), "width",
    "height", "fiducials": [(id, x, y, angle)], "fingers": [(x, y)], "blobs": [(x, y, w, h)]}, in frame
    order. The video is cut into ranges of `frames_per_task` frames; each task opens the file at its
    first frame (exact in every format) and runs one Detector (options as gpuvis.Detector) over its
    range, so a cluster's workers read different parts of one file at once. Frames are independent
    here: no tracking across tasks (gpuvis track --video tracks a video in order)."""
    if frames_per_task < 1:
        raise ValueError("detect_video: frames_per_task must be >= 1")
    path = str(path)
    total = _gpuvis.video_frame_count(path)
    ranges = [(start, min(frames_per_task, total - start)) for start in range(0, total, frames_per_task)]
    if not ranges:
        return db.from_sequence([], npartitions=1)
    return db.from_sequence(ranges, npartitions=len(ranges)).map_partitions(_detect_video_ranges, path, options)


def set_threads(n):
    """gpuvis's CPU threads in this process (for Client.run(set_threads, n) on every worker: with
    several worker processes on one machine, one thread each keeps them from competing)."""
    _gpuvis.set_num_threads(n)
