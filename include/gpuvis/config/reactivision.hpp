#pragma once
// reacTIVision.xml (spec §9.1): the settings gpuvis understands, read through the XML adapter
// (tinyxml2). Malformed XML or values are errors naming the line and attribute; settings gpuvis
// does not implement are reported as warnings, never silently ignored.
#include <string>
#include <vector>

#include "gpuvis/output/tuio.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/track/tracker.hpp"

namespace gpuvis::config {

struct ReacTIVisionConfig {
  pipeline::DetectorParams detector;  // trees, max_fid, threshold, fingers, blobs, <image equalize>
  std::vector<output::TuioTarget> tuio;
  output::TuioParams tuio_options;
  track::TrackerParams tracker;  // <filter fiducial finger blob>
  std::string camera_config;       // <camera config>: a camera.xml path, or "default" (search path)
  int threads = 0;                // <threshold threads>: CPU threads (0 = one per core, "max")
  std::vector<std::string> warnings;  // "file:line: <element attr>: not supported, ignored"
};

bool xml_available();  // built with the XML adapter
ReacTIVisionConfig load_reactivision_xml(const std::string& path);

// Writes the settings reacTIVision's keys change (spec §9.1's write-back list: threshold, finger,
// blob, fiducial yamaarashi/mirror, image equalize, calibration invert and grid) into `path`,
// through a temporary file renamed into place. An existing file keeps everything else (TUIO
// targets, comments, other attributes); a missing file is created with these elements only.
// `grid` is written as <calibration grid> when not empty. The threshold of gpuvis's own Bernsen
// method is written as type="bernsen" (size = half window, contrast = gate), which
// load_reactivision_xml reads back; reacTIVision 1.6 would take it for tiled Bernsen.
void save_reactivision_xml(const std::string& path, const ReacTIVisionConfig& config, const std::string& grid = {});

}  // namespace gpuvis::config
