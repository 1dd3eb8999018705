// RLE and plaintext pattern files, and images as patterns.
#include "gpuvis/life/pattern.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"

namespace gpuvis::life {
namespace {

// Pattern files larger than this are refused before reading (the largest patterns on LifeWiki are
// a few MiB).
constexpr std::uintmax_t max_pattern_bytes = 256u << 20;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(ErrorCode::io, "cannot read pattern '" + path + "': not a file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(ErrorCode::io, "cannot read pattern '" + path + "': " + ec.message());
  if (size > max_pattern_bytes)
    fail(ErrorCode::format, "pattern '" + path + "' is " + std::to_string(size >> 20) + " MiB, larger than the 256 MiB a pattern file may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::io, "cannot open pattern '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

[[noreturn]] void bad(const std::string& origin, int line, const std::string& what) {
  fail(ErrorCode::format, origin + ":" + std::to_string(line) + ": " + what);
}

// Parses "x = 3, y = 4, rule = B3/S23" into its fields.
void parse_header(const std::string& line, const std::string& origin, int line_no, long long& w, long long& h,
                  std::optional<Rule>& rule) {
  std::string compact;
  for (char c : line)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  std::stringstream ss(compact);
  std::string item;
  bool has_x = false, has_y = false;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) bad(origin, line_no, "header item '" + item + "' is not key=value");
    const std::string key = lower(item.substr(0, eq)), value = item.substr(eq + 1);
    if (key == "x" || key == "y") {
      if (value.empty() || value.size() > 9 || !std::all_of(value.begin(), value.end(), ::isdigit))
        bad(origin, line_no, "header " + key + " = '" + value + "' is not a size");
      (key == "x" ? w : h) = std::stoll(value);
      (key == "x" ? has_x : has_y) = true;
    } else if (key == "rule") {
      try {
        rule = parse_rule(value);
      } catch (const Error& e) {
        bad(origin, line_no, e.what());
      }
    }  // other keys (Golly's "pos", "gen") carry nothing a board needs
  }
  if (!has_x || !has_y) bad(origin, line_no, "the header needs both x and y");
  if (w < 0 || h < 0 || w > max_side || h > max_side)
    bad(origin, line_no, "pattern size " + std::to_string(w) + "x" + std::to_string(h) + " is outside 0.." + std::to_string(max_side));
  if (w * h > max_pattern_cells)
    bad(origin, line_no, "pattern size " + std::to_string(w) + "x" + std::to_string(h) + " has more than the " +
                             std::to_string(max_pattern_cells) + " cells a pattern file may describe (give a larger --size instead)");
}

}  // namespace

Pattern parse_rle(const std::string& text, const std::string& origin) {
  Pattern p;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  long long w = -1, h = -1;
  // Header: comments (#N name, #C, #O, #r rule) before the "x = …" line.
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      if (line.size() > first + 1 && line[first + 1] == 'N') {
        p.name = line.substr(std::min(line.size(), first + 3));
      } else if (line.size() > first + 1 && (line[first + 1] == 'r')) {
        try {
          p.rule = parse_rule(line.substr(first + 2));
        } catch (const Error& e) {
          bad(origin, line_no, e.what());
        }
      }
      continue;
    }
    if (line[first] != 'x' && line[first] != 'X') bad(origin, line_no, "expected the header line 'x = WIDTH, y = HEIGHT' before the cells");
    parse_header(line, origin, line_no, w, h, p.rule);
    break;
  }
  if (w < 0) bad(origin, line_no, "no header line 'x = WIDTH, y = HEIGHT' found");
  p.cells = Board(static_cast<int>(std::max(1LL, w)), static_cast<int>(std::max(1LL, h)));
  long long x = 0, y = 0, count = 0;
  bool ended = false;
  while (!ended && std::getline(in, line)) {
    ++line_no;
    for (char c : line) {
      if (std::isspace(static_cast<unsigned char>(c))) continue;
      if (std::isdigit(static_cast<unsigned char>(c))) {
        count = count * 10 + (c - '0');
        if (count > 4LL * max_side) bad(origin, line_no, "run length is absurdly large");
        continue;
      }
      const long long n = count == 0 ? 1 : count;
      count = 0;
      if (c == 'b' || c == '.') {
        x += n;
      } else if (c == 'o' || c == 'A') {
        if (y >= h || x + n > w)
          bad(origin, line_no, "cells beyond the header's size " + std::to_string(w) + "x" + std::to_string(h));
        for (long long i = 0; i < n; ++i) p.cells.set(static_cast<int>(x + i), static_cast<int>(y), true);
        x += n;
      } else if (c == '$') {
        y += n;
        x = 0;
      } else if (c == '!') {
        ended = true;
        break;
      } else if (std::isalpha(static_cast<unsigned char>(c))) {
        bad(origin, line_no, std::string("cell state '") + c + "' belongs to a multi-state rule; only two-state patterns (b, o) are supported");
      } else {
        bad(origin, line_no, std::string("unexpected character '") + c + "' in the cells");
      }
    }
  }
  if (count != 0) bad(origin, line_no, "the cells end with a run length and no cell");
  if (!ended) bad(origin, line_no, "the cells do not end with '!' (the file may be truncated)");
  return p;
}

