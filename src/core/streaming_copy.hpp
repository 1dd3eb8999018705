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

// Copies `bytes` from src to dst with ordinary stores, then moves src's cache lines out of this
// core's private caches (CLDEMOTE where the CPU has it, else CLFLUSHOPT; nothing elsewhere). For
// pinned buffers that the GPU's DMA writes next: a DMA write to lines that a core still holds
// must take them back from it first. Measured on an H200's 16-thread Xeon host (2026-11-27,
// bench/probe_dma.cpp): a 4 MiB device-to-host copy into a pinned buffer that all threads had just
// read took 183 µs, 89 µs after the lines were demoted or flushed (as into one nobody had read);
// demoting them cost the reading threads 36 → 51 µs, flushing 36 → 80 µs.
void copy_and_release_source(void* dst, const void* src, std::size_t bytes);

}  // namespace gpuvis
