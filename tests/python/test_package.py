"""The package as a program: `python -m gpuvis` runs the gpuvis program that came with it (the
build tree's, or the one inside an installed wheel)."""
import os
import subprocess
import sys
from pathlib import Path

import gpuvis
from conftest import ROOT


def test_python_m_gpuvis_runs_the_program():
    r = subprocess.run([sys.executable, "-m", "gpuvis", "--version"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert gpuvis.__version__ in r.stdout
    bad = subprocess.run([sys.executable, "-m", "gpuvis", "threshold", "--bogus"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--bogus" in bad.stderr


def test_the_type_stub_matches_the_module_and_comes_with_the_package():
    """bindings/python/gpuvis/_gpuvis.pyi is what scripts/python_stubs.py makes of the module under
    test (a binding changed without its stub fails here), and the package ships it with py.typed."""
    script = ROOT / "scripts" / "python_stubs.py"
    r = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    assert r.returncode == 0, r.stderr + r.stdout
    package = Path(gpuvis.__file__).parent
    assert (package / "_gpuvis.pyi").is_file() and (package / "py.typed").is_file()
    stub = (package / "_gpuvis.pyi").read_text()
    for name in ("def threshold(", "def mean_shift(", "class Detector:", "class Tracker:", "def opencl_devices("):
        assert name in stub, name
    assert "spatial: float = 8.0" in stub  # parameters keep their types and defaults


def test_the_image_functions_document_every_parameter():
    """help(gpuvis.mean_shift) and the others name every parameter in their text (with its unit and
    default there), not only in the signature line."""
    import re
    for fn in (gpuvis.threshold, gpuvis.convolve, gpuvis.bilateral, gpuvis.mean_shift, gpuvis.mean_shift_volume,
               gpuvis.mean_shift_segment, gpuvis.life, gpuvis.Detector.__init__):
        signature, _, body = fn.__doc__.strip().partition("\n")
        names = [n for n in re.findall(r"(\w+):", signature.split("(", 1)[1].rsplit(")", 1)[0]) if n != "self"]
        assert names, signature
        for name in names:
            assert re.search(r"\b" + name + r"\b", body), (fn.__name__, name)
