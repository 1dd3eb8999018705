#include "adapters/nifti/header_check.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "gpuvis/core/error.hpp"

namespace gpuvis::nifti {
namespace {

constexpr int kSize1 = 348, kSize2 = 540;

// The header's bytes in the file's byte order, read as this machine's.
class Fields {
 public:
  Fields(const unsigned char* bytes, bool swap) : bytes_(bytes), swap_(swap) {}
  template <class T>
  T at(std::size_t offset) const {
    unsigned char b[sizeof(T)];
    std::memcpy(b, bytes_ + offset, sizeof(T));
    if (swap_) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }

 private:
  const unsigned char* bytes_;
  bool swap_;
};

// Bits per sample of each NIfTI datatype code (0: not a code).
int bits_of(int datatype) {
  switch (datatype) {
    case 2: case 256: return 8;                      // uint8, int8
    case 4: case 512: return 16;                     // int16, uint16
    case 8: case 16: case 768: return 32;            // int32, float32, uint32
    case 64: case 1024: case 1280: case 32: return 64;  // float64, int64, uint64, complex64
    case 128: return 24;                             // rgb24
    case 2304: return 32;                            // rgba32
    case 1536: case 1792: return 128;                // float128, complex128
    case 2048: return 256;                           // complex256
    default: return 0;
  }
}

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  fail(ErrorCode::format, path + ": not a readable NIfTI-1 or NIfTI-2 file (" + why + ")");
}

// Where the fields checked lie in each version's header (NIfTI-1: int16 dims, a float offset;
// NIfTI-2: int64 dims and offset).
struct Layout {
  const char* version;
  std::size_t magic_at, magic_size;
  const char* magic_a;
  const char* magic_b;
  std::size_t dims_at, datatype_at, bitpix_at, offset_at;
};
constexpr Layout kNifti1{"NIfTI-1", 344, 4, "n+1", "ni1", 40, 70, 72, 108};
constexpr Layout kNifti2{"NIfTI-2", 4, 8, "n+2\0\r\n\032\n", "ni2\0\r\n\032\n", 16, 12, 14, 168};

// Dim: the dimensions' type; Offset: vox_offset's.
template <class Dim, class Offset>
void check_fields(const std::string& path, const unsigned char* bytes, const Fields& f, const Layout& l) {
  if (std::memcmp(bytes + l.magic_at, l.magic_a, l.magic_size) != 0 && std::memcmp(bytes + l.magic_at, l.magic_b, l.magic_size) != 0)
    bad(path, std::string("the ") + l.version + " magic must be " + l.magic_a + " or " + l.magic_b);
  Dim dims[8];
  for (int i = 0; i < 8; ++i) dims[i] = f.at<Dim>(l.dims_at + sizeof(Dim) * static_cast<std::size_t>(i));
  if (dims[0] < 1 || dims[0] > 7) bad(path, "dim[0] must be 1 to 7");
  for (int i = 1; i <= dims[0]; ++i)
    if (dims[i] < 1 || static_cast<std::int64_t>(dims[i]) > (std::int64_t{1} << 30)) bad(path, "dim[" + std::to_string(i) + "] must be 1 to 2^30");
  const int datatype = f.at<std::int16_t>(l.datatype_at), bitpix = f.at<std::int16_t>(l.bitpix_at), bits = bits_of(datatype);
  if (bits == 0) bad(path, "unknown datatype " + std::to_string(datatype));
  if (bitpix != bits) bad(path, "bitpix " + std::to_string(bitpix) + " does not match the datatype's " + std::to_string(bits));
  const double offset = static_cast<double>(f.at<Offset>(l.offset_at));
  if (!std::isfinite(offset) || offset < 0 || offset > 1e15) bad(path, "the data offset vox_offset is out of range");
}

}  // namespace

void check_header(const std::string& path) {
  // gzread reads plain files as they are, so one reader serves .nii and .nii.gz.
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) fail(ErrorCode::io, "cannot open NIfTI file '" + path + "'");
  std::array<unsigned char, kSize2> bytes{};
  const int got = gzread(file.get(), bytes.data(), static_cast<unsigned>(bytes.size()));
  if (got < 4) bad(path, "the header is cut short");
  std::int32_t size = 0;
  std::memcpy(&size, bytes.data(), 4);
  bool swap = false;
  if (size != kSize1 && size != kSize2) {
    swap = true;
    size = Fields(bytes.data(), true).at<std::int32_t>(0);
    if (size != kSize1 && size != kSize2) bad(path, "the header size must be 348 (NIfTI-1) or 540 (NIfTI-2)");
  }
  if (got < size) bad(path, "the header is cut short");
  const Fields f(bytes.data(), swap);
  if (size == kSize1) check_fields<std::int16_t, float>(path, bytes.data(), f, kNifti1);
  else check_fields<std::int64_t, std::int64_t>(path, bytes.data(), f, kNifti2);
}

}  // namespace gpuvis::nifti
