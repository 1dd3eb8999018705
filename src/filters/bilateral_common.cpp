#include <string>

#include "gpuvis/filters/bilateral.hpp"

namespace gpuvis::filters {

void validate(const BilateralParams& p) {
  require(p.radius >= 1 && p.radius <= 64, "bilateral: radius must be between 1 and 64, got " + std::to_string(p.radius));
  require(p.sigma_space > 0, "bilateral: sigma-space must be > 0, got " + number_text(p.sigma_space));
  require(p.adaptive || p.sigma_range > 0, "bilateral: sigma-range must be > 0, got " + number_text(p.sigma_range));
}

}  // namespace gpuvis::filters
