#pragma once
// A copy whose destination is written with streaming (non-temporal) stores where the CPU has them:
// the stores go to memory without first reading the destination's cache lines and without
// evicting the cache for data nobody reads soon. For large host copies into buffers that only the
// GPU's DMA reads next (pinned staging), which are bound by the host's memory: an ordinary copy
// reads each destination line before writing it, a third more memory traffic. (A filter's output
// image is written with ordinary stores: its caller reads it next, from the cache.)
#include <cstddef>

namespace gpuvis {

// Copies `bytes` from src to dst (which must not overlap) and makes the stores visible to other
// threads and to devices reading the memory before it returns.
void copy_streaming(void* dst, const void* src, std::size_t bytes);

}  // namespace gpuvis
