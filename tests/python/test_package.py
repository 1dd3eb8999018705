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


def test_every_class_documents_itself_and_its_members():
    """help(gpuvis.Tracker), help(gpuvis.Fiducial) and the others say what the class is, and every
    attribute and method says what it holds (with its unit); constructors name every parameter."""
    import re
    classes = [getattr(gpuvis._gpuvis, n) for n in dir(gpuvis._gpuvis) if isinstance(getattr(gpuvis._gpuvis, n), type)
               and not issubclass(getattr(gpuvis._gpuvis, n), BaseException)]
    assert {c.__name__ for c in classes} >= {"Detector", "Detections", "Fiducial", "Tracker", "Frame", "Object", "TuioSender"}
    for cls in classes:
        assert cls.__doc__ and cls.__doc__.strip(), cls.__name__
        for name, member in vars(cls).items():
            if name.startswith("_") and name != "__init__":
                continue
            doc = getattr(member, "__doc__", None) or ""
            if isinstance(member, property) or name == "__init__" or callable(member):
                # pybind11 puts the signature on the first line; the text follows it.
                text = doc.strip().partition("\n")[2] if doc.strip().startswith(name) else doc
                assert text.strip(), f"{cls.__name__}.{name} has no description"
            if name == "__init__" and "(" in doc:
                for signature in [line for line in doc.splitlines() if line.startswith("__init__(")]:
                    for arg in re.findall(r"(\w+):", signature.split("(", 1)[1].rsplit(")", 1)[0]):
                        if arg != "self":
                            assert re.search(r"\b" + arg + r"\b", doc.replace(signature, "")), (cls.__name__, arg)


def test_every_function_documents_itself():
    """help() on any public function of gpuvis and gpuvis.dask says what it does, beyond its signature."""
    import importlib
    modules = [gpuvis]
    try:
        modules.append(importlib.import_module("gpuvis.dask"))
    except ImportError:  # dask not installed: the module itself is not usable
        pass
    for module in modules:
        for name in dir(module):
            member = getattr(module, name)
            if name.startswith("_") or isinstance(member, type) or not callable(member):
                continue
            if getattr(member, "__module__", module.__name__) not in (module.__name__, "gpuvis._gpuvis"):
                continue  # imported from elsewhere (numpy, dask)
            doc = (member.__doc__ or "").strip()
            text = doc.partition("\n")[2] if doc.startswith(name + "(") else doc
            assert text.strip(), f"{module.__name__}.{name} has no description"
