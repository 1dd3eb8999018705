#!/usr/bin/env python3
"""Peer benchmark: full Bernsen with CuPy (cupyx.scipy.ndimage maximum_filter/minimum_filter),
the way a Python user would write it, on the same frames as bench_threshold (the bundled sample,
mirror-tiled). Writes JSON lines in bench/harness.hpp's format.

  python3 scripts/peers/cupy_threshold.py --out peer_cupy.jsonl [--quick]

Kernel times use CUDA events around the filters + threshold (inputs already on the GPU);
end-to-end times are wall clock from a pinned host array through upload, kernels and download.
"""
import argparse
import json
import pathlib
import time

import numpy as np
import cupy as cp

from peer_common import bernsen_white, frame, read_pgm, stats

ROOT = pathlib.Path(__file__).resolve().parents[2]


def bernsen(img, h, gate=32):
    return cp.where(bernsen_white(img, h, gate), 255, 0).astype(cp.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="peer_cupy.jsonl")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sample = read_pgm(ROOT / "data/samples/table.pgm")
    sizes = [(640, 480), (1920, 1080)] if args.quick else [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]
    runs = 20 if args.quick else 100
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    out = open(args.out, "w")
    for w, h in sizes:
        host = frame(w, h, sample)
        pinned_mem = cp.cuda.alloc_pinned_memory(host.nbytes)
        pinned = np.frombuffer(pinned_mem, np.uint8, host.size).reshape(host.shape)
        pinned[...] = host
        result_mem = cp.cuda.alloc_pinned_memory(host.nbytes)
        result = np.frombuffer(result_mem, np.uint8, host.size).reshape(host.shape)
        dev = cp.asarray(host)
        for hw in (6, 12, 32):
            for _ in range(3):
                bernsen(dev, hw)
            cp.cuda.Device().synchronize()
            start, end = cp.cuda.Event(), cp.cuda.Event()
            ks = []
            for _ in range(runs):
                start.record()
                bernsen(dev, hw)
                end.record()
                end.synchronize()
                ks.append(cp.cuda.get_elapsed_time(start, end) * 1000.0)
            rec = {"suite": "threshold", "name": "bernsen", "backend": "cupy", "scope": "kernel", "width": w, "height": h,
                   "params": {"h": str(hw)}, **stats(ks), "cpu": "", "gpu": gpu}
            out.write(json.dumps(rec) + "\n")
            es = []
            for i in range(runs + 3):
                t0 = time.perf_counter()
                d = cp.asarray(pinned)
                r = bernsen(d, hw)
                r.get(out=result)
                cp.cuda.Stream.null.synchronize()
                if i >= 3:
                    es.append((time.perf_counter() - t0) * 1e6)
            rec = dict(rec, scope="end-to-end (upload+kernel+download)", **stats(es))
            out.write(json.dumps(rec) + "\n")
            print(f"cupy bernsen h={hw} {w}x{h}: kernel {stats(ks)['median_us']:.1f} us, end-to-end {stats(es)['median_us']:.1f} us", flush=True)
    out.close()


if __name__ == "__main__":
    main()
