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

# gpuvis_pkg_adapter(OPTION HAVE_VAR PKG_PREFIX PKG_MODULE DESCRIPTION APT_PACKAGE): an adapter
# found through pkg-config, switched by OPTION = AUTO | ON | OFF.
function(gpuvis_pkg_adapter option have prefix module description apt)
  set(${option} AUTO CACHE STRING "${description}: AUTO, ON or OFF")
  set_property(CACHE ${option} PROPERTY STRINGS AUTO ON OFF)
  set(found OFF)
  if(NOT ${option} STREQUAL "OFF")
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
    endif()
    if(${prefix}_FOUND)
      set(found ON)
    elseif(${option} STREQUAL "ON")
      message(FATAL_ERROR "${option}=ON needs ${module} (apt-get install ${apt})")
    else()
      message(STATUS "gpuvis: ${module} not found, ${description} off")
    endif()
  endif()
  set(${have} ${found} PARENT_SCOPE)
endfunction()

# gpuvis_find_adapter(OPTION HAVE_VAR DESCRIPTION NEEDS APT_PACKAGE PACKAGE [find_package args]):
# an adapter found through find_package(PACKAGE args), switched by OPTION = AUTO | ON | OFF. A macro,
# so that the package's variables (e.g. OpenCV_INCLUDE_DIRS) reach the caller.
macro(gpuvis_find_adapter option have description needs apt package)
  set(${option} AUTO CACHE STRING "${description}: AUTO, ON or OFF")
  set_property(CACHE ${option} PROPERTY STRINGS AUTO ON OFF)
  set(${have} OFF)
  if(NOT ${option} STREQUAL "OFF")
    find_package(${package} ${ARGN})
    if(${package}_FOUND)
      set(${have} ON)
    elseif(${option} STREQUAL "ON")
      message(FATAL_ERROR "${option}=ON needs ${needs} (apt-get install ${apt})")
    else()
      message(STATUS "gpuvis: ${needs} not found, ${description} off")
    endif()
  endif()
endmacro()

gpuvis_pkg_adapter(GPUVIS_TUIO GPUVIS_HAVE_TUIO LIBLO liblo "TUIO/OSC output adapter (liblo)" liblo-dev)
# A machine without pkg-config or liblo's .pc file (the GPU machine, with the copy that
# scripts/carry-tuio.sh makes, found through CMAKE_PREFIX_PATH) gets liblo from its header and library.
if(NOT GPUVIS_HAVE_TUIO AND NOT GPUVIS_TUIO STREQUAL "OFF")
  find_path(GPUVIS_LIBLO_INCLUDE_DIR lo/lo.h)
  find_library(GPUVIS_LIBLO_LIBRARY lo)
  if(GPUVIS_LIBLO_INCLUDE_DIR AND GPUVIS_LIBLO_LIBRARY)
    add_library(PkgConfig::LIBLO INTERFACE IMPORTED GLOBAL)
    target_include_directories(PkgConfig::LIBLO INTERFACE ${GPUVIS_LIBLO_INCLUDE_DIR})
    target_link_libraries(PkgConfig::LIBLO INTERFACE ${GPUVIS_LIBLO_LIBRARY})
    set(GPUVIS_HAVE_TUIO ON)
    message(STATUS "gpuvis: liblo from ${GPUVIS_LIBLO_LIBRARY} (no pkg-config entry)")
  endif()
endif()
# The TUIO transports (UDP, TCP client and server, WebSocket server) are Boost.Asio and Beast,
# header-only: the adapter needs both liblo and the Boost headers.
if(GPUVIS_HAVE_TUIO)
  find_package(Boost 1.70 QUIET)
  if(NOT Boost_FOUND)
    if(GPUVIS_TUIO STREQUAL "ON")
      message(FATAL_ERROR "GPUVIS_TUIO=ON needs the Boost headers for its transports (apt-get install libboost-dev)")
    endif()
    message(STATUS "gpuvis: Boost headers not found, TUIO/OSC output adapter off")
    set(GPUVIS_HAVE_TUIO OFF)
  endif()
