#pragma once
// How cuda::StripPipeline (strip_pipeline.hpp) cuts an image into strips of rows: how high, how
// many in flight within a device memory budget, and the first and last strips' heights. Plain
// arithmetic, no CUDA, so that the CPU tests check it.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpuvis::cuda {

// How a pipeline cuts an image: strips of at most `strip_rows` output rows, `slots` of them in
// flight; edge_rows: the height of a short first and last strip, where strip_heights is asked for them.
struct StripPlan {
  int strip_rows = 0;  // 0: the budget cannot hold even one row (min_budget says what would)
  int slots = 1;
  int edge_rows = 0;
  std::size_t min_budget = 0;  // the smallest device budget that holds one strip of one row
};

// The output rows of each strip of an image of `height` rows. Uniform strips of plan.strip_rows
// (the last one shorter) unless `short_ends` and plan.edge_rows > 0; then a short first and last
// strip of edge_rows and the rows between in as few strips of at most strip_rows as hold them, of
// equal heights. The short ends shorten the pipeline's fill and drain, which nothing overlaps: the first
// upload waits for the first strip's host copy, and the last strip's kernel, download and copy out
// wait for nothing else.
inline std::vector<int> strip_heights(int height, const StripPlan& plan, bool short_ends) {
  std::vector<int> heights;
  const int strip = std::max(1, plan.strip_rows), edge = short_ends ? plan.edge_rows : 0;
  if (edge <= 0 || height <= 2 * edge + strip) {
    for (int y = 0; y < height; y += strip) heights.push_back(std::min(strip, height - y));
    return heights;
  }
  const int middle = height - 2 * edge, n = (middle + strip - 1) / strip;
  heights.push_back(edge);
  for (int i = 0; i < n; ++i) heights.push_back(middle / n + (i < middle % n ? 1 : 0));
  heights.push_back(edge);
  return heights;
}

// Strips of about `target_bytes` of input (one strip for a small image), within a device memory
// budget (0: none) that must hold, per slot in flight, the staged input rows (+2·halo), the output
// rows and `scratch_per_row` bytes per staged row. (Strips of 1 MiB, with copies cut into at least
// two pieces per thread, made 1080p calls slower on an H100 host: 1.1 against 0.7 ms.) An image of
// two or more strips gets a first and last strip of a quarter of that (StripPlan::edge_rows), which
// the pipeline uses between page-locked images.
inline StripPlan plan_strips(std::size_t row_in_bytes, std::size_t row_out_bytes, int height, int halo,
                             std::size_t scratch_per_row, std::size_t budget, std::size_t target_bytes = std::size_t{4} << 20) {
  constexpr int kMaxSlots = 3, kMaxStrips = 32;
  StripPlan plan;
  const std::size_t h = static_cast<std::size_t>(height);
  std::size_t strips = std::clamp<std::size_t>((h * row_in_bytes + target_bytes - 1) / target_bytes, 1, kMaxStrips);
  strips = std::min(strips, std::max<std::size_t>(1, h / std::max(4, 2 * halo)));  // halos stay a small share
  plan.strip_rows = static_cast<int>((h + strips - 1) / strips);
  auto set_edges = [&] {
    plan.edge_rows = plan.strip_rows < height ? std::min(plan.strip_rows, std::max({plan.strip_rows / 4, 4, 2 * halo})) : 0;
  };
  set_edges();
  plan.slots = static_cast<int>(std::min<std::size_t>(kMaxSlots, strip_heights(height, plan, true).size()));
  const std::size_t per_row = row_in_bytes + row_out_bytes + scratch_per_row;
  const std::size_t fixed = (row_in_bytes + scratch_per_row) * 2 * static_cast<std::size_t>(halo);
  plan.min_budget = fixed + per_row;
  if (budget == 0) return plan;
  for (; plan.slots >= 1; --plan.slots) {
    const std::size_t share = budget / static_cast<std::size_t>(plan.slots);
    if (share < fixed + per_row) continue;
    plan.strip_rows = std::min(plan.strip_rows, static_cast<int>(std::min<std::size_t>(h, (share - fixed) / per_row)));
    set_edges();
    return plan;
  }
  plan.slots = 1;
  plan.strip_rows = 0;
  plan.edge_rows = 0;
  return plan;
}

}  // namespace gpuvis::cuda
