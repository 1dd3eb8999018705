// probe_stages: the CPU backend's detection stages and their phases, timed one by one on one frame,
// at several thread counts (median of RUNS runs after warm-up). Frames: any PGM, for example those
// `bench_pipeline --save-frames DIR --filter none` writes (its scenes, without running a case).
//
//   probe_stages FRAME.pgm [RUNS=50] [THREADS=1,2,16 ...]
//
// Phases: threshold (Bernsen h = 16, the detector's default); segmentation's labels, numbering and
// measures, regions, adjacency (src/segment/cpu/phases.hpp; no run lists, as for symbols only);
// decoding's propagation and symbols (src/decode/cpu/phases.hpp) and the whole Decoder::decode.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "decode/cpu/phases.hpp"
#include "harness.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "segment/cpu/phases.hpp"
#include "segment/cpu/segment.hpp"

using namespace gpuvis;

namespace {

// Median of `runs` timings of body after three warm-up calls.
double median_us(int runs, const std::function<void()>& body) {
  for (int i = 0; i < 3; ++i) body();
  std::vector<double> t(static_cast<std::size_t>(runs));
  for (double& v : t) v = bench::time_us(body);
  return bench::summarize(std::move(t)).median_us;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: probe_stages FRAME.pgm [RUNS=50] [THREADS=1,2,16 ...]\n");
    return 2;
  }
  try {
    const Image<std::uint8_t> grey = read_grey8(argv[1]);
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 50;
    std::vector<int> threads;
    for (int i = 3; i < argc; ++i) threads.push_back(std::atoi(argv[i]));
    if (threads.empty()) threads = {1, 2, 16};
    threshold::Params tp;
    tp.bernsen.half_window = 16;
    tp.backend = Backend::cpu;
    auto thresholder = threshold::make_thresholder(tp);
    Image<std::uint8_t> binary(grey.width(), grey.height());
    const decode::TreeSet set = decode::TreeSet::load("default");
    decode::Decoder decoder(set);
    segment::RegionTree tree;
    segment::cpu::Scratch s;
    decode::cpu::DecoderScratch ds;
    std::vector<decode::Fiducial> found;
    std::vector<decode::LeafRef> leaves;
    std::printf("%s: %dx%d, median of %d runs, us\n", argv[1], grey.width(), grey.height(), runs);
    std::printf("%8s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "threads", "threshold", "labels", "numbering", "regions",
                "adjacency", "segment", "propagate", "symbols", "decode");
    std::printf("%8s %10s %10s %10s %10s\n", "", "detector:", "threshold", "segment", "decode");
    for (int n : threads) {
      set_num_threads(n);
      thresholder->apply(grey.view(), binary.view());
      segment::segment_cpu(binary.view(), set.cap(), tree, {.runs = false});
      int nregions = 0, npairs = 0;
      const double th = median_us(runs, [&] { thresholder->apply(grey.view(), binary.view()); });
      const double labels = median_us(runs, [&] { nregions = segment::cpu::label_runs(binary.view(), s); });
      const double numbering = median_us(runs, [&] { npairs = segment::cpu::number_and_measure(nregions, s); });
      const double regions = median_us(runs, [&] { segment::cpu::write_regions(nregions, grey.width(), grey.height(), s, tree); });
      const double adjacency = median_us(runs, [&] { segment::cpu::build_adjacency(nregions, npairs, set.cap(), s, tree); });
      const double whole = median_us(runs, [&] { segment::segment_cpu(binary.view(), set.cap(), tree, {.runs = false}); });
      const double propagate = median_us(runs, [&] { decode::cpu::propagate(tree, set, ds); });
      const double symbols = median_us(runs, [&] {
        leaves.clear();
        for (int root : ds.candidates) decode::cpu::read_symbol(tree, binary.view(), set, root, ds, leaves);
      });
      const double dec = median_us(runs, [&] { decoder.decode(tree, binary.view(), found); });
      pipeline::DetectorParams dp;
      dp.backend = Backend::cpu;
      pipeline::Detector detector(dp);
      std::vector<double> st[3];
      for (int i = 0; i < runs + 3; ++i) {
        const auto& d = detector.detect(grey.view());
        if (i < 3) continue;
        st[0].push_back(d.times.threshold_us), st[1].push_back(d.times.segment_us), st[2].push_back(d.times.decode_us);
      }
      std::printf("%8s %10s %10.1f %10.1f %10.1f\n", "", "", bench::summarize(st[0]).median_us, bench::summarize(st[1]).median_us,
                  bench::summarize(st[2]).median_us);
      std::printf("%8d %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f   (%d regions, %zu runs, %d pairs, %zu candidates, %zu IDs)\n", n, th,
                  labels, numbering, regions, adjacency, whole, propagate, symbols, dec, nregions, s.runs.size(), npairs, ds.candidates.size(), found.size());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe_stages: %s\n", e.what());
    return 1;
  }
  return 0;
}