endif()
# The live view (track --view): an HTTP/WebSocket server on Boost.Beast, header-only.
gpuvis_find_adapter(GPUVIS_VIEW GPUVIS_HAVE_VIEW "Live view in the browser (Boost.Beast)" "the Boost headers" libboost-dev
  Boost 1.70 QUIET)
gpuvis_pkg_adapter(GPUVIS_XML GPUVIS_HAVE_XML TINYXML2 tinyxml2 "reacTIVision.xml adapter (tinyxml2)" libtinyxml2-dev)

# Video files and cameras through OpenCV's videoio.
gpuvis_find_adapter(GPUVIS_VIDEO GPUVIS_HAVE_VIDEO "Video/camera adapter (OpenCV videoio)" "OpenCV with videoio"
  libopencv-dev OpenCV QUIET COMPONENTS core imgproc videoio)

# The CPU filters' vector loops through Google Highway (src/filters/cpu/row_kernels_hwy.cpp), which
# picks the running CPU's best instruction set; without it they are plain loops for the baseline.
gpuvis_find_adapter(GPUVIS_SIMD GPUVIS_HAVE_SIMD "SIMD CPU filters (Google Highway)" "Highway 1.0" libhwy-dev hwy 1.0 CONFIG QUIET)

# Animated GIF output (gpuvis life --gif) through giflib.
gpuvis_find_adapter(GPUVIS_GIF GPUVIS_HAVE_GIF "Animated GIF adapter (giflib)" "giflib 5" libgif-dev GIF 5 QUIET)

# Volume files (NIfTI-1/2, .nii and .nii.gz) through nifticlib's nifti2_io. Found by header and
# library: Debian 12's NIFTIConfig.cmake names files under /usr/lib that the package installs
# under /usr/lib/<multiarch>, so find_package(NIFTI) fails there.
set(GPUVIS_NIFTI AUTO CACHE STRING "NIfTI volume adapter (nifticlib): AUTO, ON or OFF")
set_property(CACHE GPUVIS_NIFTI PROPERTY STRINGS AUTO ON OFF)
set(GPUVIS_HAVE_NIFTI OFF)
if(NOT GPUVIS_NIFTI STREQUAL "OFF")
  find_path(NIFTI2_INCLUDE_DIR nifti2_io.h PATH_SUFFIXES nifti)
  find_library(NIFTI2_LIBRARY nifti2)
  find_library(ZNZ_LIBRARY znz)
  find_package(ZLIB QUIET)
  if(NIFTI2_INCLUDE_DIR AND NIFTI2_LIBRARY AND ZNZ_LIBRARY AND ZLIB_FOUND)
    set(GPUVIS_HAVE_NIFTI ON)
    add_library(gpuvis_nifti2 INTERFACE)
    target_include_directories(gpuvis_nifti2 INTERFACE ${NIFTI2_INCLUDE_DIR})
    target_link_libraries(gpuvis_nifti2 INTERFACE ${NIFTI2_LIBRARY} ${ZNZ_LIBRARY} ZLIB::ZLIB m)
  elseif(GPUVIS_NIFTI STREQUAL "ON")
    message(FATAL_ERROR "GPUVIS_NIFTI=ON needs nifticlib (apt-get install libnifti2-dev)")
  else()
    message(STATUS "gpuvis: nifticlib not found, NIfTI volume adapter off")
  endif()
endif()

# PDF pages (gpuvis symbols, gpuvis calibrate sheet): librsvg draws the SVG pages onto cairo's PDF
# surface.
gpuvis_pkg_adapter(GPUVIS_PDF GPUVIS_HAVE_PDF RSVG "librsvg-2.0;cairo-pdf" "PDF output (librsvg, cairo)" librsvg2-dev)

# The CPU matrix product of gpuvis lab matmul through OpenBLAS.
gpuvis_pkg_adapter(GPUVIS_BLAS GPUVIS_HAVE_BLAS OPENBLAS openblas "CPU matrix product (OpenBLAS)" libopenblas-dev)
