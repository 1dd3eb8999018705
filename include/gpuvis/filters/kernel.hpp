#pragma once
// Convolution kernels: parsing (inline, file, named), flipping, and the rank-1 test that picks the
// separable path.
#include <string>
#include <vector>

namespace gpuvis::filters {

struct Kernel {
  int width = 0, height = 0;   // odd, anchor at the centre
  std::vector<float> weights;  // row-major, height x width
  float at(int x, int y) const { return weights[static_cast<std::size_t>(y) * width + x]; }
};

// Limits: 2D kernels up to 31x31; separable (rank-1) kernels up to 127 taps per direction.
constexpr int kMaxKernel2D = 31;
constexpr int kMaxKernel1D = 127;

// Parses a kernel:
//  * inline numbers, rows separated by ';' or newlines, values by ',' or spaces: "1,2,1;2,4,2;1,2,1"
//    (a trailing "/N" divides every weight by N: "1,2,1;2,4,2;1,2,1/16");
//  * "@FILE" (or an existing file's path): the same text format, '#' starts a comment;
//  * names: gaussian:sigma=S[,size=N] (separable, normalised), box:N or box:WxH (mean),
//    sobel-x, sobel-y, laplacian, sharpen.
// Errors (ErrorCode::invalid_argument) name the problem: empty, even-sized, ragged, too large,
// not a number, non-finite, unknown name.
Kernel parse_kernel(const std::string& spec);

// The normalised Gaussian of standard deviation `sigma` pixels, size x size (odd; 0: 2 ceil(3 sigma)
// + 1), what "gaussian:sigma=S[,size=N]" parses to.
Kernel gaussian_kernel(double sigma, int size = 0);

Kernel flipped(const Kernel& k);  // rotated by 180°: correlation <-> convolution

// A rank-1 kernel as column x row vectors (k(x, y) = column[y] * row[x]); `separable` is false when
// the kernel is not rank 1 within `tolerance` (relative to its largest weight).
struct SeparableKernel {
  bool separable = false;
  std::vector<float> row, column;
};
SeparableKernel separate(const Kernel& k, float tolerance = 1e-6f);

}  // namespace gpuvis::filters
