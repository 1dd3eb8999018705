// Built instead of src/adapters/config when tinyxml2 is not available.
#include "gpuvis/config/camera.hpp"
#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::config {
bool xml_available() { return false; }
ReacTIVisionConfig load_reactivision_xml(const std::string& path) {
  fail(ErrorCode::unsupported, path + ": reading reacTIVision.xml is not built in (install libtinyxml2-dev and rebuild)");
}
void save_reactivision_xml(const std::string& path, const ReacTIVisionConfig&, const std::string&) {
  fail(ErrorCode::unsupported, path + ": writing reacTIVision.xml is not built in (install libtinyxml2-dev and rebuild)");
}
CameraXml load_camera_xml(const std::string& path) {
  fail(ErrorCode::unsupported, path + ": reading camera.xml is not built in (install libtinyxml2-dev and rebuild)");
}
std::string find_camera_xml() { return {}; }
std::unique_ptr<source::FrameSource> make_camera_xml_source(const CameraXml&, bool) {
  fail(ErrorCode::unsupported, "camera.xml is not built in (install libtinyxml2-dev and rebuild)");
}
}  // namespace gpuvis::config
