#pragma once
// Reading and writing volumes (3D) and sequences of volumes (4D), stacked into one image as
// gpuvis/core/volume.hpp says:
//   * a folder of slices (images sorted by name, all of one size, channel count and sample type);
//   * a folder of such folders, one per frame (sorted by name, all of one shape): a sequence;
//   * a NIfTI-1 or NIfTI-2 file (.nii, .nii.gz) through nifticlib, when built with it (GPUVIS_NIFTI).
// Volumes are checked before anything large is allocated; bad input raises one Error naming the
// file and the problem.
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/volume.hpp"
#include "gpuvis/io/image_file.hpp"

namespace gpuvis {

struct Volume {
  AnyImage stacked;   // 8-bit, 16-bit or float samples; 1 to 4 channels
  VolumeShape shape;
  // Folders: the frames' folder names (sequences) and the slices' file names, to write results
  // under the same names. NIfTI: the input's header, reused for what is written from it.
  std::vector<std::string> frame_names, slice_names;
  std::shared_ptr<const void> nifti_header;
  int nifti_datatype = 0;  // the NIfTI file's own sample type (int16 etc. are read as float)
};

// True for .nii and .nii.gz paths.
bool is_volume_file(const std::string& path);
// A folder of slices, a folder of frame folders, or a volume file.
Volume read_volume(const std::string& path);
// Writes `data` (shaped as `like`) to a volume file (by extension) or into a folder with `like`'s
// names (their extension replaced by `extension` when given: float data needs ".pfm"); for NIfTI,
// `like`'s header when it came from NIfTI. Writes nothing when `data` and `like` differ in shape.
void write_volume(const std::string& path, const Volume& like, const AnyImage& data, const std::string& extension = "");
// Writes region labels shaped as `like`: a NIfTI file of int32 (intent "label"), or a folder of
// 16-bit slices (at most 65536 labels) named as `like`'s with `extension`.
void write_label_volume(const std::string& path, const Volume& like, HostView<const std::int32_t> labels, const std::string& extension);
// The files write_volume(path, like, data, extension) would create, to check them before any work.
std::vector<std::string> volume_outputs(const std::string& path, const Volume& like, const std::string& extension = "");

namespace nifti {  // through the NIfTI plugin (src/adapters/nifti), built when nifticlib is found
bool available();
Volume read(const std::string& path);
void write(const std::string& path, const Volume& like, const AnyImage& data);
void write_labels(const std::string& path, const Volume& like, HostView<const std::int32_t> labels);
}  // namespace nifti

}  // namespace gpuvis
