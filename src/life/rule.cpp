// Rule notation: B/S ("B3/S23"), S/B ("23/3") and a few names.
#include "gpuvis/life/rule.hpp"

#include <algorithm>
#include <cctype>

#include "gpuvis/core/error.hpp"

namespace gpuvis::life {
namespace {

std::uint16_t digits_to_mask(std::string_view digits, std::string_view whole) {
  std::uint16_t mask = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') fail(ErrorCode::invalid_argument, "rule '" + std::string(whole) + "': '" + c + "' is not a neighbour count (0-8)");
    if (c == '9') fail(ErrorCode::invalid_argument, "rule '" + std::string(whole) + "': a cell has at most 8 neighbours");
    mask |= static_cast<std::uint16_t>(1u << (c - '0'));
  }
  return mask;
}

}  // namespace

Rule parse_rule(std::string_view text) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.empty()) fail(ErrorCode::invalid_argument, "empty rule (expected e.g. B3/S23 or 23/3)");
  if (t == "conway" || t == "life") return conway;
  if (t == "highlife") return parse_rule("B36/S23");
  if (t == "seeds") return parse_rule("B2/S");
  if (t == "daynight" || t == "day&night") return parse_rule("B3678/S34678");

  const auto parts = std::count(t.begin(), t.end(), '/');
  if (parts > 1)
    fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': Generations rules (a third '/C' part) are not supported; use a two-state B/S rule");
  Rule rule{0, 0};
  if (t.find('b') != std::string::npos || t.find('s') != std::string::npos) {
    // B/S notation: "b3/s23", "b3s23", "s23/b3".
    std::string_view rest = t;
    bool seen_b = false, seen_s = false;
    while (!rest.empty()) {
      if (rest.front() == '/') { rest.remove_prefix(1); continue; }
      const char tag = rest.front();
      if (tag != 'b' && tag != 's')
        fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': expected B<digits>/S<digits>");
      rest.remove_prefix(1);
      const auto end = std::min(rest.size(), rest.find_first_of("bs/"));
      const auto mask = digits_to_mask(rest.substr(0, end), text);
      rest.remove_prefix(end);
      bool& seen = tag == 'b' ? seen_b : seen_s;
      if (seen) fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': '" + static_cast<char>(std::toupper(tag)) + "' given twice");
      seen = true;
      (tag == 'b' ? rule.birth : rule.survival) = mask;
    }
    if (!seen_b || !seen_s) fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': needs both a B part and an S part (e.g. B3/S23)");
  } else {
    // S/B notation, as the classic "23/3".
    const auto slash = t.find('/');
    if (slash == std::string::npos)
      fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': expected B3/S23 or survival/birth as 23/3");
    rule.survival = digits_to_mask(std::string_view(t).substr(0, slash), text);
    rule.birth = digits_to_mask(std::string_view(t).substr(slash + 1), text);
  }
  if (rule.birth & 1u)
    fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': B0 rules (births with no neighbours) are not supported");
  return rule;
}

std::string to_string(const Rule& rule) {
  std::string s = "B";
  for (int k = 0; k <= 8; ++k)
    if (rule.birth >> k & 1u) s += static_cast<char>('0' + k);
  s += "/S";
  for (int k = 0; k <= 8; ++k)
    if (rule.survival >> k & 1u) s += static_cast<char>('0' + k);
  return s;
}

}  // namespace gpuvis::life
