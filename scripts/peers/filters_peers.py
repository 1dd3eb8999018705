#!/usr/bin/env python3
"""Peer benchmarks for the filters, on the same sizes and kernels as bench_filters: CuPy
(cupyx.scipy.ndimage.convolve, correlate1d x2), PyTorch (conv2d), and OpenCV's CPU versions
(cv2.filter2D, sepFilter2D, bilateralFilter) with all cores, and the same OpenCV calls on its
OpenCL path (cv2.UMat, the transparent API) where it has an OpenCL GPU: end to end from a NumPy
array to one, and on UMats already on the device (cv2.ocl.finish() after each call). OpenCV picks
its device by OPENCV_OPENCL_DEVICE (":GPU:" unless set) through the ICD loader OPENCV_OPENCL_RUNTIME
names (on the GPU machine only the CUDA toolkit's, /usr/local/cuda/targets/x86_64-linux/lib/
libOpenCL.so.1, showed it NVIDIA's device). Writes JSON lines like bench/harness.hpp.

  python3 scripts/peers/filters_peers.py --out peer_filters.jsonl [--quick]
"""
import argparse
import json
import os
import time

import numpy as np

from peer_common import stats

os.environ.setdefault("OPENCV_OPENCL_DEVICE", ":GPU:")  # before cv2 is imported: OpenCV reads it once


def gpu_time(fn, runs, sync, event_factory, elapsed):
    for _ in range(3):
        fn()
    sync()
    out = []
    for _ in range(runs):
        a, b = event_factory(), event_factory()
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(elapsed(a, b) * 1000.0)
    return out


