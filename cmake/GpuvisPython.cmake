# The Python module (bindings/python) through pybind11: GPUVIS_PYTHON = AUTO | ON | OFF.
# Debian's packages (pybind11-dev, python3-numpy, python3-dask) belong to the system interpreter,
# so /usr/bin/python3 is preferred to whatever python3 comes first on PATH (pyenv, conda) unless
# Python3_EXECUTABLE is given or pip builds the wheel (scikit-build-core, pyproject.toml).
set(GPUVIS_PYTHON AUTO CACHE STRING "Python module (pybind11): AUTO, ON or OFF")
set_property(CACHE GPUVIS_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(GPUVIS_HAVE_PYTHON OFF)
if(NOT GPUVIS_PYTHON STREQUAL "OFF")
  if(NOT DEFINED Python3_EXECUTABLE AND NOT DEFINED SKBUILD AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(GPUVIS_HAVE_PYTHON ON)
    # The static library is linked into the module, a shared object.
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  elseif(GPUVIS_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "GPUVIS_PYTHON=ON needs python3-dev and pybind11 (apt-get install python3-dev pybind11-dev)")
  else()
    message(STATUS "gpuvis: pybind11 or the Python headers not found, the Python module is off")
  endif()
endif()
