#!/usr/bin/env python3
"""Turns benchmark JSON lines (bench/* executables, scripts/peers/*) into a Markdown table and,
when matplotlib is available, a PNG plot.

  python3 scripts/bench_report.py RESULTS.jsonl [MORE.jsonl ...] --suite threshold \
      --md docs/benchmarks/threshold.md --png docs/benchmarks/threshold.png \
      --title "..." --command "the command that produced the results"
"""
import argparse
import collections
import json
import pathlib


def load(paths):
    rows = []
    for p in paths:
        for line in pathlib.Path(p).read_text().splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def fmt_params(p):
    return " ".join(f"{k}={v}" for k, v in sorted(p.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--suite", default=None)
    ap.add_argument("--md", required=True)
    ap.add_argument("--png")
    ap.add_argument("--title", default="Benchmark results")
    ap.add_argument("--command", default="")
    ap.add_argument("--notes", default="", help="extra Markdown inserted after the header")
    args = ap.parse_args()
    rows = [r for r in load(args.inputs) if args.suite is None or r["suite"] == args.suite]
    cpus = sorted({r["cpu"] for r in rows if r.get("cpu")})
    gpus = sorted({r["gpu"] for r in rows if r.get("gpu")})
    lines = [f"# {args.title}", ""]
    if args.command:
        lines += ["Produced by:", "", "```", args.command, "```", ""]
    lines += [f"- CPU: {', '.join(cpus) or 'n/a'}", f"- GPU: {', '.join(gpus) or 'n/a'}",
              "- Times are medians over many runs after warm-up; p90 beside them. `scope` says whether",
              "  host-device transfers are included.", ""]
    if args.notes:
        lines += [args.notes, ""]
    lines += ["| case | params | size | backend | scope | median µs | p90 µs | MPix/s | runs |",
              "|---|---|---|---|---|---:|---:|---:|---:|"]
    for r in sorted(rows, key=lambda r: (r["name"], r["width"] * r["height"], fmt_params(r["params"]), r["backend"], r["scope"])):
        mpix = r["width"] * r["height"] / r["median_us"] if r["median_us"] else 0
        lines.append(f"| {r['name']} | {fmt_params(r['params'])} | {r['width']}×{r['height']} | {r['backend']} | {r['scope']} | "
                     f"{r['median_us']:.1f} | {r['p90_us']:.1f} | {mpix:.0f} | {r['runs']} |")
    pathlib.Path(args.md).write_text("\n".join(lines) + "\n")
    print("wrote", args.md)
    if args.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib not available: no plot")
            return
        series = collections.defaultdict(list)
        for r in rows:
            key = f"{r['name']} {fmt_params(r['params'])} [{r['backend']}, {r['scope'].split(' ')[0]}]"
            series[key].append((r["width"] * r["height"] / 1e6, r["median_us"]))
        fig, ax = plt.subplots(figsize=(11, 6.5))
        for key, pts in sorted(series.items()):
            if len(pts) < 2:
                continue
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=key)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("megapixels per frame")
        ax.set_ylabel("median time per frame (µs)")
        ax.set_title(args.title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)
        print("wrote", args.png)


if __name__ == "__main__":
    main()
