"""Shared fixtures: the gpuvis program of the same build, the source tree, and a scratch folder."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("GPUVIS_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("GPUVIS_CLI does not name the gpuvis program of this build")

    def run(*args, check=True):
        r = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"gpuvis {' '.join(map(str, args))} failed: {r.stderr}")
        return r
    return run


@pytest.fixture(scope="session")
def root():
    return ROOT


def read_pgm(path):
    data = pathlib.Path(path).read_bytes()
    parts = data.split(maxsplit=4)
    assert parts[0] in (b"P5", b"P6"), path
    w, h = int(parts[1]), int(parts[2])
    channels = 1 if parts[0] == b"P5" else 3
    return np.frombuffer(parts[4][: w * h * channels], np.uint8).reshape((h, w) if channels == 1 else (h, w, 3))


def write_pgm(path, img):
    magic = b"P5" if img.ndim == 2 else b"P6"
    pathlib.Path(path).write_bytes(magic + f"\n{img.shape[1]} {img.shape[0]}\n255\n".encode() + np.ascontiguousarray(img).tobytes())


@pytest.fixture(scope="session")
def table(root):
    return read_pgm(root / "data" / "samples" / "table.pgm")


def symbols_args():
    """Builds without libpng read PGM copies of the printed symbols ($GPUVIS_SYMBOL_PGM_DIR, made by
    scripts/gpu-check.sh)."""
    d = os.environ.get("GPUVIS_SYMBOL_PGM_DIR")
    return ["--symbols-dir", d] if d else []
