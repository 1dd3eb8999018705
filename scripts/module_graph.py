#!/usr/bin/env python3
"""The module graph of libgpuvis, generated from the #include lines of include/ and src/.

A module is a folder: include/gpuvis/<module>/ and src/<module>/. Each module has a layer; an
include may only point to a lower layer (core <- algorithms <- pipeline <- track <- adapters <- cli and
the Python bindings).

  python3 scripts/module_graph.py --check          # exit 1 and name every upward include
  python3 scripts/module_graph.py --update docs/architecture.md
                                                   # rewrite the Mermaid picture between the markers

The check runs in the test suite (ctest -R ModuleGraph), so an upward include fails CI.
"""
import argparse
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Layer of each module, lowest first. Same-layer modules may not include each other, except along
# the pipeline's order inside the algorithms layer (ALGORITHM_ORDER).
LAYERS = [
    ("core", ["core"]),
    ("platform", ["io", "cuda", "opencl"]),
    ("algorithms", ["threshold", "segment", "decode", "calibration", "filters", "life", "lab", "source"]),
    ("pipeline", ["pipeline", "synth"]),
    ("track", ["track"]),
    ("output", ["output"]),
    ("adapters", ["adapters"]),
    ("front ends", ["cli", "bindings"]),
]
# Inside the algorithms layer a stage may use the stages before it (the segmentation's labelling
# thresholds its tiles; the decoder reads the region tree; the calibration grid moves decoded
# results, and its fit thresholds and segments a frame of the calibration sheet).
ALGORITHM_ORDER = ["threshold", "segment", "decode", "calibration"]
# Folders that are not modules of their own.
# The configuration files (include/gpuvis/config, src/config) sit with the adapters they configure.
ALIASES = {"src": "adapters", "config": "adapters"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(module):
    for i, (_, members) in enumerate(LAYERS):
        if module in members:
            return i
    return None


def module_of(path):
    parts = path.split(os.sep)
    if parts[0] == "include":
        m = parts[2]
    elif parts[0] == "src":
        m = parts[1] if len(parts) > 2 else "src"
    elif parts[0] == "apps":
        m = "cli"
    elif parts[0] == "bindings":
        m = "bindings"
    else:
        return None
    return ALIASES.get(m, m)


def target_module(inc, including_dir):
    if inc.startswith("gpuvis/"):
        return ALIASES.get(inc.split("/")[1], inc.split("/")[1])
    # Relative to the including file, else from src/ (the internal include root).
    for base in (including_dir, os.path.join(ROOT, "src")):
        full = os.path.normpath(os.path.join(base, inc))
        if os.path.exists(full):
            return module_of(os.path.relpath(full, ROOT))
    return None


def collect():
    edges = collections.defaultdict(list)  # (from, to) -> [file: include]
    for top in ("include", "src", "apps", "bindings"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if not f.endswith((".hpp", ".cpp", ".cu", ".cuh", ".in")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, ROOT)
                src = module_of(rel)
                for line in open(path, errors="ignore"):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    dst = target_module(m.group(1), d)
                    if dst and src and dst != src:
                        edges[(src, dst)].append(f"{rel}: {m.group(1)}")
    return edges


def allowed(src, dst):
    ls, ld = layer_of(src), layer_of(dst)
    if ls is None or ld is None:
        return False
    if ld < ls:
        return True
    if ld == ls and src in ALGORITHM_ORDER and dst in ALGORITHM_ORDER:
        return ALGORITHM_ORDER.index(dst) < ALGORITHM_ORDER.index(src)
    return False


def mermaid(edges):
    lines = ["```mermaid", "flowchart BT"]
    for i, (name, members) in enumerate(LAYERS):
        present = [m for m in members if any(m in e for e in edges)]
        if not present:
            continue
        lines.append(f'  subgraph layer{i}["{i}: {name}"]')
        lines += [f"    {m}" for m in present]
        lines.append("  end")
    for (src, dst) in sorted(edges):
        lines.append(f"  {src} --> {dst}")
    lines.append("```")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--update", metavar="MARKDOWN")
    args = ap.parse_args()
    edges = collect()
    bad = [(s, d) for (s, d) in edges if not allowed(s, d)]
    if args.update:
        path = args.update
        text = open(path).read()
        begin, end = "<!-- module-graph:begin -->", "<!-- module-graph:end -->"
        if begin not in text or end not in text:
            sys.exit(f"module_graph: {path} has no {begin} ... {end} markers")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        open(path, "w").write(head + begin + "\n" + mermaid(edges) + "\n" + end + tail)
    if args.check or not args.update:
        for s, d in sorted(bad):
            print(f"module_graph: {s} (layer {layer_of(s)}) includes {d} (layer {layer_of(d)}):", file=sys.stderr)
            for where in edges[(s, d)][:5]:
                print(f"  {where}", file=sys.stderr)
        if not bad:
            print(f"module_graph: {len(edges)} module dependencies, all pointing down")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
