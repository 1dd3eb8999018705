#pragma once
// camera.xml (spec §9.2, portvideo's format): which camera or file source to open, its capture
// size, rate and format, its settings, and a crop rectangle. Read through the XML adapter; errors
// name the file, line and attribute; settings gpuvis cannot honour are warnings.
#include <string>
#include <vector>

#include "gpuvis/source/frame_source.hpp"

namespace gpuvis::config {

struct CameraXml {
  std::string driver = "default";  // default (a V4L2 camera), file (a video) or folder (image files)
  std::string src;                 // the video or folder of the file and folder drivers
  source::CameraParams camera;    // <camera id>, <capture>, <settings>
  bool crop = false;               // a <frame> element is present
  source::Crop frame;
  std::vector<std::string> warnings;
};

CameraXml load_camera_xml(const std::string& path);

// Where reacTIVision looks for camera.xml when its config says "default": ./camera.xml,
// ~/.portvideo/camera.xml, then /usr/share, /usr/local/share, /opt/share, /opt/local/share
// (each /portvideo/camera.xml). Empty when there is none.
std::string find_camera_xml();

// The frame source a camera.xml describes (its crop applied).
std::unique_ptr<source::FrameSource> make_camera_xml_source(const CameraXml& cfg, bool loop);

}  // namespace gpuvis::config
