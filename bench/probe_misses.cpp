// probe_misses: why the camera table's symbols are missed. For one kind of frame (the camera
// table's names, bench/camera_frames.hpp) it runs the default detector over the frames as
// bench_detect does and, for every print not found, prints its size, where it lies, the root
// candidates and second looks nearest to it and what became of them; with a folder it also writes
// the grey patch around each miss (PGM) to look at. Every ID reported where no print of it is
// ("FALSE") is listed with the print nearest it and the look that read it.
//
//   probe_misses KIND-SUBSTRING [FRAMES=30] [SEED_BASE=5000] [PATCH_DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "camera_frames.hpp"

using namespace gpuvis;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: probe_misses KIND-SUBSTRING [FRAMES=30] [SEED_BASE=5000] [PATCH_DIR]\n");
    return 2;
  }
  const std::string kind = argv[1];
  const int frames = argc > 2 ? std::atoi(argv[2]) : 30;
  const auto seed_base = static_cast<std::uint32_t>(argc > 3 ? std::stoul(argv[3]) : 5000);
  const std::string patch_dir = argc > 4 ? argv[4] : "";
  synth::Generator gen(std::string(GPUVIS_SOURCE_DIR) + "/data/amoeba/symbols");
  for (const auto& cond : bench::camera_conditions()) {
    if (cond.name.find(kind) == std::string::npos) continue;
    pipeline::Detector det{pipeline::DetectorParams{}};
    int total = 0, missed = 0, false_ids = 0;
    for (int i = 0; i < frames; ++i) {
      synth::SceneParams q = bench::camera_frame(i, seed_base);
      cond.apply(q, frames > 1 ? static_cast<double>(i) / (frames - 1) : 0.0);
      const synth::Scene s = gen.make(q);
      const auto& d = det.detect(s.image.view());
      // Every ID reported where no print of it is: the print nearest it, and the look that read it.
      for (const auto& f : d.fiducials) {
        if (f.fuzzy()) continue;
        const bool true_id = std::any_of(s.symbols.begin(), s.symbols.end(), [&](const auto& sym) {
          return sym.id == f.id && std::hypot(f.x - sym.x, f.y - sym.y) < sym.size / 4;
        });
        if (true_id) continue;
        ++false_ids;
        const auto nearest = std::min_element(s.symbols.begin(), s.symbols.end(), [&](const auto& a, const auto& b) {
          return std::hypot(f.x - a.x, f.y - a.y) < std::hypot(f.x - b.x, f.y - b.y);
        });
        std::printf("frame %d FALSE id %d at (%.0f, %.0f) root size %d", i, f.id, f.x, f.y, f.root_size);
        if (nearest != s.symbols.end())
          std::printf(": print id %d size %.0f %.1f px away", nearest->id, nearest->size, std::hypot(f.x - nearest->x, f.y - nearest->y));
        std::printf("\n");
        for (const auto& l : d.second_looks)
          if (l.id == f.id && std::hypot(l.x - f.x, l.y - f.y) < f.root_size)
            std::printf("   look (%s) at (%.0f, %.0f) size %d: anisotropy %.2f length %.1f -> id %d, %s\n", l.kind, l.x, l.y, l.size,
                        l.anisotropy, l.length, l.id, l.outcome);
      }
      for (const auto& sym : s.symbols) {
        ++total;
        const bool found = std::any_of(d.fiducials.begin(), d.fiducials.end(), [&](const decode::Fiducial& f) {
          return f.id == sym.id && std::hypot(f.x - sym.x, f.y - sym.y) < sym.size / 4;
        });
        if (found) continue;
        ++missed;
        std::printf("frame %d id %d size %.0f at (%.0f, %.0f) angle %.0f\n", i, sym.id, sym.size, sym.x, sym.y,
                    sym.angle * 180 / 3.14159265);
        for (const auto& r : d.roots)
          if (std::hypot(r.x - sym.x, r.y - sym.y) < sym.size)
            std::printf("   root candidate at (%.0f, %.0f) size %d colour %d\n", r.x, r.y, r.size, r.colour);
        for (const auto& f : d.fiducials)
          if (std::hypot(f.x - sym.x, f.y - sym.y) < sym.size)
            std::printf("   fiducial id %d at (%.0f, %.0f) root size %d\n", f.id, f.x, f.y, f.root_size);
        for (const auto& l : d.second_looks)
          if (std::hypot(l.x - sym.x, l.y - sym.y) < sym.size)
            std::printf("   look (%s) at (%.0f, %.0f) size %d: anisotropy %.2f length %.1f -> id %d, %s\n", l.kind, l.x, l.y, l.size,
                        l.anisotropy, l.length, l.id, l.outcome);
        Image<std::uint8_t> binary(s.image.width(), s.image.height());
        threshold::make_thresholder(pipeline::DetectorParams{}.threshold)->apply(s.image.view(), binary.view());
        {
          // The regions of the print's size around it, with the flags that keep them from being root candidates.
          segment::RegionTree tree;
          segment::segment_cpu(binary.view(), decode::TreeSet::builtin("default").cap(), tree);
          for (int r = 0; r < tree.size(); ++r) {
            const int size = std::max(tree.bbox_width(r), tree.bbox_height(r));
            if (size < 0.5 * sym.size || size > 2 * sym.size || std::hypot(tree.centroid_x(r) - sym.x, tree.centroid_y(r) - sym.y) > sym.size / 3)
              continue;
            std::printf("   region %d colour %d size %dx%d degree %d flags %d\n", r, tree.colour[r], tree.bbox_width(r),
                        tree.bbox_height(r), tree.degree(r), tree.flags[r]);
          }
        }
        if (!patch_dir.empty()) {
          const int half = static_cast<int>(sym.size);
          const int x0 = std::max(0, static_cast<int>(sym.x) - half), y0 = std::max(0, static_cast<int>(sym.y) - half);
          const int x1 = std::min(s.image.width(), static_cast<int>(sym.x) + half), y1 = std::min(s.image.height(), static_cast<int>(sym.y) + half);
          // The grey patch above its thresholded picture.
          std::ofstream out(patch_dir + "/miss-" + std::to_string(i) + "-" + std::to_string(sym.id) + ".pgm", std::ios::binary);
          out << "P5\n" << x1 - x0 << " " << 2 * (y1 - y0) << "\n255\n";
          for (const Image<std::uint8_t>* picture : {&s.image, static_cast<const Image<std::uint8_t>*>(&binary)})
            for (int y = y0; y < y1; ++y)
              for (int x = x0; x < x1; ++x) out.put(static_cast<char>((*picture)(x, y)));
        }
      }
    }
    std::printf("%s: %d of %d missed, %d false IDs\n", cond.name.c_str(), missed, total, false_ids);
  }
}
