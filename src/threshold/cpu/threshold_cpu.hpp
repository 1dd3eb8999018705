#pragma once
// The CPU backend's entry points (multi-threaded; output independent of the thread count), for
// the thresholder, the tests and the benchmarks. Users call threshold::threshold or a Thresholder.
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {

void bernsen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BernsenParams& p);
void tiled_bernsen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const TiledParams& p);
void bradley_roth_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BradleyRothParams& p);
// `workspace` (optional) holds the sharpened frame between calls when p.sharpen > 0.
void threshold_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& p,
                   Image<std::uint8_t>* workspace = nullptr);
// The sharpening alone (Params::sharpen's definition): dst = sharpened src, k in 1..4.
void sharpen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, int k);
// The textbook definition of full Bernsen, O(h^2) per pixel. Only for tests and benchmarks.
void bernsen_naive(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BernsenParams& p);

}  // namespace gpuvis::threshold
