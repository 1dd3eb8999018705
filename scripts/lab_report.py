#!/usr/bin/env python3
"""Turns `gpuvis lab ... --json FILE` lines into the Markdown tables of docs/benchmarks/lab.md, one
table per lesson.

  python3 scripts/lab_report.py lab.jsonl --md lab.md --command "..."
"""
import argparse
import json


def fmt_time(us):
    return f"{us / 1e6:.3g} s" if us >= 1e6 else f"{us / 1e3:.3g} ms" if us >= 1e3 else f"{us:.3g} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--md", required=True)
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    rows = [json.loads(l) for p in args.inputs for l in open(p) if l.strip()]
    gpu = next((r["gpu"] for r in rows if r.get("gpu")), "")
    out = ["# gpuvis lab: measured", "", "Produced by:", "", "```", args.command, "```", "",
           f"- GPU: {gpu}; CPU rows on the same machine's host ({rows[0]['threads'] if rows else '?'} threads).",
           "- Medians after warm-up; each row says what its time covers. See docs/lab.md for what each lesson shows.", ""]
    lessons = []
    for r in rows:
        if r["lesson"] not in lessons:
            lessons.append(r["lesson"])
    for lesson in lessons:
        out += [f"## {lesson}", "", "| variant | on | median | value | scope | check | note |", "|---|---|---:|---:|---|---|---|"]
        for r in rows:
            if r["lesson"] != lesson:
                continue
            out.append(f"| {r['name']} | {r['backend']} | {fmt_time(r['median_us'])} | {r['value']:.4g} {r['unit']} | "
                       f"{r['scope']} | {r['check']} | {r['note']} |")
        out.append("")
    open(args.md, "w").write("\n".join(out))
    print("wrote", args.md)


if __name__ == "__main__":
    main()
