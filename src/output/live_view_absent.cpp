// Built instead of src/adapters/view when the Boost headers are not available.
#include "gpuvis/core/error.hpp"
#include "gpuvis/output/live_view.hpp"

namespace gpuvis::output {
bool live_view_available() { return false; }
std::unique_ptr<LiveView> open_live_view(const LiveViewParams&) {
  fail(ErrorCode::unsupported, "the live view is not built in (install libboost-dev and rebuild)");
}
}  // namespace gpuvis::output
