"""The package as a program: `python -m gpuvis` runs the gpuvis program that came with it (the
build tree's, or the one inside an installed wheel)."""
import subprocess
import sys

import gpuvis


def test_python_m_gpuvis_runs_the_program():
    r = subprocess.run([sys.executable, "-m", "gpuvis", "--version"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert gpuvis.__version__ in r.stdout
    bad = subprocess.run([sys.executable, "-m", "gpuvis", "threshold", "--bogus"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--bogus" in bad.stderr
