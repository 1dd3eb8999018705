#include <string>

#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {

Method parse_method(std::string_view name) {
  if (name == "bernsen") return Method::bernsen;
  if (name == "tiled" || name == "tb") return Method::tiled;
  if (name == "bradley-roth" || name == "br") return Method::bradley_roth;
  fail(ErrorCode::invalid_argument,
       "unknown threshold method '" + std::string(name) + "' (use bernsen, tiled or bradley-roth)");
}

std::string_view to_string(Method method) {
  switch (method) {
    case Method::bernsen: return "bernsen";
    case Method::tiled: return "tiled";
    case Method::bradley_roth: return "bradley-roth";
  }
  return "?";
}

void validate(const Params& p) {
  auto in_range = [](int v, int lo, int hi) { return v >= lo && v <= hi; };
  require(in_range(p.sharpen, 0, 4), "threshold: sharpen must be between 0 and 4, got " + std::to_string(p.sharpen));
  switch (p.method) {
    case Method::bernsen:
      require(in_range(p.bernsen.half_window, 1, 255),
              "bernsen: window half-width h must be between 1 and 255, got " + std::to_string(p.bernsen.half_window));
      require(in_range(p.bernsen.gate, 0, 255), "bernsen: gate must be between 0 and 255, got " + std::to_string(p.bernsen.gate));
      break;
    case Method::tiled:
      require(in_range(p.tiled.tile, 2, 4096), "tiled: tile size must be between 2 and 4096, got " + std::to_string(p.tiled.tile));
      require(in_range(p.tiled.gradient, 0, 255),
              "tiled: gradient gate must be between 0 and 255, got " + std::to_string(p.tiled.gradient));
      break;
    case Method::bradley_roth:
      require(in_range(p.bradley_roth.size, 1, 4096),
              "bradley-roth: window half-size must be at least 1, got " + std::to_string(p.bradley_roth.size));
      require(p.bradley_roth.bias >= 0.0f && p.bradley_roth.bias <= 1.0f,
              "bradley-roth: bias must be between 0 and 1 (reacTIVision's gradient/100), got " +
                  number_text(p.bradley_roth.bias));
      require(in_range(p.bradley_roth.contrast, 0, 255),
              "bradley-roth: contrast (minimum local mean) must be between 0 and 255, got " +
                  std::to_string(p.bradley_roth.contrast));
      break;
  }
}

}  // namespace gpuvis::threshold
