"""Game of Life peers: what a Python user would write on the GPU, one byte per cell and a 3x3
convolution for the neighbour counts, on a torus from a random soup of density 0.5.

  python3 scripts/peers/life_peers.py --out life_peers.jsonl [--sizes 4096,16384,65536]

CuPy: cupyx.scipy.ndimage.convolve(mode='wrap') on uint8. PyTorch: conv2d on float16 with
circular padding. Times are medians of whole generations on the device (CUDA events), the board
resident; records follow bench/harness.hpp's JSON lines."""
import argparse
import json
import subprocess

from peer_common import stats


def gpu_name():
    try:
        return subprocess.check_output(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], text=True).splitlines()[0]
    except Exception:
        return ""


def time_cupy(side, gens, runs):
    import cupy as cp
    from cupyx.scipy import ndimage
    rng = cp.random.default_rng(1)
    board = (rng.random((side, side), dtype=cp.float32) < 0.5).astype(cp.uint8)
    kernel = cp.ones((3, 3), dtype=cp.uint8)
    kernel[1, 1] = 0

    def step(b):
        n = ndimage.convolve(b, kernel, mode="wrap")
        return ((n == 3) | ((b == 1) & (n == 2))).astype(cp.uint8)

    samples = []
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for i in range(runs + 2):
        start.record()
        for _ in range(gens):
            board = step(board)
        end.record()
        end.synchronize()
        if i >= 2:
            samples.append(cp.cuda.get_elapsed_time(start, end) * 1000.0)
    return samples


def time_torch(side, gens, runs):
    import torch
    import torch.nn.functional as F
    g = torch.Generator(device="cuda").manual_seed(1)
    board = (torch.rand((1, 1, side, side), device="cuda", generator=g) < 0.5).half()
    kernel = torch.ones((1, 1, 3, 3), device="cuda", dtype=torch.half)
    kernel[0, 0, 1, 1] = 0

    def step(b):
        n = F.conv2d(F.pad(b, (1, 1, 1, 1), mode="circular"), kernel)
        return ((n == 3) | ((b == 1) & (n == 2))).half()

    samples = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.no_grad():
        for i in range(runs + 2):
            start.record()
            for _ in range(gens):
                board = step(board)
            end.record()
            end.synchronize()
            if i >= 2:
                samples.append(start.elapsed_time(end) * 1000.0)
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="4096,16384,65536")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    gpu = gpu_name()
    with open(args.out, "a") as out:
        for side in [int(s) for s in args.sizes.split(",")]:
            gens = 4 if side >= 65536 else 16
            for name, fn in (("cupy", time_cupy), ("pytorch", time_torch)):
                try:
                    samples = fn(side, gens, args.runs)
                except Exception as e:  # a peer that cannot run (memory, missing package) is reported, not fatal
                    print(f"{name} {side}: {type(e).__name__}: {e}")
                    continue
                st = stats(samples)
                rate = side * side * gens / (st["median_us"] * 1e-6)
                rec = {"suite": "life", "name": "B3/S23", "backend": name, "scope": "device (board resident, no transfers)",
                       "width": side, "height": side,
                       "params": {"generations": str(gens), "cell_updates_per_s": str(rate)}, **st, "cpu": "", "gpu": gpu}
                out.write(json.dumps(rec) + "\n")
                print(f"{name:8s} {side}x{side}: {st['median_us'] / gens:10.1f} us/generation  {rate:.3g} cell updates/s")
                try:  # free the device memory before the next peer
                    import cupy as cp
                    cp.get_default_memory_pool().free_all_blocks()
                except Exception:
                    pass
                try:
                    import torch
                    torch.cuda.empty_cache()
                except Exception:
                    pass


if __name__ == "__main__":
    main()
