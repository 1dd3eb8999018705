// Convolution on the GPU for std::uint8_t samples (convolve_impl.cuh).
#include "filters/cuda/convolve_impl.cuh"

namespace gpuvis::filters {

template void convolve_cuda<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const Kernel&, const ConvolveParams&);

namespace cuda_impl {
template void convolve<std::uint8_t>(DeviceView<const std::uint8_t>, DeviceView<std::uint8_t>, const Kernel&, const ConvolveParams&,
                            gpuvis::cuda::DeviceBuffer&, cudaStream_t);
}  // namespace cuda_impl

}  // namespace gpuvis::filters
