#!/usr/bin/env python3
"""Plots one benchmark's results file (docs/benchmarks/NAME.jsonl) as NAME.png beside it.

  python3 scripts/bench_plot.py docs/benchmarks/filters.jsonl [--out filters.png]

Timed rows (those with median_us: threshold, filters, pipeline, detect, life, meanshift, lab) become
horizontal bars of the median time per case, one colour per backend and scope, on a log axis
(shorter is faster). The soak's rows become resident memory against time, the cluster's
throughput against workers, start-up's figures as bars per build, the live view's tracking rate per
condition, the mean shift accuracy study's adjusted Rand index per case. Needs matplotlib.
"""
import argparse
import collections
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def short(text, n=70):
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def timed(rows, ax):
    cases = collections.OrderedDict()
    series = collections.OrderedDict()
    for r in rows:
        size = f" {r['width']}×{r['height']}" if r.get("width") else ""
        params = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()) if len(str(v)) < 16)
        case = short(f"{r.get('lesson', '')} {r['name']}{size} {params}".strip())
        machine = r.get("gpu") if str(r.get("backend", "")).startswith("cuda") or r.get("backend") in ("cupy", "torch") else r.get("cpu")
        key = short(f"{r.get('backend', '')}, {str(r.get('scope', '')).split(';')[0].split('(')[0].strip()} [{machine or '?'}]", 60)
        cases.setdefault(case, {})[key] = r["median_us"]
        series.setdefault(key, None)
    names = list(cases)
    height = 0.8 / max(1, len(series))
    for i, key in enumerate(series):
        ys = [n + i * height for n in range(len(names))]
        xs = [cases[c].get(key, 0) or 0 for c in names]
        ax.barh(ys, xs, height=height, label=key)
    ax.set_yticks([n + 0.4 - height / 2 for n in range(len(names))])
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("median time, µs (log; shorter is faster)")
    ax.legend(fontsize=6, loc="lower right")
    return len(names)


def soak(rows, ax):
    for r in rows:
        curve = r.get("rss_curve") or []
        tracked = (r.get("captured_dropped_tracked") or [0, 0, r["frames"]])[2]
        tuio = "TUIO on" if r.get("tuio_packets") else "TUIO off"
        label = f"{r['backend']}, {tracked:,} frames tracked, {tuio}, {r.get('gpu') or r.get('cpu')}, {r['date']}"
        ax.plot([p[0] for p in curve], [p[1] for p in curve], label=label)
    ax.set_xlabel("seconds")
    ax.set_ylabel("resident memory, MB")
    ax.legend(fontsize=8)
    return 6


def cluster(rows, ax):
    lines = collections.defaultdict(list)
    for r in rows:
        value = r.get("mpixels_per_s") or r.get("frames_per_s")
        if value is not None:
            unit = "MPix/s" if "mpixels_per_s" in r else "frames/s"
            lines[f"{r['name']} ({unit})"].append((r["workers"], value))
    for label, pts in lines.items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xlabel("Dask workers (0 = one call, no cluster)")
    ax.set_ylabel("throughput")
    ax.legend(fontsize=8)
    return 6


def startup(rows, ax):
    groups = collections.OrderedDict()
    for r in rows:
        if str(r["name"]).endswith("_ms"):
            groups.setdefault(r["name"], {})[f"{r['label']} ({r.get('machine', '')})"] = r["value"]
    labels = sorted({k for g in groups.values() for k in g})
    height = 0.8 / max(1, len(labels))
    for i, label in enumerate(labels):
        ax.barh([n + i * height for n in range(len(groups))], [g.get(label, 0) for g in groups.values()], height=height,
                label=short(label, 60))
    ax.set_yticks([n + 0.4 - height / 2 for n in range(len(groups))])
    ax.set_yticklabels(list(groups), fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("milliseconds (log)")
    ax.legend(fontsize=7)
    return len(groups)


def live_view(rows, ax):
    names = [r["name"] for r in rows]
    ax.barh(range(len(rows)), [r["fps_median"] for r in rows], color="#4a8")
    for i, r in enumerate(rows):
        ax.text(r["fps_median"], i, f"  {r['fps_median']:.0f} fps, latency {r['latency_us_median'] / 1000:.1f} ms "
                f"(max {r['latency_us_max'] / 1000:.1f})", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"frames tracked per second ({rows[0].get('backend')} backend, {rows[0].get('cpu', '')})")
    return len(rows)


def accuracy(rows, ax):
    """Segmentation accuracy rows (meanshift_accuracy): adjusted Rand index per case and method."""
    labels = [f"{r['case']}, noise {r['noise_sigma']}: {r['method']}" for r in rows]
    colours = ["#4a8" if r["method"].startswith("gpuvis") else "#c84" for r in rows]
    ax.barh(range(len(rows)), [max(r["ari"], 0.0) for r in rows], color=colours)
    for i, r in enumerate(rows):
        ax.text(max(r["ari"], 0.0), i, f"  ARI {r['ari']:.3f}, VI {r['vi_bits']:.2f} bits, {r['regions']} regions", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([short(t, 95) for t in labels], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.6)
    ax.set_xlabel("adjusted Rand index against the known regions (1 = exact; longer is better)")
    return len(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out")
    args = ap.parse_args()
    path = pathlib.Path(args.results)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        raise SystemExit(f"bench_plot: {path} has no rows")
    kind = rows[0].get("suite") or rows[0].get("benchmark") or ""
    plot = {"soak": soak, "cluster": cluster, "startup": startup, "live_view": live_view, "meanshift-accuracy": accuracy}.get(kind, timed)
    if plot is timed:
        rows = [r for r in rows if "median_us" in r]
    # A first pass sizes the figure by its number of cases.
    fig, ax = plt.subplots(figsize=(12, 5))
    n = plot(rows, ax)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(12, max(4.5, 0.22 * n * (1 + (plot is timed)) + 1.5)))
    plot(rows, ax)
    ax.set_title(f"{path.stem} ({path.name})")
    fig.tight_layout()
    out = args.out or str(path.with_suffix(".png"))
    fig.savefig(out, dpi=90)
    print("wrote", out)


if __name__ == "__main__":
    main()
