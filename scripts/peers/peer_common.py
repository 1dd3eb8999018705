"""Helpers shared by the peer benchmarks: PGM reading, the mirror-tiled frames, the timing summary in bench/harness.hpp's
format, and full Bernsen with CuPy written the way a Python user would."""
import numpy as np


def read_pgm(path):
    data = path.read_bytes()
    parts = data.split(maxsplit=4)
    assert parts[0] == b"P5"
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][: w * h], dtype=np.uint8).reshape(h, w)


def frame(w, h, sample):
    """The sample mirror-tiled to w x h, as bench_threshold builds its frames."""
    sh, sw = sample.shape
    ys = np.arange(h)
    xs = np.arange(w)
    ty = np.where((ys // sh) % 2 == 1, sh - 1 - ys % sh, ys % sh)
    tx = np.where((xs // sw) % 2 == 1, sw - 1 - xs % sw, xs % sw)
    return np.ascontiguousarray(sample[ty][:, tx])


def stats(samples):
    s = np.sort(np.asarray(samples))
    pick = lambda q: float(s[int(q * (len(s) - 1) + 0.5)])
    return {"median_us": pick(0.5), "p10_us": pick(0.1), "p90_us": pick(0.9), "min_us": float(s[0]), "runs": len(s)}


def bernsen_white(img, h, gate=32):
    """Boolean 'white' image of full Bernsen (window 2h+1, low-contrast rule at 127)."""
    import cupy as cp
    from cupyx.scipy import ndimage
    size = 2 * h + 1
    mx = ndimage.maximum_filter(img, size=size, mode="nearest").astype(cp.int16)
    mn = ndimage.minimum_filter(img, size=size, mode="nearest").astype(cp.int16)
    t = (mx + mn) >> 1
    low = (mx - mn) < gate
    return cp.where(low, t >= 127, img > t)
