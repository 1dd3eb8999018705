// Rule notation: B/S ("B3/S23"), S/B ("23/3") and a few names.
#include "gpuvis/life/rule.hpp"

#include <algorithm>
#include <bit>
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

// The state count of a Generations rule's third part ("c3" or "3"): 2..256.
std::uint16_t parse_states(std::string_view part, std::string_view whole) {
  if (!part.empty() && part.front() == 'c') part.remove_prefix(1);
  int c = 0;
  for (char ch : part) {
    if (ch < '0' || ch > '9' || c > 1000)
      fail(ErrorCode::invalid_argument, "rule '" + std::string(whole) + "': the third part is the number of states (2-256), e.g. B2/S/C3");
    c = c * 10 + (ch - '0');
  }
  if (part.empty() || c < 2 || c > 256)
    fail(ErrorCode::invalid_argument, "rule '" + std::string(whole) + "': a Generations rule has 2 to 256 states, e.g. B2/S/C3");
  return static_cast<std::uint16_t>(c);
}

// The two-state part: "b3/s23", "b3s23", "s23/b3" or survival/birth "23/3".
Rule parse_two_state(std::string_view t, std::string_view text) {
  Rule rule{0, 0};
  if (t.find('b') != std::string::npos || t.find('s') != std::string::npos) {
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
    const auto slash = t.find('/');
    if (slash == std::string::npos)
      fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': expected B3/S23 or survival/birth as 23/3");
    rule.survival = digits_to_mask(t.substr(0, slash), text);
    rule.birth = digits_to_mask(t.substr(slash + 1), text);
  }
  return rule;
}

}  // namespace

int age_planes(const Rule& rule) { return rule.states <= 2 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(rule.states - 2))); }

Rule parse_rule(std::string_view text) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.empty()) fail(ErrorCode::invalid_argument, "empty rule (expected e.g. B3/S23 or 23/3)");
  if (t == "conway" || t == "life") return conway;
  if (t == "highlife") return parse_rule("B36/S23");
  if (t == "seeds") return parse_rule("B2/S");
  if (t == "daynight" || t == "day&night") return parse_rule("B3678/S34678");

  if (t == "brianbrain" || t == "brian'sbrain") return parse_rule("/2/3");
  if (t == "starwars") return parse_rule("345/2/4");

  // A Generations rule's third part follows the second slash: "b2/s/c3", "/2/3", "345/2/4".
  std::uint16_t states = 2;
  const auto slashes = std::count(t.begin(), t.end(), '/');
  if (slashes > 2) fail(ErrorCode::invalid_argument, "rule '" + std::string(text) + "': at most three parts, e.g. B2/S/C3");
  std::string_view two = t;
  if (slashes == 2) {
    const auto last = t.rfind('/');
    states = parse_states(std::string_view(t).substr(last + 1), text);
    two = std::string_view(t).substr(0, last);
  }
  Rule rule = parse_two_state(two, text);
  rule.states = states;
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
  if (rule.states > 2) s += "/C" + std::to_string(rule.states);
  return s;
}

}  // namespace gpuvis::life
