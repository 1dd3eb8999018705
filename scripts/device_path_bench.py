#!/usr/bin/env python3
"""What a Python user gets from gpuvis's filters with arrays on the host and arrays on the GPU.

For each case (3840x2160): gpuvis with a NumPy array (backend="cuda": upload, filter, download), gpuvis
with a CuPy array (the device path: nothing crosses the bus), and the peers on the same device array
(CuPy's cupyx.scipy.ndimage.correlate, PyTorch's conv2d, OpenCV-Python on the host arrays) where they
compute the same thing; then detection, Life and mean shift segmentation with NumPy and with CuPy inputs. Each time
is the median of --runs calls after 3 warm-up calls, measured around the call with the device
synchronised, so every figure is what the caller waits for.

  python3 scripts/device_path_bench.py [--runs 30] [--out docs/benchmarks/python.jsonl]
"""
import argparse
import json
import platform
import statistics
import subprocess
import time

import numpy as np

import gpuvis


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def read_pgm(path):
    data = open(path, "rb").read()
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][: w * h], np.uint8).reshape(h, w)


def median_us(call, sync, runs):
    for _ in range(3):
        call()
    sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        sync()
        times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--out")
    ap.add_argument("--frame", default="data/samples/table.pgm",
                    help="the grey PGM frame detection is timed on (bench_pipeline --save-frames DIR writes its 8-symbol "
                         "640x480 frame as DIR/frame_0_640x480.pgm, the C++ peer of these rows)")
    a = ap.parse_args()
    import cupy as cp
    import cupyx.scipy.ndimage as cndi
    try:
        import torch
    except ImportError:
        torch = None
    sync = cp.cuda.Device().synchronize
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    rng = np.random.default_rng(1)
    h, w = 2160, 3840
    grey = (rng.random((h, w), dtype=np.float32) * 255).astype(np.float32)
    rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    k7 = rng.random((7, 7), dtype=np.float32)
    k7 /= k7.sum()
    rows = []

    def add(case, backend, scope, us, **extra):
        row = {"suite": "python", "name": case, "width": w, "height": h, "backend": backend, "scope": scope,
               "median_us": us, "runs": a.runs, "gpu": gpu, "cpu": cpu_name(), "commit": commit, **extra}
        rows.append(row)
        print(json.dumps(row), flush=True)

    d_grey, d_rgb = cp.asarray(grey), cp.asarray(rgb)
    add("conv 7x7 f32 1ch", "cuda", "gpuvis, NumPy in and out (upload, filter, download)",
        median_us(lambda: gpuvis.convolve(grey, k7, border="reflect101", backend="cuda"), sync, a.runs))
    add("conv 7x7 f32 1ch", "cuda", "gpuvis, CuPy in and out (device path)",
        median_us(lambda: gpuvis.convolve(d_grey, k7, border="reflect101"), sync, a.runs))
    dk = cp.asarray(k7)
    add("conv 7x7 f32 1ch", "cupy", "cupyx.scipy.ndimage.correlate (mode='mirror'), on the device",
        median_us(lambda: cndi.correlate(d_grey, dk, mode="mirror"), sync, a.runs))
    if torch is not None and torch.cuda.is_available():
        tg = torch.as_tensor(d_grey, device="cuda")[None, None]
        tk = torch.as_tensor(dk, device="cuda")[None, None]
        add("conv 7x7 f32 1ch", "torch", "torch conv2d (reflect pad), on the device",
            median_us(lambda: torch.nn.functional.conv2d(torch.nn.functional.pad(tg, (3, 3, 3, 3), mode="reflect"), tk), sync,
                      a.runs))
    add("gaussian sigma=2 f32 1ch", "cuda", "gpuvis, NumPy in and out (upload, filter, download)",
        median_us(lambda: gpuvis.convolve(grey, "gaussian:sigma=2", backend="cuda"), sync, a.runs))
    add("gaussian sigma=2 f32 1ch", "cuda", "gpuvis, CuPy in and out (device path)",
        median_us(lambda: gpuvis.convolve(d_grey, "gaussian:sigma=2"), sync, a.runs))
    add("bilateral r=3 u8 RGB", "cuda", "gpuvis, NumPy in and out (upload, filter, download)",
        median_us(lambda: gpuvis.bilateral(rgb, radius=3, backend="cuda"), sync, a.runs))
    add("bilateral r=3 u8 RGB", "cuda", "gpuvis, CuPy in and out (device path)",
        median_us(lambda: gpuvis.bilateral(d_rgb, radius=3), sync, a.runs))
    u8 = rgb[..., 0].copy()
    d_u8 = cp.asarray(u8)
    add("threshold bernsen h=12 u8", "cuda", "gpuvis, NumPy in and out (upload, threshold, download)",
        median_us(lambda: gpuvis.threshold(u8, backend="cuda"), sync, a.runs))
    add("threshold bernsen h=12 u8", "cuda", "gpuvis, CuPy in and out (device path)",
        median_us(lambda: gpuvis.threshold(d_u8), sync, a.runs))
    # OpenCV-Python, the peer most Python users already have, on the host arrays.
    try:
        import cv2
    except ImportError:
        cv2 = None
    if cv2 is not None:
        add("conv 7x7 f32 1ch", "opencv", "cv2.filter2D (BORDER_REFLECT_101), NumPy in and out, host",
            median_us(lambda: cv2.filter2D(grey, -1, k7, borderType=cv2.BORDER_REFLECT_101), sync, a.runs))
        add("gaussian sigma=2 f32 1ch", "opencv", "cv2.GaussianBlur, NumPy in and out, host",
            median_us(lambda: cv2.GaussianBlur(grey, (0, 0), 2), sync, a.runs))
        add("bilateral r=3 u8 RGB", "opencv", "cv2.bilateralFilter d=7, NumPy in and out, host",
            median_us(lambda: cv2.bilateralFilter(rgb, 7, 25, 3), sync, a.runs))
    # Detection, Life and mean shift segmentation: NumPy in against device arrays in.
    table = read_pgm(a.frame)
    d_table = cp.asarray(table)
    det_host, det_dev = gpuvis.Detector(backend="cuda"), gpuvis.Detector(backend="cuda")
    add("detect " + a.frame.rsplit("/", 1)[-1], "cuda", "gpuvis Detector.detect, NumPy frame", median_us(lambda: det_host.detect(table), sync, a.runs),
        width_override=table.shape[1], height_override=table.shape[0])
    add("detect " + a.frame.rsplit("/", 1)[-1], "cuda", "gpuvis Detector.detect, CuPy frame (device path)",
        median_us(lambda: det_dev.detect(d_table), sync, a.runs), width_override=table.shape[1], height_override=table.shape[0])
    board = (rng.random((4096, 4096)) < 0.3).astype(np.uint8)
    d_board = cp.asarray(board)
    add("life 4096x4096 x100 Conway", "cuda", "gpuvis.life, NumPy in and out",
        median_us(lambda: gpuvis.life(board, 100, backend="cuda"), sync, a.runs), width_override=4096, height_override=4096)
    add("life 4096x4096 x100 Conway", "cuda", "gpuvis.life, CuPy in and out (device path)",
        median_us(lambda: gpuvis.life(d_board, 100), sync, a.runs), width_override=4096, height_override=4096)
    scene = rgb[:240, :320].copy()
    d_scene = cp.asarray(scene)
    add("mean shift segment 320x240 RGB", "cuda", "gpuvis.mean_shift_segment, NumPy in and out",
        median_us(lambda: gpuvis.mean_shift_segment(scene, backend="cuda"), sync, 5), width_override=320, height_override=240)
    add("mean shift segment 320x240 RGB", "cuda", "gpuvis.mean_shift_segment, CuPy in and out (device path)",
        median_us(lambda: gpuvis.mean_shift_segment(d_scene), sync, 5), width_override=320, height_override=240)
    for r in rows:  # rows of another size than the 4K default say so
        if "width_override" in r:
            r["width"], r["height"] = r.pop("width_override"), r.pop("height_override")
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
