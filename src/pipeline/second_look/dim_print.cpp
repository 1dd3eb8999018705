#include "pipeline/second_look/dim_print.hpp"

#include <algorithm>

namespace gpuvis::pipeline::second_look {
namespace {

// The black pixels connected to the border (4-neighbours), as 1 in a w x h mask.
std::vector<std::uint8_t> border_black(HostView<const std::uint8_t> binary) {
  const int w = binary.width, h = binary.height;
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(w) * h, 0);
  std::vector<int> todo;
  for (int x = 0; x < w; ++x) todo.insert(todo.end(), {x, (h - 1) * w + x});
  for (int y = 0; y < h; ++y) todo.insert(todo.end(), {y * w, y * w + w - 1});
  while (!todo.empty()) {
    const int k = todo.back();
    todo.pop_back();
    const int x = k % w, y = k / w;
    if (mask[k] || binary(x, y) != 0) continue;
    mask[k] = 1;
    if (x > 0) todo.push_back(k - 1);
    if (x + 1 < w) todo.push_back(k + 1);
    if (y > 0) todo.push_back(k - w);
    if (y + 1 < h) todo.push_back(k + w);
  }
  return mask;
}

// The mask grown by one pixel (4-neighbours), `times` times.
void grow_mask(std::vector<std::uint8_t>& mask, int w, int h, int times) {
  std::vector<std::uint8_t> before;
  for (int t = 0; t < times; ++t) {
    before = mask;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int k = y * w + x;
        mask[k] |= (x > 0 && before[k - 1]) || (x + 1 < w && before[k + 1]) || (y > 0 && before[k - w]) || (y + 1 < h && before[k + w]);
      }
  }
}

}  // namespace

bool paint_out_table(HostView<const std::uint8_t> binary, HostView<std::uint8_t> grey, int grow) {
  const int w = binary.width, h = binary.height;
  std::vector<std::uint8_t> table = border_black(binary);
  if (std::none_of(table.begin(), table.end(), [](std::uint8_t t) { return t != 0; })) return false;
  grow_mask(table, w, h, grow);
  std::vector<std::uint8_t> rest;
  for (int k = 0; k < w * h; ++k)
    if (!table[k]) rest.push_back(grey(k % w, k / w));
  if (rest.empty()) return false;
  const auto tenth = rest.begin() + static_cast<std::ptrdiff_t>(rest.size() * 9 / 10);
  std::nth_element(rest.begin(), tenth, rest.end());
  const std::uint8_t paper = *tenth;
  for (int k = 0; k < w * h; ++k)
    if (table[k]) grey(k % w, k / w) = paper;
  return true;
}

}  // namespace gpuvis::pipeline::second_look
