#include "pipeline/second_look/dim_print.hpp"

#include <algorithm>
#include <array>

namespace gpuvis::pipeline::second_look {
namespace {

// The black pixels connected to the border (4-neighbours), as 1 in a w x h mask; each pixel is
// marked when it is first reached, so none is queued twice.
std::vector<std::uint8_t> border_black(HostView<const std::uint8_t> binary) {
  const int w = binary.width, h = binary.height;
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(w) * h, 0);
  std::vector<int> todo;
  todo.reserve(mask.size());
  auto reach = [&](int x, int y) {
    const int k = y * w + x;
    if (!mask[k] && binary(x, y) == 0) mask[k] = 1, todo.push_back(k);
  };
  for (int x = 0; x < w; ++x) reach(x, 0), reach(x, h - 1);
  for (int y = 0; y < h; ++y) reach(0, y), reach(w - 1, y);
  while (!todo.empty()) {
    const int k = todo.back();
    todo.pop_back();
    const int y = k / w, x = k - y * w;
    if (x > 0) reach(x - 1, y);
    if (x + 1 < w) reach(x + 1, y);
    if (y > 0) reach(x, y - 1);
    if (y + 1 < h) reach(x, y + 1);
  }
  return mask;
}

// The mask grown by one pixel (4-neighbours), `times` times.
void grow_mask(std::vector<std::uint8_t>& mask, int w, int h, int times) {
  std::vector<std::uint8_t> before(mask.size());
  for (int t = 0; t < times; ++t) {
    before.swap(mask);
    for (int y = 0; y < h; ++y) {
      const std::uint8_t* up = y > 0 ? &before[(y - 1) * w] : &before[y * w];
      const std::uint8_t* row = &before[y * w];
      const std::uint8_t* down = y + 1 < h ? &before[(y + 1) * w] : row;
      std::uint8_t* out = &mask[y * w];
      for (int x = 0; x < w; ++x)
        out[x] = row[x] | up[x] | down[x] | (x > 0 ? row[x - 1] : 0) | (x + 1 < w ? row[x + 1] : 0);
    }
  }
}

}  // namespace

bool paint_out_table(HostView<const std::uint8_t> binary, HostView<std::uint8_t> grey, int print_x, int print_y, int grow) {
  const int w = binary.width, h = binary.height;
  std::vector<std::uint8_t> table = border_black(binary);
  if (std::none_of(table.begin(), table.end(), [](std::uint8_t t) { return t != 0; })) return false;
  if (print_x >= 0 && print_x < w && print_y >= 0 && print_y < h && table[static_cast<std::size_t>(print_y) * w + print_x]) return false;
  grow_mask(table, w, h, grow);
  // The paper: the level of the brightest tenth of what is not table.
  std::array<int, 256> histogram{};
  int rest = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (!table[y * w + x]) ++histogram[grey(x, y)], ++rest;
  if (rest == 0) return false;
  int paper = 0;
  for (int below = 0, tenth = rest * 9 / 10; below + histogram[paper] <= tenth;) below += histogram[paper++];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (table[y * w + x]) grey(x, y) = static_cast<std::uint8_t>(paper);
  return true;
}

void smooth_binomial_3x3(HostView<std::uint8_t> grey) {
  const int w = grey.width, h = grey.height;
  if (w == 0 || h == 0) return;
  std::vector<int> rows(static_cast<std::size_t>(w) * h);  // each row filtered, times 4
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      rows[static_cast<std::size_t>(y) * w + x] = grey(std::max(x - 1, 0), y) + 2 * grey(x, y) + grey(std::min(x + 1, w - 1), y);
  auto at = [&](int x, int y) { return rows[static_cast<std::size_t>(y) * w + x]; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      grey(x, y) = static_cast<std::uint8_t>((at(x, std::max(y - 1, 0)) + 2 * at(x, y) + at(x, std::min(y + 1, h - 1)) + 8) / 16);
}

}  // namespace gpuvis::pipeline::second_look
