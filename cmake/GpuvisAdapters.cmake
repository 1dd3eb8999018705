# Optional adapters at the edge of the library. Each one is switched on automatically when its
# libraries are found (AUTO), forced (ON: missing libraries are an error) or left out (OFF).
set(GPUVIS_HAVE_CODECS OFF)
if(NOT GPUVIS_CODECS STREQUAL "OFF")
  find_package(PNG QUIET)
  find_package(JPEG QUIET)
  if(PNG_FOUND AND JPEG_FOUND)
    set(GPUVIS_HAVE_CODECS ON)
  elseif(GPUVIS_CODECS STREQUAL "ON")
    message(FATAL_ERROR "GPUVIS_CODECS=ON needs libpng and libjpeg (apt-get install libpng-dev libjpeg-dev)")
  else()
    message(STATUS "gpuvis: libpng/libjpeg not found, PNG/JPEG support off (PGM/PPM/PFM only)")
  endif()
endif()
