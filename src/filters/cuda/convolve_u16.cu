// Convolution on the GPU for std::uint16_t samples (convolve_impl.cuh).
#include "filters/cuda/convolve_impl.cuh"

namespace gpuvis::filters {

template void convolve_cuda<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const Kernel&, const ConvolveParams&);

namespace cuda_impl {
template void convolve<std::uint16_t>(DeviceView<const std::uint16_t>, DeviceView<std::uint16_t>, const Kernel&, const ConvolveParams&,
                            gpuvis::cuda::DeviceBuffer&, cudaStream_t);
}  // namespace cuda_impl

}  // namespace gpuvis::filters
