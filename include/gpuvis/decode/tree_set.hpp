#pragma once
// Amoeba tree sets: line N of a .trees file is fiducial ID N. Each entry is a colour letter (w/b,
// the root's colour) followed by the pre-order depth digits of the symbol's region tree in
// canonical left-heavy order (spec §4.4, data/trees/README.md).
#include <string>
#include <unordered_map>
#include <vector>

namespace gpuvis::decode {

struct TreeSet {
  std::string name;
  std::vector<std::string> keys;  // by ID; empty where a duplicate was rejected
  std::unordered_map<std::string, int> ids;  // key -> ID

  // Search parameters derived from the accepted keys (spec §4.1).
  int min_nodes = 0, max_nodes = 0;  // node counts including the root
  int min_height = 0, max_height = 0;
  int min_deep = 0;  // fewest nodes at the maximum depth
  // reacTIVision's <fiducial max_fid> (spec §5.5): a symbol whose ID is above it is reported as a
  // fuzzy candidate (id -1), which can move an object but never create one. 0: no limit.
  int max_id = 0;
  // reacTIVision's <fiducial yamaarashi> and <fiducial mirror> (spec §6.10): decode yamaarashi
  // symbols (IDs 0-65535 from a ring of bits around the core w012211), reading the ring
  // counter-clockwise when `mirror` (a camera that sees the prints mirrored).
  bool yamaarashi = false, mirror = false;

  int tmin() const { return min_nodes - 1; }           // root descendants, exact match
  int tmax() const { return max_nodes - 1; }
  int rmin() const { return tmin() - 2 > 3 ? tmin() - 2 : 3; }  // fuzzy lower bound
  int min_leafs() const { return min_deep - 1; }
  int cap() const { return max_nodes; }                 // adjacency cap for segmentation
  int size() const { return static_cast<int>(keys.size()); }

  // "default", "small", "mini" (built in), or a path to a .trees file. Malformed files raise
  // ErrorCode::format naming the file, the line and the problem.
  static TreeSet load(const std::string& name_or_path);
  static TreeSet builtin(const std::string& name);
  static TreeSet parse(const std::string& text, const std::string& origin);

  // The ID of the one symbol whose tree is `key`'s (colour letter and canonical depth digits) with
  // one leaf more, anywhere: -1 when no symbol is, or several are (a tree one leaf short of two
  // symbols says nothing about which of them it was).
  int one_leaf_away(const std::string& key) const;
};

// The canonical left-heavy form of a depth string (digits only, root '0' first): children's
// subtrees sorted in descending byte order. Throws ErrorCode::format if the digits do not describe
// a tree (first digit 0, each next digit at most one deeper than the previous).
std::string canonical_depth_string(const std::string& digits);

}  // namespace gpuvis::decode
