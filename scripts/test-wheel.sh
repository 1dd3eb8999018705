#!/usr/bin/env bash
# The Python package as pip users get it (CI runs this after the test suite): builds the wheel from
# this checkout offline (`pip wheel .`, the project's own build backend), installs it into a fresh
# virtual environment (NumPy, pytest and Dask from the system's packages), and runs the Python tests
# from a folder outside the source tree against the installed package and its `gpuvis` program.
#
#   bash scripts/test-wheel.sh [PYTHON]        # default /usr/bin/python3
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
python="${1:-/usr/bin/python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "test-wheel: building the wheel (build folder build-wheel/)"
"$python" -m pip wheel --no-deps --no-build-isolation -w "$work/dist" . > "$work/wheel.log" 2>&1 || { tail -40 "$work/wheel.log"; exit 1; }
wheel="$(ls "$work"/dist/gpuvis-*.whl)"
echo "test-wheel: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
"$python" -m venv --system-site-packages --without-pip "$work/venv"
# An interpreter that is itself a virtual environment's (the GPU machine's) passes only its base's
# system packages on: the new environment gets that environment's packages (NumPy, CuPy, ...) too.
"$python" - "$work/venv" <<'PY'
import pathlib, site, sys
if sys.prefix != sys.base_prefix:
    venv = pathlib.Path(sys.argv[1])
    target = next(venv.glob("lib/python3*/site-packages"))
    (target / "parent-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
PY
"$work/venv/bin/python" -m pip install --no-deps --no-index --quiet "$wheel"
cd "$work"
# The package imported is the installed one, and its program runs as `python -m gpuvis`.
"$work/venv/bin/python" - "$work/venv" <<'PY'
import subprocess, sys, gpuvis
assert gpuvis.__file__.startswith(sys.argv[1]), gpuvis.__file__
out = subprocess.run([sys.executable, "-m", "gpuvis", "--version"], capture_output=True, text=True, check=True).stdout
assert gpuvis.__version__ in out, out
print("test-wheel: import gpuvis from", gpuvis.__file__, "and python -m gpuvis:", out.strip())
PY
GPUVIS_CLI="$work/venv/bin/gpuvis" "$work/venv/bin/python" -m pytest -q -rs -p no:cacheprovider --rootdir "$work" "$root/tests/python"
