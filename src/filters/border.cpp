#include <string>

#include "gpuvis/core/error.hpp"
#include "gpuvis/filters/convolve.hpp"

namespace gpuvis::filters {

Border parse_border(const std::string& text) {
  Border b;
  if (text.rfind("constant", 0) == 0) {
    b.mode = BorderMode::constant;
    if (text.size() > 8) {
      if (text[8] != ':') fail(ErrorCode::invalid_argument, "border '" + text + "': write constant or constant:VALUE");
      try {
        std::size_t used = 0;
        b.value = std::stof(text.substr(9), &used);
        if (used != text.size() - 9) throw std::invalid_argument(text);
      } catch (const std::exception&) {
        fail(ErrorCode::invalid_argument, "border '" + text + "': the constant value is not a number");
      }
    }
    return b;
  }
  if (text == "replicate") b.mode = BorderMode::replicate;
  else if (text == "reflect") b.mode = BorderMode::reflect;
  else if (text == "reflect101") b.mode = BorderMode::reflect101;
  else if (text == "wrap") b.mode = BorderMode::wrap;
  else
    fail(ErrorCode::invalid_argument,
         "unknown border mode '" + text + "' (constant[:V], replicate, reflect, reflect101, wrap)");
  return b;
}

std::string to_string(const Border& b) {
  switch (b.mode) {
    case BorderMode::constant: return "constant:" + std::to_string(b.value);
    case BorderMode::replicate: return "replicate";
    case BorderMode::reflect: return "reflect";
    case BorderMode::reflect101: return "reflect101";
    case BorderMode::wrap: return "wrap";
  }
  return "?";
}

}  // namespace gpuvis::filters
