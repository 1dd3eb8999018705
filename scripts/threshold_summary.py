#!/usr/bin/env python3
"""Summary table of the full-Bernsen results (bench_threshold + the CuPy peer) for
docs/benchmarks/threshold.md: CPU, CUDA kernel, CUDA end to end, CuPy, and the ratios.

  python3 scripts/threshold_summary.py threshold.jsonl   # gpuvis and CuPy rows (gpu-check writes it)
"""
import json
import sys

rows = [json.loads(line) for path in sys.argv[1:] for line in open(path) if line.strip()]


def get(name, backend, scope, width, height, **params):
    for r in rows:
        if (r["name"], r["backend"], r["width"], r["height"]) == (name, backend, width, height) and r["scope"].startswith(scope) \
                and all(r["params"].get(k) == str(v) for k, v in params.items()):
            return r["median_us"]
    return None


def f(x):
    return "—" if x is None else f"{x:.1f}"


print("| size | h | CPU 1 thread | CPU all threads | CUDA kernel | CUDA kernel, graph | CUDA end to end | CUDA copies | CuPy kernel | CuPy end to end | kernel: CuPy/gpuvis | end to end: CuPy/gpuvis |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for w, h in [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]:
    for hw in (6, 12, 32):
        k = get("bernsen", "cuda", "kernel", w, h, h=hw)
        kg = get("bernsen", "cuda-graph", "kernel", w, h, h=hw)  # the GPU's own time (20 calls in one graph)
        # End to end: threshold_pinned with its automatic transfer choice (what the Thresholder runs);
        # copies: upload + kernels + download, the better of direct launches and a CUDA graph.
        e = [x for x in (get("bernsen", "cuda", "end", w, h, h=hw), get("bernsen", "cuda-graph", "end", w, h, h=hw)) if x]
        ck, ce = get("bernsen", "cupy", "kernel", w, h, h=hw), get("bernsen", "cupy", "end", w, h, h=hw)
        copies = min(e) if e else None
        best = get("bernsen", "cuda-pinned", "end", w, h, h=hw) or copies
        ratio = lambda a, b: f"{a / b:.1f}×" if a and b else "—"
        print(f"| {w}×{h} | {hw} | {f(get('bernsen', 'cpu-1thread', 'host', w, h, h=hw))} | {f(get('bernsen', 'cpu', 'host', w, h, h=hw))} | "
              f"{f(k)} | {f(kg)} | {f(best)} | {f(copies)} | {f(ck)} | {f(ce)} | {ratio(ck, k)} | {ratio(ce, best)} |")
print()
print("| method | size | CPU 1 thread | CPU all threads | CUDA kernel | CUDA end to end |")
print("|---|---|---:|---:|---:|---:|")
for m in ("tiled", "bradley-roth"):
    for w, h in [(640, 480), (1920, 1080), (3840, 2160)]:
        e = [x for x in (get(m, "cuda", "end", w, h), get(m, "cuda-graph", "end", w, h)) if x]
        print(f"| {m} | {w}×{h} | {f(get(m, 'cpu-1thread', 'host', w, h))} | {f(get(m, 'cpu', 'host', w, h))} | "
              f"{f(get(m, 'cuda', 'kernel', w, h))} | {f(min(e) if e else None)} |")
naive, fast = get("bernsen-naive", "cpu-1thread", "host", 640, 480, h=12), get("bernsen", "cpu-1thread", "host", 640, 480, h=12)
print(f"\nNaive O(h²) Bernsen at 640×480, h = 12, one thread: {naive / 1000:.1f} ms; gpuvis: {fast:.0f} µs "
      f"({naive / fast:.0f}× faster).")
