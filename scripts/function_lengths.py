#!/usr/bin/env python3
"""Lists the functions in src/, apps/ and bindings/ longer than a screen (120 lines by default) and
exits 1 when there is any. A function's length runs from its first line to its closing brace,
lambdas inside it included; the extents come from Universal Ctags (Debian's universal-ctags,
installed by scripts/deps.sh).

  python3 scripts/function_lengths.py [--max N] [--top K]
"""
import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ["src", "apps", "bindings"]


def functions():
    ctags = shutil.which("ctags-universal") or shutil.which("ctags")
    if not ctags:  # 77: ctest's skip (a machine without apt, such as the GPU machine)
        print("function_lengths: SKIPPED: Universal Ctags is not installed (apt install universal-ctags, or bash scripts/deps.sh)")
        sys.exit(77)
    out = subprocess.run(
        [ctags, "-R", "--fields=+ne", "--kinds-C++=f", "--languages=C++", "--langmap=C++:+.cu.cuh", "-o", "-"] + FOLDERS,
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) < 4 or parts[0].startswith("__anon"):  # lambdas count in the function around them
            continue
        fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
        if "line" in fields and "end" in fields:
            scope = fields.get("class", fields.get("namespace", ""))
            name = (scope.split("::")[-1] + "::" if "class" in fields else "") + parts[0]
            yield int(fields["end"]) - int(fields["line"]) + 1, parts[1], int(fields["line"]), name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max", type=int, default=120, help="longest allowed function, lines (default 120)")
    ap.add_argument("--top", type=int, default=0, help="also list the K longest functions")
    args = ap.parse_args()
    found = sorted(functions(), reverse=True)
    if args.top:
        for n, path, line, name in found[: args.top]:
            print(f"{n:5d}  {path}:{line}  {name}")
    long = [f for f in found if f[0] > args.max]
    for n, path, line, name in long:
        print(f"{path}:{line}: {name} is {n} lines (at most {args.max}: split it into steps with names)", file=sys.stderr)
    print(f"function_lengths: {len(found)} functions, longest {found[0][0] if found else 0} lines, {len(long)} over {args.max}")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
