// camera.xml through the XML adapter (tinyxml2).
#include "fuzz_support.hpp"
#include "gpuvis/config/camera.hpp"
#include "gpuvis/config/reactivision.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!gpuvis::config::xml_available()) return 0;
  const std::string path = gpuvis::fuzz::as_file(data, size, ".xml");
  gpuvis::fuzz::expect_clean([&] { gpuvis::config::load_camera_xml(path); });
  return 0;
}