def cpu_time(fn, runs):
    fn()
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e6)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="peer_filters.jsonl")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    runs = 10 if args.quick else 50
    rng = np.random.default_rng(5)
    k7 = rng.uniform(-1, 1, (7, 7)).astype(np.float32)
    g = np.exp(-0.5 * (np.arange(13) - 6) ** 2 / 4.0)
    g = (g / g.sum()).astype(np.float32)
    out = open(args.out, "w")
    gpu_name = ""

    def emit(name, backend, scope, w, h, params, samples):
        rec = {"suite": "filters", "name": name, "backend": backend, "scope": scope, "width": w, "height": h,
               "params": params, **stats(samples), "cpu": "", "gpu": gpu_name if "cpu" not in backend else ""}
        out.write(json.dumps(rec) + "\n")
        print(f"{backend:14s} {name:10s} {w}x{h}: {rec['median_us']:.1f} us", flush=True)

    for w, h in [(1920, 1080), (3840, 2160)]:
        img = (rng.integers(0, 1000, (h, w)) * 1.0).astype(np.float32)
        rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        p7, pg, pb = {"kernel": "7x7", "type": "f32x1"}, {"kernel": "gaussian 13 taps", "type": "f32x1"}, {"radius": "3", "type": "u8x3"}
        try:
            import cupy as cp
            from cupyx.scipy import ndimage
            gpu_name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
            d = cp.asarray(img)
            dk, dg = cp.asarray(k7), cp.asarray(g)
            ev, el = cp.cuda.Event, cp.cuda.get_elapsed_time
            emit("conv2d", "cupy", "kernel", w, h, p7,
                 gpu_time(lambda: ndimage.correlate(d, dk, mode="mirror"), runs, cp.cuda.Device().synchronize, ev, el))
            emit("separable", "cupy", "kernel", w, h, pg,
                 gpu_time(lambda: ndimage.correlate1d(ndimage.correlate1d(d, dg, axis=1, mode="mirror"), dg, axis=0, mode="mirror"),
                          runs, cp.cuda.Device().synchronize, ev, el))
        except Exception as e:  # noqa: BLE001 - report and go on with the other peers
            print("cupy peer failed:", e)
        try:
            import torch
            import torch.nn.functional as F
            t = torch.from_numpy(img).cuda()[None, None]
            tk = torch.from_numpy(k7).cuda()[None, None]
            ev = lambda: torch.cuda.Event(enable_timing=True)
            emit("conv2d", "torch", "kernel", w, h, p7,
                 gpu_time(lambda: F.conv2d(F.pad(t, (3, 3, 3, 3), mode="reflect"), tk), runs, torch.cuda.synchronize, ev,
                          lambda a, b: a.elapsed_time(b)))
        except Exception as e:  # noqa: BLE001
            print("torch peer failed:", e)
        try:
            import cv2
            cv2.setNumThreads(os.cpu_count())
            # Every CPU case of bench_filters: 7x7 u8/f32 with 1 and 3 channels, the separable
            # Gaussian f32 grey and u8 RGB, the bilateral u8 grey and RGB.
            grey = rng.integers(0, 256, (h, w), dtype=np.uint8)
            img3 = (rng.integers(0, 1000, (h, w, 3)) * 1.0).astype(np.float32)
            for src, typ in ((img, "f32x1"), (grey, "u8x1"), (img3, "f32x3"), (rgb, "u8x3")):
                emit("conv2d", "opencv-cpu", "host", w, h, {"kernel": "7x7", "type": typ},
                     cpu_time(lambda: cv2.filter2D(src, -1, k7), runs))
            emit("separable", "opencv-cpu", "host", w, h, pg, cpu_time(lambda: cv2.sepFilter2D(img, -1, g, g), runs))
            emit("separable", "opencv-cpu", "host", w, h, {"kernel": "gaussian 13 taps", "type": "u8x3"},
                 cpu_time(lambda: cv2.sepFilter2D(rgb, -1, g, g), runs))
            # The same Gaussian (13 taps, sigma 2) through GaussianBlur, which OpenCV computes in
            # fixed point for 8-bit images: the peer of gpuvis's fixed-point sums.
            emit("separable", "opencv-cpu", "host", w, h, {"kernel": "gaussian 13 taps", "type": "u8x3", "call": "GaussianBlur"},
                 cpu_time(lambda: cv2.GaussianBlur(rgb, (13, 13), 2.0, borderType=cv2.BORDER_REFLECT_101), runs))
            emit("bilateral", "opencv-cpu", "host", w, h, {"radius": "3", "type": "u8x1"},
                 cpu_time(lambda: cv2.bilateralFilter(grey, 7, 30, 3), max(3, runs // 5)))
            emit("bilateral", "opencv-cpu", "host", w, h, pb, cpu_time(lambda: cv2.bilateralFilter(rgb, 7, 30, 3), max(3, runs // 5)))
        except Exception as e:  # noqa: BLE001
            print("opencv peer failed:", e)
        try:
            opencv_opencl_rows(emit, w, h, img, rgb, k7, g, runs)
        except Exception as e:  # noqa: BLE001
            print("opencv opencl peer failed:", e)
    out.close()


def opencv_opencl_rows(emit, w, h, img, rgb, k7, g, runs):
    """OpenCV's OpenCL (T-API) filters: "opencv-ocl" rows, end to end (NumPy in, NumPy out: upload,
    filter, download) and on the device (UMat in and out, waiting for the queue)."""
    import cv2
    if not cv2.ocl.haveOpenCL():
        print("opencv: no OpenCL, no opencv-ocl rows")
        return
    cv2.ocl.setUseOpenCL(True)
    device = cv2.ocl.Device.getDefault()
    if device.type() != cv2.ocl.Device_TYPE_GPU:
        print(f"opencv: OpenCL device {device.name()!r} is no GPU, no opencv-ocl rows (OPENCV_OPENCL_RUNTIME names the ICD loader "
              "OpenCV opens: try the one that lists your GPU)")
        return
    name = device.name()
    cases = [("conv2d", {"kernel": "7x7", "type": "f32x1"}, img, lambda u: cv2.filter2D(u, -1, k7)),
             ("conv2d", {"kernel": "7x7", "type": "u8x3"}, rgb, lambda u: cv2.filter2D(u, -1, k7)),
             ("separable", {"kernel": "gaussian 13 taps", "type": "f32x1"}, img, lambda u: cv2.sepFilter2D(u, -1, g, g)),
             ("bilateral", {"radius": "3", "type": "u8x3"}, rgb, lambda u: cv2.bilateralFilter(u, 7, 30, 3))]
    for case, params, src, fn in cases:
        params = {**params, "device": name}
        # The same call on the CPU path gives the reference the OpenCL result is compared with.
        cv2.ocl.setUseOpenCL(False)
        reference = fn(src)
        cv2.ocl.setUseOpenCL(True)
        result = fn(cv2.UMat(src)).get()
        diff = float(np.max(np.abs(result.astype(np.float64) - reference.astype(np.float64))))
        params["max |ocl - cpu|"] = f"{diff:.3g}"

        def end_to_end(src=src, fn=fn):
            fn(cv2.UMat(src)).get()
        on_device = cv2.UMat(src)

        def device_only(u=on_device, fn=fn):
            fn(u)
            cv2.ocl.finish()
        emit(case, "opencv-ocl", "end-to-end (host to host, incl. transfers)", w, h, params, cpu_time(end_to_end, runs))
        emit(case, "opencv-ocl", "device (UMat in and out, queue finished)", w, h, params, cpu_time(device_only, runs))


if __name__ == "__main__":
    main()
