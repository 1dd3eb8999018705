// Built instead of src/adapters/config when tinyxml2 is not available.
#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::config {
bool xml_available() { return false; }
ReacTIVisionConfig load_reactivision_xml(const std::string& path) {
  fail(ErrorCode::unsupported, path + ": reading reacTIVision.xml is not built in (install libtinyxml2-dev and rebuild)");
}
}  // namespace gpuvis::config
