#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/decode/tree_set.hpp"
#include "gpuvis/io/read_limited.hpp"

namespace gpuvis::decode {
namespace detail {
const char* builtin_trees(const std::string& name);  // generated: builtin_trees.cpp
}

namespace {

// Parses the subtree starting at digits[pos] (whose depth is digits[pos]); returns its canonical
// string and advances pos past it.
std::string canonical_from(const std::string& d, std::size_t& pos) {
  const char own = d[pos++];
  std::vector<std::string> children;
  while (pos < d.size() && d[pos] == own + 1) children.push_back(canonical_from(d, pos));
  std::sort(children.begin(), children.end(), std::greater<>());
  std::string s(1, own);
  for (const auto& c : children) s += c;
  return s;
}

}  // namespace

std::string canonical_depth_string(const std::string& digits) {
  if (digits.empty() || digits[0] != '0') fail(ErrorCode::format, "the depth digits must start with the root '0'");
  for (std::size_t i = 1; i < digits.size(); ++i) {
    if (digits[i] < '1' || digits[i] > '9') fail(ErrorCode::format, "depth digits after the root must be 1-9");
    if (digits[i] > digits[i - 1] + 1) fail(ErrorCode::format, "a node is more than one level deeper than the node before it");
  }
  std::size_t pos = 0;
  std::string s = canonical_from(digits, pos);
  if (pos != digits.size()) fail(ErrorCode::format, "more than one root (a second '0')");
  return s;
}

int TreeSet::one_leaf_away(const std::string& key) const {
  // A leaf added as the first child of the node at `i` (pre-order) comes right after it, one
  // level deeper; every place and depth a leaf can take is one of these.
  int found = -1;
  for (std::size_t i = 1; i < key.size(); ++i) {
    if (key[i] >= '9') continue;
    std::string digits = key.substr(1);
    digits.insert(digits.begin() + static_cast<std::ptrdiff_t>(i), static_cast<char>(key[i] + 1));
    const auto it = ids.find(key.substr(0, 1) + canonical_depth_string(digits));
    if (it == ids.end() || it->second == found) continue;
    if (found >= 0) return -1;
    found = it->second;
  }
  return found;
}

TreeSet TreeSet::parse(const std::string& text, const std::string& origin) {
  TreeSet set;
  set.name = origin;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  bool any = false;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream tokens(line);
    std::string tok;
    while (tokens >> tok) {
      auto bad = [&](const std::string& why) {
        fail(ErrorCode::format, origin + ":" + std::to_string(line_no) + ": '" + tok + "': " + why);
      };
      if (tok[0] != 'w' && tok[0] != 'b') bad("an entry starts with the root colour, 'w' or 'b'");
      if (tok.size() < 3) bad("a tree needs a root and at least one child");
      std::string canonical;
      try {
        canonical = canonical_depth_string(tok.substr(1));
      } catch (const Error& e) {
        bad(e.what());
      }
      if (canonical != tok.substr(1)) bad("not in canonical left-heavy order (expected " + tok.substr(0, 1) + canonical + ")");
      if (set.keys.size() >= 65536) bad("too many entries (at most 65536)");
      const int id = set.size();
      any = true;
      // A duplicate uses up its ID but is not looked up (reacTIVision does the same).
      if (set.ids.count(tok) || tok == "w012211") {
        set.keys.emplace_back();
        continue;
      }
      set.keys.push_back(tok);
      set.ids.emplace(tok, id);
      const int nodes = static_cast<int>(tok.size()) - 1;
      const char deepest = *std::max_element(tok.begin() + 1, tok.end());
      const int height = deepest - '0';
      const int deep = static_cast<int>(std::count(tok.begin() + 1, tok.end(), deepest));
      if (set.ids.size() == 1) {
        set.min_nodes = set.max_nodes = nodes;
        set.min_height = set.max_height = height;
        set.min_deep = deep;
      } else {
        set.min_nodes = std::min(set.min_nodes, nodes);
        set.max_nodes = std::max(set.max_nodes, nodes);
        set.min_height = std::min(set.min_height, height);
        set.max_height = std::max(set.max_height, height);
        set.min_deep = std::min(set.min_deep, deep);
      }
    }
  }
  if (!any || set.ids.empty()) fail(ErrorCode::format, origin + ": no tree entries found");
  return set;
}

TreeSet TreeSet::builtin(const std::string& name) {
  const char* text = detail::builtin_trees(name);
  if (!text) fail(ErrorCode::invalid_argument, "unknown tree set '" + name + "' (use default, small, mini or a .trees file)");
  TreeSet set = parse(text, name);
  set.name = name;
  return set;
}

TreeSet TreeSet::load(const std::string& name_or_path) {
  if (detail::builtin_trees(name_or_path)) return builtin(name_or_path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_path, ec))
    fail(ErrorCode::io, "tree set '" + name_or_path + "' is neither default, small, mini nor a readable .trees file");
  // reacTIVision's largest tree set is a few KiB; 16 MiB leaves room for any real set.
  return parse(read_limited(name_or_path, std::size_t{16} << 20, "tree file"), name_or_path);
}

}  // namespace gpuvis::decode
