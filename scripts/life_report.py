#!/usr/bin/env python3
"""Turns bench_life and scripts/peers/life_peers.py results (JSON lines) into the Markdown table of
docs/benchmarks/life.md: cell updates per second per board size and backend, with ratios.

  python3 scripts/life_report.py bench_life.jsonl life_peers.jsonl --md life.md --command "..."
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--md", required=True)
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    rows = [json.loads(l) for p in args.inputs for l in open(p) if l.strip()]
    rows = [r for r in rows if r.get("suite") == "life"]
    gpu = next((r["gpu"] for r in rows if r.get("gpu")), "")
    cpu = next((r["cpu"] for r in rows if r.get("cpu")), "")
    rate = lambda r: float(r["params"]["cell_updates_per_s"])
    out = ["# Game of Life throughput", "", "Produced by:", "", "```", args.command, "```", "",
           f"- GPU: {gpu}", f"- CPU: {cpu}",
           "- Random soup of density 0.5 on a torus. A time covers `advance(G)` of a board already in place "
           "(on the device for CUDA and the peers: no transfers); medians after warm-up.", "",
           "| board | rule | backend | generations timed | median ms | cell updates/s | vs PyTorch |",
           "|---|---|---|---:|---:|---:|---:|"]
    torch = {(r["width"], r["name"]): rate(r) for r in rows if r["backend"] == "pytorch"}
    order = {"cuda": 0, "pytorch": 1, "cupy": 2, "cpu": 3}
    for r in sorted(rows, key=lambda r: (r["width"], r["name"], order.get(r["backend"], 9))):
        t = torch.get((r["width"], r["name"]))
        x = rate(r) / t if t else 0
        ratio = "1x" if r["backend"] == "pytorch" else (f"{x:.0f}x" if x >= 10 else f"{x:.2f}x") if t else ""
        out.append(f"| {r['width']}x{r['height']} | {r['name']} | {r['backend']} | {r['params'].get('generations', '')} | "
                   f"{r['median_us'] / 1000:.2f} | {rate(r):.3g} | {ratio} |")
    open(args.md, "w").write("\n".join(out) + "\n")
    print("wrote", args.md)


if __name__ == "__main__":
    main()
