#pragma once
// How one image holds a volume (3D) or a sequence of volumes (4D): slices of one size stacked
// downwards, frame-major. Frame t's slice z is rows (t * depth + z) * h .. + h - 1 of the stacked
// image, h = height / (depth * frames): the memory order of x, y, z, t that volume files (NIfTI)
// use too.
namespace gpuvis {

struct VolumeShape {
  int depth = 1;   // slices per frame
  int frames = 1;  // volumes in the sequence
};

}  // namespace gpuvis
