#include "gpuvis/core/error.hpp"

#include <cstddef>

namespace gpuvis {

namespace {

constexpr std::size_t kLongQuote = 120, kKeepHead = 60, kKeepTail = 30, kMaxMessage = 2000;

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A cut that does not split a UTF-8 character: moved back to the character's first byte.
std::size_t char_start(const std::string& s, std::size_t at) {
  while (at > 0 && at < s.size() && continuation_byte(s[at])) --at;
  return at;
}

// A quote opens after the start, a space or an opening bracket, and closes before the end, a space
// or punctuation; so the apostrophe of "reacTIVision's" is never taken for one.
bool opens_quote(const std::string& s, std::size_t at) {
  return at == 0 || s[at - 1] == ' ' || s[at - 1] == '(' || s[at - 1] == '=' || s[at - 1] == '[' || s[at - 1] == '\n';
}
bool closes_quote(const std::string& s, std::size_t at) {
  if (at + 1 >= s.size()) return true;
  const char next = s[at + 1];
  return next == ' ' || next == ':' || next == ',' || next == ';' || next == '.' || next == ')' || next == ']' || next == '\n';
}

std::string shortened(const std::string& value) {
  const std::size_t head = char_start(value, kKeepHead), tail = char_start(value, value.size() - kKeepTail);
  return value.substr(0, head) + "..." + value.substr(tail) + "' (" + std::to_string(value.size()) + " characters)";
}

}  // namespace

std::string bounded_message(const std::string& message) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    std::size_t open = message.find('\'', i);
    while (open != std::string::npos && !opens_quote(message, open)) open = message.find('\'', open + 1);
    if (open == std::string::npos) break;
    std::size_t close = message.find('\'', open + 1);
    while (close != std::string::npos && !closes_quote(message, close)) close = message.find('\'', close + 1);
    if (close == std::string::npos) break;
    out.append(message, i, open + 1 - i);
    const std::string value = message.substr(open + 1, close - open - 1);
    if (value.size() > kLongQuote) out += shortened(value);
    else out += value + "'";
    i = close + 1;
  }
  if (i < message.size()) out.append(message, i);
  if (out.size() > kMaxMessage) out = out.substr(0, char_start(out, kMaxMessage)) + "... (message cut at 2000 characters)";
  return out;
}

}  // namespace gpuvis
