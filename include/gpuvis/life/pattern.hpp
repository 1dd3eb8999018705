#pragma once
// Life pattern files: RLE (the format of LifeWiki and Golly: "x = 3, y = 3, rule = B3/S23" then
// runs of b/o ended by $ and !), plaintext .cells (! comments, '.' dead, 'O' alive) and black and
// white images (a cell is alive where the pixel is bright: grey >= 128).
#include <optional>
#include <string>

#include "gpuvis/life/board.hpp"
#include "gpuvis/life/rule.hpp"

namespace gpuvis::life {

struct Pattern {
  Board cells;               // the pattern's own bounding box
  std::optional<Rule> rule;  // from the RLE header, when it names one
  std::string name;          // "#N" line, when present
};

// The most cells (width x height) a pattern file may describe: 128 MiB as a board. A header that
// claims more is refused before anything is allocated (a larger board comes from --size).
inline constexpr long long max_pattern_cells = 1LL << 30;

// Malformed files raise ErrorCode::format naming the file, the line and the problem; patterns
// larger than max_side a side or max_pattern_cells cells are refused before allocation.
Pattern parse_rle(const std::string& text, const std::string& origin = "RLE");
Pattern parse_cells(const std::string& text, const std::string& origin = "cells");
// Chooses by extension: .rle, .cells (or .txt), otherwise an image file.
Pattern read_pattern(const std::string& path);

std::string format_rle(const Board& board, const Rule& rule, const std::string& comment = {});
// Writes the RLE file atomically (a temporary file renamed into place, so no partial file is left).
void write_rle(const std::string& path, const Board& board, const Rule& rule, const std::string& comment = {});

}  // namespace gpuvis::life
