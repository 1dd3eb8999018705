"""`python -m gpuvis ARGS` (and the `gpuvis` script a wheel installs) runs the gpuvis program that
came with this package: inside it when installed from a wheel, else the build tree's."""
import os
import pathlib
import sys

_HERE = pathlib.Path(__file__).resolve().parent


def program():
    for candidate in (_HERE / "bin" / "gpuvis", _HERE.parent.parent / "bin" / "gpuvis"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise SystemExit("gpuvis: the gpuvis program is not beside this package (" + str(_HERE) + "); "
                     "build it (scripts/build.sh) or install the wheel")


def main():
    path = program()
    os.execv(path, [path, *sys.argv[1:]])


if __name__ == "__main__":
    main()
