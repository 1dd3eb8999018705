// Volumes from folders of slices (and folders of those), and the dispatch to the NIfTI adapter.
#include "gpuvis/io/volume_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "gpuvis/core/error.hpp"

namespace gpuvis {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && std::equal(tail.rbegin(), tail.rend(), s.rbegin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

std::vector<fs::path> sorted_entries(const fs::path& dir, bool folders) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (folders ? e.is_directory() : (e.is_regular_file() && is_image_path(e.path().string()))) out.push_back(e.path());
  }
  if (ec) fail(ErrorCode::io, "cannot read the folder '" + dir.string() + "': " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

std::string shape_text(int w, int h, int c) { return std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c); }

// Physical memory, to refuse volumes that cannot fit before allocating them.
double memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

template <class T>
Image<T> stack_slices(const std::vector<fs::path>& files, AnyImage first, int w, int h, int c) {
  const double bytes = static_cast<double>(w) * h * c * sizeof(T) * static_cast<double>(files.size());
  const double have = memory_bytes();
  if (static_cast<double>(h) * static_cast<double>(files.size()) >= 2147483647.0 || (have > 0 && bytes * 4 > have))
    fail(ErrorCode::invalid_argument, "the volume of " + std::to_string(files.size()) + " slices of " + shape_text(w, h, c) +
                                          " needs about " + std::to_string(static_cast<long long>(bytes * 4 / 1e9)) +
                                          " GB to filter; this machine has " + std::to_string(static_cast<long long>(have / 1e9)) + " GB");
  Image<T> stack(w, h * static_cast<int>(files.size()), c);
  for (std::size_t z = 0; z < files.size(); ++z) {
    const AnyImage slice = z == 0 ? std::move(first) : read_image(files[z].string());
    const auto* img = std::get_if<Image<T>>(&slice);
    if (!img) fail(ErrorCode::invalid_argument, files[z].string() + " has another sample type than the volume's first slice");
    if (img->width() != w || img->height() != h || img->channels() != c)
      fail(ErrorCode::invalid_argument, files[z].string() + " is " + shape_text(img->width(), img->height(), img->channels()) +
                                            ", the volume's first slice " + shape_text(w, h, c) + ": every slice must have the same size");
    copy<T>(img->view(), stack.view().crop(0, static_cast<int>(z) * h, w, h));
  }
  return stack;
}

// Every slice file of a folder volume or sequence, frame-major.
std::vector<fs::path> slice_files(const fs::path& dir, Volume& v) {
  std::vector<fs::path> files = sorted_entries(dir, false);
  if (!files.empty()) {
    for (const auto& f : files) v.slice_names.push_back(f.filename().string());
    v.shape = {static_cast<int>(files.size()), 1};
    return files;
  }
  const std::vector<fs::path> frames = sorted_entries(dir, true);
  if (frames.empty()) fail(ErrorCode::io, "folder '" + dir.string() + "' holds no images and no folders of images");
  std::vector<fs::path> all;
  for (const auto& frame : frames) {
    const std::vector<fs::path> slices = sorted_entries(frame, false);
    if (slices.empty()) fail(ErrorCode::io, "frame folder '" + frame.string() + "' holds no images");
    if (!v.slice_names.empty() && slices.size() != v.slice_names.size())
      fail(ErrorCode::invalid_argument, "frame folder '" + frame.string() + "' holds " + std::to_string(slices.size()) +
                                            " slices, the first frame " + std::to_string(v.slice_names.size()) +
                                            ": every frame must have the same number of slices");
    if (v.slice_names.empty())
      for (const auto& f : slices) v.slice_names.push_back(f.filename().string());
    v.frame_names.push_back(frame.filename().string());
    all.insert(all.end(), slices.begin(), slices.end());
  }
  v.shape = {static_cast<int>(v.slice_names.size()), static_cast<int>(frames.size())};
  return all;
}

std::string with_extension(const std::string& name, const std::string& extension) {
  return extension.empty() ? name : fs::path(name).replace_extension(extension).string();
}

}  // namespace