Pattern parse_cells(const std::string& text, const std::string& origin) {
  std::vector<std::string> rows;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  Pattern p;
  std::vector<int> row_lines;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '!') {
      if (line.rfind("!Name:", 0) == 0) p.name = line.substr(line.find_first_not_of(" ", 6) == std::string::npos ? line.size() : line.find_first_not_of(" ", 6));
      continue;
    }
    for (char c : line)
      if (c != '.' && c != 'O' && c != 'o' && c != '*' && c != ' ' && c != '\t')
        bad(origin, line_no, std::string("unexpected character '") + c + "' (plaintext patterns use '.' and 'O')");
    rows.push_back(line);
    row_lines.push_back(line_no);
  }
  while (!rows.empty() && rows.back().find_first_of("Oo*") == std::string::npos && rows.back().find('.') == std::string::npos) rows.pop_back();
  if (rows.empty()) fail(ErrorCode::format, origin + ": no cells found");
  std::size_t width = 1;
  for (const auto& r : rows) width = std::max(width, r.size());
  if (width > static_cast<std::size_t>(max_side) || rows.size() > static_cast<std::size_t>(max_side) ||
      width * rows.size() > static_cast<std::size_t>(max_pattern_cells))
    fail(ErrorCode::format, origin + ": pattern larger than " + std::to_string(max_side) + " cells per side or " +
                                std::to_string(max_pattern_cells) + " cells");
  p.cells = Board(static_cast<int>(width), static_cast<int>(rows.size()));
  for (std::size_t y = 0; y < rows.size(); ++y)
    for (std::size_t x = 0; x < rows[y].size(); ++x)
      if (rows[y][x] == 'O' || rows[y][x] == 'o' || rows[y][x] == '*') p.cells.set(static_cast<int>(x), static_cast<int>(y), true);
  return p;
}

Pattern read_pattern(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".rle") return parse_rle(read_text(path), path);
  if (ext == ".cells" || ext == ".txt") return parse_cells(read_text(path), path);
  if (!is_image_path(path))
    fail(ErrorCode::invalid_argument, "'" + path + "': unknown pattern format (use .rle, .cells, or an image: .png .pgm .ppm .jpg)");
  const Image<std::uint8_t> grey = read_grey8(path);
  Pattern p;
  p.cells = Board(grey.width(), grey.height());
  for (int y = 0; y < grey.height(); ++y)
    for (int x = 0; x < grey.width(); ++x)
      if (grey(x, y) >= 128) p.cells.set(x, y, true);
  return p;
}

std::string format_rle(const Board& board, const Rule& rule, const std::string& comment) {
  std::string out;
  if (!comment.empty()) out += "#C " + comment + "\n";
  out += "x = " + std::to_string(board.width()) + ", y = " + std::to_string(board.height()) + ", rule = " + to_string(rule) + "\n";
  std::string line;
  auto emit = [&](long long n, char tag) {
    if (n <= 0) return;
    const std::string token = (n > 1 ? std::to_string(n) : std::string()) + tag;
    if (line.size() + token.size() > 70) {
      out += line + "\n";
      line.clear();
    }
    line += token;
  };
  long long cursor_row = 0;  // the row the RLE cursor is on: '$' runs are written only when live cells follow
  for (int y = 0; y < board.height(); ++y) {
    // Runs of this row, trailing dead cells dropped.
    std::vector<std::pair<long long, char>> runs;
    int x = 0;
    while (x < board.width()) {
      const bool v = board.get(x, y);
      int e = x;
      while (e < board.width() && board.get(e, y) == v) ++e;
      runs.push_back({e - x, v ? 'o' : 'b'});
      x = e;
    }
    if (!runs.empty() && runs.back().second == 'b') runs.pop_back();
    if (runs.empty()) continue;
    emit(y - cursor_row, '$');
    cursor_row = y;
    for (const auto& [n, tag] : runs) emit(n, tag);
  }
  emit(1, '!');
  out += line + "\n";
  return out;
}

void write_rle(const std::string& path, const Board& board, const Rule& rule, const std::string& comment) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail(ErrorCode::io, "cannot write '" + path + "'");
    const std::string text = format_rle(board, rule, comment);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.flush();
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      fail(ErrorCode::io, "writing '" + path + "' failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    fail(ErrorCode::io, "cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace gpuvis::life
