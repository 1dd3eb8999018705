#include "gpuvis/core/build_info.hpp"
#include "gpuvis_build_config.hpp"

namespace gpuvis {

std::string version() { return GPUVIS_VERSION_STRING; }
bool built_with_cuda() { return GPUVIS_WITH_CUDA != 0; }
bool built_with_codecs() { return GPUVIS_WITH_CODECS != 0; }
std::string cuda_architectures() { return GPUVIS_CUDA_ARCHS_STRING; }
std::string build_type() { return GPUVIS_BUILD_TYPE_STRING; }

}  // namespace gpuvis