bool is_volume_file(const std::string& path) { return ends_with(path, ".nii") || ends_with(path, ".nii.gz"); }

Volume read_volume(const std::string& path) {
  if (is_volume_file(path)) return nifti::read(path);
  std::error_code ec;
  if (!fs::is_directory(path, ec))
    fail(ErrorCode::io, "'" + path + "' is neither a folder of slices nor a volume file (.nii, .nii.gz)");
  Volume v;
  const std::vector<fs::path> files = slice_files(path, v);
  AnyImage first = read_image(files.front().string());
  std::visit(
      [&](auto& img) {
        using T = std::decay_t<decltype(img(0, 0))>;
        const int w = img.width(), h = img.height(), c = img.channels();
        v.stacked = stack_slices<T>(files, std::move(first), w, h, c);
      },
      first);
  return v;
}

std::vector<std::string> volume_outputs(const std::string& path, const Volume& like, const std::string& extension) {
  if (is_volume_file(path)) return {path};
  std::vector<std::string> out;
  if (like.slice_names.empty())  // from a volume file: slices named by number
    for (int t = 0; t < like.shape.frames; ++t)
      for (int z = 0; z < like.shape.depth; ++z) {
        char name[48];
        std::snprintf(name, sizeof name, "%s%04d%s", like.shape.frames > 1 ? ("t" + std::to_string(t) + "/").c_str() : "", z,
                      extension.empty() ? ".pgm" : extension.c_str());
        out.push_back((fs::path(path) / name).string());
      }
  else if (like.frame_names.empty())
    for (const auto& s : like.slice_names) out.push_back((fs::path(path) / with_extension(s, extension)).string());
  else
    for (const auto& f : like.frame_names)
      for (const auto& s : like.slice_names) out.push_back((fs::path(path) / f / with_extension(s, extension)).string());
  return out;
}

void write_volume(const std::string& path, const Volume& like, const AnyImage& data, const std::string& extension) {
  const auto [w, h, c] = std::visit([](const auto& img) { return std::tuple{img.width(), img.height(), img.channels()}; }, data);
  const auto [lw, lh, lc] = std::visit([](const auto& img) { return std::tuple{img.width(), img.height(), img.channels()}; }, like.stacked);
  require(w == lw && h == lh && like.shape.depth * like.shape.frames > 0 && h % (like.shape.depth * like.shape.frames) == 0,
          "write_volume: the data does not have the volume's shape");
  (void)lc;
  (void)c;
  if (is_volume_file(path)) return nifti::write(path, like, data);
  const std::vector<std::string> files = volume_outputs(path, like, extension);
  const int slice_h = h / (like.shape.depth * like.shape.frames);
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    fs::create_directories(fs::path(files[i]).parent_path(), ec);
    std::visit(
        [&](const auto& img) {
          using T = std::decay_t<decltype(img(0, 0))>;
          write_image(files[i], HostView<const T>(img.view().crop(0, static_cast<int>(i) * slice_h, img.width(), slice_h)));
        },
        data);
  }
}

void write_label_volume(const std::string& path, const Volume& like, HostView<const std::int32_t> labels, const std::string& extension) {
  if (is_volume_file(path)) return nifti::write_labels(path, like, labels);
  Image<std::uint16_t> wide(labels.width, labels.height);
  for (int y = 0; y < labels.height; ++y)
    for (int x = 0; x < labels.width; ++x) {
      const std::int32_t l = labels(x, y);
      if (l < 0 || l > 65535)
        fail(ErrorCode::invalid_argument, "more than 65536 regions do not fit 16-bit label slices: write the labels to a .nii file");
      wide(x, y) = static_cast<std::uint16_t>(l);
    }
  write_volume(path, like, AnyImage(std::move(wide)), extension);
}

}  // namespace gpuvis
