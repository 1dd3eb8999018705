#!/usr/bin/env python3
"""Peer benchmark: full Bernsen built from OpenCV's dilate and erode (a square element of 2h+1;
OpenCV's default border leaves outside pixels out, as gpuvis's truncated window does) and
whole-image OpenCV operations for the decision, on all CPU threads, on the same frames as
bench_threshold (the bundled sample, mirror-tiled). The same construction as bench_threshold's
C++ OpenCV rows, for machines whose OpenCV is only the Python one. When the gpuvis module is
importable, each row also counts the pixels that differ from gpuvis's CPU Bernsen.

  python3 scripts/peers/opencv_threshold.py --out peer_opencv_threshold.jsonl [--quick]
"""
import argparse
import json
import os
import pathlib
import platform
import time

import cv2
import numpy as np

from peer_common import frame, read_pgm, stats

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


class OpenCvBernsen:
    halve = np.arange(256, dtype=np.uint8) // 2

    def __call__(self, src, h, gate=32):
        element = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * h + 1, 2 * h + 1))
        mx = cv2.dilate(src, element)
        mn = cv2.erode(src, element)
        rng = cv2.subtract(mx, mn)
        t = cv2.add(mn, cv2.LUT(rng, self.halve))  # floor((max + min) / 2)
        out = cv2.compare(src, t, cv2.CMP_GT)
        low = cv2.compare(rng, gate, cv2.CMP_LT)
        low_white = cv2.compare(t, 127, cv2.CMP_GE)
        return cv2.copyTo(low_white, low, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="peer_opencv_threshold.jsonl")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(os.cpu_count())
    try:
        import gpuvis
    except ImportError:
        gpuvis = None
    sample = read_pgm(ROOT / "data/samples/table.pgm")
    sizes = [(640, 480), (1920, 1080)] if args.quick else [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]
    runs = 20 if args.quick else 100
    bernsen = OpenCvBernsen()
    cpu = f"{cpu_name()}, {os.cpu_count()} threads"
    with open(args.out, "w") as out:
        for w, h in sizes:
            img = frame(w, h, sample)
            for hw in (6, 12, 32):
                for _ in range(3):
                    bernsen(img, hw)
                times = []
                for _ in range(runs):
                    t0 = time.perf_counter()
                    bernsen(img, hw)
                    times.append((time.perf_counter() - t0) * 1e6)
                params = {"h": str(hw)}
                if gpuvis is not None:
                    ours = gpuvis.threshold(img, method="bernsen", window=hw, gate=32, backend="cpu")
                    params["pixels differing from gpuvis"] = str(int(np.count_nonzero(ours != bernsen(img, hw))))
                rec = {"suite": "threshold", "name": "bernsen", "backend": "opencv-cpu",
                       "scope": "host (dilate, erode and whole-image ops)", "width": w, "height": h,
                       "params": params, **stats(times), "cpu": cpu, "gpu": ""}
                out.write(json.dumps(rec) + "\n")
                print(f"opencv bernsen h={hw} {w}x{h}: {rec['median_us']:.1f} us {params}", flush=True)


if __name__ == "__main__":
    main()
