#!/usr/bin/env python3
"""Throughput of gpuvis.dask on a local distributed cluster against the number of worker processes:
a chunked Gaussian filter of a large image, and batch detection over generated frame files, with
one call on the whole image (no dask) as the baseline. Prints JSON lines.

  PYTHONPATH=build/python python3 scripts/dask_scaling.py --gpuvis build/bin/gpuvis --workers 1,2 > cluster.jsonl
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time

import dask.array as da
import distributed
import numpy as np

import gpuvis
import gpuvis.dask as gd


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuvis", required=True, help="the gpuvis program (generates the frames)")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--frames", type=int, default=160)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--symbols-dir", help="printed symbols for gpuvis synth (PGM copies where there is no PNG reader)")
    args = ap.parse_args()
    cpu = f"{platform.processor() or platform.machine()} ({os.cpu_count()} threads)"
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip() if args.backend == "cuda" else ""
    rng = np.random.default_rng(1)
    image = (rng.random((args.size, args.size)) * 255).astype(np.float32)
    kernel = "gaussian:sigma=3"
    base = {"suite": "cluster", "cpu": cpu, "backend": args.backend, **({"gpu": gpu} if gpu else {})}
    rows = []
    whole = median_time(lambda: gpuvis.convolve(image, kernel, backend=args.backend), args.runs)
    rows.append({**base, "name": "convolve, one call", "workers": 0, "seconds": whole,
                 "mpixels_per_s": args.size ** 2 / whole / 1e6})
    folder = tempfile.mkdtemp(prefix="gpuvis_cluster_")
    symbols = ["--symbols-dir", args.symbols_dir] if args.symbols_dir else []
    subprocess.run([args.gpuvis, "synth", folder, "--count", str(args.frames), "--seed", "5", *symbols], check=True,
                   stdout=subprocess.DEVNULL)
    frames = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".pgm"))
    det = gpuvis.Detector(backend=args.backend)
    one = median_time(lambda: [det.detect(gpuvis.read_grey(p)) for p in frames], args.runs)
    rows.append({**base, "name": "detect files, one process", "workers": 0, "seconds": one, "frames_per_s": len(frames) / one})
    for n in [int(w) for w in args.workers.split(",")]:
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            # Each worker uses one CPU thread for gpuvis, so that n workers use n cores.
            client.run(gd.set_threads, 1)
            arr = da.from_array(image, chunks=args.chunk)
            arr = client.persist(arr)
            distributed.wait(arr)
            sigmas = iter([3.0 + 0.001 * i for i in range(args.runs + 1)])  # a new task graph every run

            def filt():
                gd.convolve(arr, f"gaussian:sigma={next(sigmas)}", backend=args.backend).compute()
            filt()  # warm-up: imports and first chunks on every worker
            t = median_time(filt, args.runs)
            rows.append({**base, "name": "convolve, chunked", "workers": n, "chunk": args.chunk, "seconds": t,
                         "mpixels_per_s": args.size ** 2 / t / 1e6})
            # Each run lists the frames from another start, so that no run reuses a result the cluster
            # may still hold from the previous one (dask names tasks by their inputs).
            turn = iter(range(1, 1 + args.runs + 1))

            def bag():
                k = next(turn)
                order = frames[k:] + frames[:k]
                gd.detect_files(order, partition_size=max(1, len(frames) // (4 * n)), backend=args.backend).compute()
            bag()
            t = median_time(bag, args.runs)
            rows.append({**base, "name": "detect files, cluster", "workers": n, "seconds": t, "frames_per_s": len(frames) / t})
    for r in rows:
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
