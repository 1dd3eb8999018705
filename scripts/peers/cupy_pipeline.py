#!/usr/bin/env python3
"""Peer pipeline: what a Python user would write on the GPU machine's stack for the tracker's
first stages: full Bernsen (h = 12, gate 32) with cupyx.scipy.ndimage maximum_filter /
minimum_filter, then cupyx.scipy.ndimage.label on each colour (4-connectivity). It has no region
tree and no decoding, so it does less than gpuvis's pipeline. Frames are the PGMs that
`bench_pipeline --save-frames DIR` wrote. Writes JSON lines in bench/harness.hpp's format.

  python3 scripts/peers/cupy_pipeline.py --frames DIR --out peer_cupy_pipeline.jsonl [--quick]

"end to end": wall clock from a pinned host frame through upload, threshold, both labellings and
the region counts back on the host. "kernels": CUDA events around threshold + labels, frame
already on the device.
"""
import argparse
import json
import pathlib
import time

import numpy as np
import cupy as cp
from cupyx.scipy import ndimage

from peer_common import read_pgm, stats, bernsen_white

CROSS = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]])  # 4-connectivity


def pipeline(dev):
    white = bernsen_white(dev, 12)
    _, n_white = ndimage.label(white, structure=CROSS)
    _, n_black = ndimage.label(~white, structure=CROSS)
    return n_white, n_black


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", required=True)
    ap.add_argument("--out", default="peer_cupy_pipeline.jsonl")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    runs = 20 if args.quick else 100
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    out = open(args.out, "w")
    for path in sorted(pathlib.Path(args.frames).glob("frame_*.pgm")):
        host = read_pgm(path)
        h, w = host.shape
        pinned_mem = cp.cuda.alloc_pinned_memory(host.nbytes)
        pinned = np.frombuffer(pinned_mem, np.uint8, host.size).reshape(host.shape)
        pinned[...] = host
        dev = cp.asarray(host)
        for _ in range(3):
            pipeline(dev)
        cp.cuda.Device().synchronize()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        ks = []
        for _ in range(runs):
            start.record()
            n_white, n_black = pipeline(dev)
            end.record()
            end.synchronize()
            ks.append(cp.cuda.get_elapsed_time(start, end) * 1000.0)
        es = []
        for i in range(runs + 3):
            t0 = time.perf_counter()
            d = cp.asarray(pinned)
            n_white, n_black = pipeline(d)
            regions = int(n_white) + int(n_black)  # back on the host
            if i >= 3:
                es.append((time.perf_counter() - t0) * 1e6)
        base = {"suite": "pipeline", "name": "bernsen + label x2", "backend": "cupy", "width": w, "height": h,
                "params": {"frame": path.stem, "regions": str(regions)}, "cpu": "", "gpu": gpu}
        out.write(json.dumps(dict(base, scope="kernels (frame on the device)", **stats(ks))) + "\n")
        out.write(json.dumps(dict(base, scope="host frame -> region counts on the host", **stats(es))) + "\n")
        print(f"cupy pipeline {path.name}: kernels {stats(ks)['median_us']:.1f} us, end to end "
              f"{stats(es)['median_us']:.1f} us, {regions} regions", flush=True)
    out.close()


if __name__ == "__main__":
    main()
