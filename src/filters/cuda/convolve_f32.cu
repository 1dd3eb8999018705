// Convolution on the GPU for float samples (convolve_impl.cuh).
#include "filters/cuda/convolve_impl.cuh"

namespace gpuvis::filters {

template void convolve_cuda<float>(HostView<const float>, HostView<float>, const Kernel&, const ConvolveParams&);

namespace cuda_impl {
template void convolve<float>(DeviceView<const float>, DeviceView<float>, const Kernel&, const ConvolveParams&,
                            gpuvis::cuda::DeviceBuffer&, cudaStream_t);
}  // namespace cuda_impl

}  // namespace gpuvis::filters
