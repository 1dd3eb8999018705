"""The PEP 517 build backend of `pip install .` and `pip wheel .`: it needs nothing from the network
(no build requirements), drives the project's own CMake build and packs the wheel itself.

The wheel holds the package `gpuvis` (the module `_gpuvis`, the pure-Python files), and inside it
the `gpuvis` program (`bin/`), its plugins (`lib/gpuvis/`) and its data (`share/gpuvis/`), laid out
as an installation prefix so the program finds them beside itself; `python -m gpuvis` and the
`gpuvis` console script run that program. The module and program link the libraries this machine
has (a wheel for this machine, not a manylinux one).

CMake arguments: `pip install . --config-settings=cmake.args="-DGPUVIS_CUDA=OFF;-DCMAKE_CUDA_ARCHITECTURES=90"`
or the environment variable GPUVIS_CMAKE_ARGS (spaces between arguments). The build folder is
`build-wheel/` in the source tree (kept, so a second build is incremental), or $GPUVIS_WHEEL_BUILD_DIR.
"""
import base64
import hashlib
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
NAME = "gpuvis"


def _version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(gpuvis VERSION ([0-9.]+)", text).group(1)


def _tag():
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{impl}-{impl}-{platform}"


def _metadata():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {_version()}",
        "Summary: reacTIVision-compatible fiducial tracking and fast image filters on CUDA and the CPU",
        "Requires-Python: >=3.9",
        "Requires-Dist: numpy",
        "Provides-Extra: dask",
        'Requires-Dist: dask[array]; extra == "dask"',
        'Requires-Dist: distributed; extra == "dask"',
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _write_dist_info(directory, record_files=None):
    info = pathlib.Path(directory) / _dist_info()
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(), encoding="utf-8")
    (info / "WHEEL").write_text(f"Wheel-Version: 1.0\nGenerator: gpuvis_wheel\nRoot-Is-Purelib: false\nTag: {_tag()}\n")
    (info / "entry_points.txt").write_text("[console_scripts]\ngpuvis = gpuvis.__main__:main\n")
    return info


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory).name


def _cmake_args(config_settings):
    args = shlex.split(os.environ.get("GPUVIS_CMAKE_ARGS", ""))
    given = (config_settings or {}).get("cmake.args", "")
    for item in (given if isinstance(given, list) else [given]):
        args += [a for a in item.split(";") if a]
    return args


def _run(cmd):
    print("gpuvis_wheel:", " ".join(map(str, cmd)), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _build(stage, config_settings):
    build = pathlib.Path(os.environ.get("GPUVIS_WHEEL_BUILD_DIR", ROOT / "build-wheel"))
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    env_path = os.environ.get("PATH", "")
    if os.path.isdir("/usr/local/cuda/bin") and "/usr/local/cuda/bin" not in env_path:
        os.environ["PATH"] = env_path + os.pathsep + "/usr/local/cuda/bin"
    _run(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release", "-DGPUVIS_PYTHON=ON",
          f"-DPython3_EXECUTABLE={sys.executable}", "-DGPUVIS_BUILD_TESTS=OFF", "-DGPUVIS_BUILD_BENCHMARKS=OFF",
          "-DGPUVIS_BUILD_APP=ON", *_cmake_args(config_settings)])
    _run(["cmake", "--build", build, "-j", str(os.cpu_count() or 1)])
    _run(["cmake", "--install", build, "--prefix", stage])


def _layout(stage, tree):
    """The installed prefix `stage` rearranged as the wheel's files under `tree`."""
    package = tree / NAME
    shutil.copytree(stage / "lib" / "python3" / "dist-packages" / NAME, package)
    (package / "bin").mkdir()
    shutil.copy2(stage / "bin" / "gpuvis", package / "bin" / "gpuvis")
    if (stage / "lib" / "gpuvis").is_dir():
        shutil.copytree(stage / "lib" / "gpuvis", package / "lib" / "gpuvis")
    shutil.copytree(stage / "share" / "gpuvis", package / "share" / "gpuvis")


def _record_line(path, arcname):
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory(prefix="gpuvis-wheel-") as tmp:
        tmp = pathlib.Path(tmp)
        stage, tree = tmp / "stage", tmp / "tree"
        _build(stage, config_settings)
        tree.mkdir()
        _layout(stage, tree)
        info = _write_dist_info(tree)
        name = f"{NAME}-{_version()}-{_tag()}.whl"
        files = sorted(p for p in tree.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        record = [_record_line(p, p.relative_to(tree).as_posix()) for p in files]
        record.append(f"{_dist_info()}/RECORD,,")
        with zipfile.ZipFile(pathlib.Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as whl:
            for p in files:
                entry = zipfile.ZipInfo(p.relative_to(tree).as_posix(), date_time=(2026, 1, 1, 0, 0, 0))
                entry.external_attr = (p.stat().st_mode & 0o777 | 0o100000) << 16  # keeps the program executable
                entry.compress_type = zipfile.ZIP_DEFLATED
                whl.writestr(entry, p.read_bytes())
            whl.writestr(f"{info.name}/RECORD", "\n".join(record) + "\n")
    return name
