#!/usr/bin/env python3
"""Where a device-array call's time goes beyond the filter's kernel, on the GPU machine: the same
call on a 64x64 image (the module's fixed cost per call: argument parsing, the stream handover,
the result's allocation and the wait), and the CUDA runtime's own cudaMalloc + cudaFree of a 4K
result (which each call of the device path makes for its result), beside the 4K call itself.
Median of --runs calls after 3 warm-ups, the device synchronised after each; prints one JSON row each.

    PYTHONPATH=build-gpu/python python3 scripts/python_overhead.py [--runs 200]
"""
import argparse
import json

import numpy as np

import gpuvis
from device_path_bench import median_us  # the same timing as the device-path table's


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    import cupy as cp
    sync = cp.cuda.Device().synchronize
    rng = np.random.default_rng(1)
    k7 = rng.random((7, 7), dtype=np.float32)
    k7 /= k7.sum()

    def row(case, size, us):
        print(json.dumps({"suite": "python_overhead", "name": case, "size": size, "median_us": round(us, 2), "runs": a.runs}), flush=True)

    for h, w in ((64, 64), (2160, 3840)):
        grey = cp.asarray(rng.random((h, w), dtype=np.float32) * 255)
        rgb = cp.asarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        u8 = cp.asarray(rng.integers(0, 256, (h, w), dtype=np.uint8))
        size = f"{w}x{h}"
        row("conv 7x7 f32 1ch, device path", size, median_us(lambda: gpuvis.convolve(grey, k7, border="reflect101"), sync, a.runs))
        row("gaussian sigma=2 f32 1ch, device path", size, median_us(lambda: gpuvis.convolve(grey, "gaussian:sigma=2"), sync, a.runs))
        row("bilateral r=3 u8 RGB, device path", size, median_us(lambda: gpuvis.bilateral(rgb, radius=3), sync, a.runs))
        row("threshold bernsen u8, device path", size, median_us(lambda: gpuvis.threshold(u8), sync, a.runs))
    for name, nbytes in (("cudaMalloc + cudaFree, 4K f32", 3840 * 2160 * 4), ("cudaMalloc + cudaFree, 4K RGB u8", 3840 * 2160 * 3)):
        def alloc_free():
            p = cp.cuda.runtime.malloc(nbytes)
            cp.cuda.runtime.free(p)
        row(name, "3840x2160", median_us(alloc_free, sync, a.runs))
    row("an empty call of the module (gpuvis.resolve_backend)", "-", median_us(lambda: gpuvis.resolve_backend(), sync, a.runs))


if __name__ == "__main__":
    main()
