#pragma once
// The build options that make the filters' OpenCL programs (samples.cl and each kernel) read and
// write samples of type T: SAMPLE, its largest value and whether it is an integer.
#include <cstdint>
#include <string>
#include <type_traits>

namespace gpuvis::filters {

template <class T>
std::string opencl_sample_options() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return "-D SAMPLE=uchar -D SAMPLE_MAX=255 -D INTEGER=1";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "-D SAMPLE=ushort -D SAMPLE_MAX=65535 -D INTEGER=1";
  else return "-D SAMPLE=float -D SAMPLE_MAX=0 -D INTEGER=0";
}

}  // namespace gpuvis::filters
