// The CUDA decoder on device region trees must report what the CPU decoder reports on the same
// binary frame (docs/decoding.md): candidate counts, fiducials (valid and fuzzy: ID, root, leaf
// counts, centre within 1e-3 px, angle within 1e-4 rad) and root candidates, on binary noise of
// every density and grain up to 3840x2160 (neighbour cycles everywhere), adversarial frames, every
// printed symbol of the default and small sets, and the three built-in tree sets.
#include <gtest/gtest.h>

#include <cstdio>
#include <numbers>

#include "compare_detections.hpp"
#include "cuda/memory.hpp"
#include "decode/cuda/decode_cuda.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "segment/cuda/segment_cuda.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "segment_reference.hpp"
#include "test_support.hpp"
#include "segment/cpu/segment.hpp"

using namespace gpuvis;

namespace {

struct Decoded {
  std::vector<decode::Fiducial> fiducials;
  std::vector<decode::RootCandidate> roots;
  decode::DecodeStats stats;
};

// One binary frame through both backends' segmentation and decoding.
class BothDecoders {
 public:
  explicit BothDecoders(const std::string& set = "default") : BothDecoders(decode::TreeSet::load(set)) {}
  explicit BothDecoders(decode::TreeSet set) : set_(std::move(set)), cpu_(set_), gpu_(set_) {}

  ::testing::AssertionResult same(const Image<std::uint8_t>& bin, decode::cuda_impl::RootBand band = {4, 60}) {
    segment_cpu(bin.view(), set_.cap(), tree_);
    Decoded c, g;
    cpu_.decode(tree_, c.fiducials, &c.stats);
    decode::find_root_candidates(tree_, c.fiducials, band.min_size, band.max_size, c.roots,
                                 static_cast<std::size_t>(band.limit));
    frame_.ensure(bin.width(), bin.height());
    cuda::upload<std::uint8_t>(bin.view(), frame_.view(), stream_);
    const auto& device_tree = segmenter_.segment(frame_.view(), set_.cap(), stream_);
    gpu_.decode(device_tree, band, {}, stream_);
    gpu_.collect(g.fiducials, g.roots, g.stats);
    last_ = c;
    if (auto r = test::same_stats(c.stats, g.stats); !r) return r;
    if (auto r = test::same_fiducials(c.fiducials, g.fiducials); !r) return r;
    return test::same_roots(c.roots, g.roots);
  }
  const Decoded& last_cpu() const { return last_; }

 private:
  decode::TreeSet set_;
  decode::Decoder cpu_;
  decode::cuda_impl::Decoder gpu_;
  segment::RegionTree tree_;
  cuda::Stream stream_;
  cuda::DeviceImage<std::uint8_t> frame_;
  segment::cuda_impl::Segmenter segmenter_;
  Decoded last_;
};


Image<std::uint8_t> binarise(const Image<std::uint8_t>& grey) {
  Image<std::uint8_t> bin(grey.width(), grey.height());
  threshold::threshold_cpu(grey.view(), bin.view(), pipeline::DetectorParams::default_threshold());
  return bin;
}

}  // namespace

// Amoeba trees almost never arise in binary noise; a set of tiny trees (a blob with three specks,
// a blob with a ringed speck) makes noise full of candidates, valid, fuzzy and invalid ones.
decode::TreeSet tiny_trees() {
  return decode::TreeSet::parse("w0111\nw0121\nw01211\nb0111\nb0121\nb01211\nw01111\nb01111\n", "tiny");
}

TEST(DecodeCuda, EqualsTheCpuOnBinaryNoiseUpTo4K) {
  GPUVIS_REQUIRE_GPU();
  BothDecoders amoeba, tiny(tiny_trees());
  std::uint32_t seed = 7;
  int candidates = 0, valid = 0, fuzzy = 0, roots = 0;
  for (auto [w, h] : {std::pair{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}, {641, 479}})
    for (double white : {0.5, 0.3})
      for (int block : {1, 2, 3, 7}) {
        const auto bin = test::binary_noise(w, h, white, block, seed++);
        EXPECT_TRUE(amoeba.same(bin)) << w << "x" << h << " white " << white << " block " << block;
        roots += static_cast<int>(amoeba.last_cpu().roots.size());
        EXPECT_TRUE(tiny.same(bin)) << "tiny trees, " << w << "x" << h << " white " << white << " block " << block;
        candidates += tiny.last_cpu().stats.candidates;
        valid += tiny.last_cpu().stats.valid;
        fuzzy += tiny.last_cpu().stats.fuzzy;
      }
  // The frames really exercise the propagation, the gates and the root-candidate limit.
  EXPECT_GT(candidates, 1000);
  EXPECT_GT(valid, 100);
  EXPECT_GT(roots, 5000);
  std::printf("noise: %d candidates (%d valid, %d fuzzy), %d root candidates compared\n", candidates, valid, fuzzy,
              roots);
}

TEST(DecodeCuda, AdversarialFramesAtTheLargestSize) {
  GPUVIS_REQUIRE_GPU();
  BothDecoders both;
  for (int kind = 0; kind < test::kBinaryPatterns; ++kind)
    EXPECT_TRUE(both.same(test::binary_pattern(3840, 2160, kind), {1, 4000})) << "pattern " << kind;
  for (auto [w, h] : {std::pair{1, 1}, {1, 2000}, {2000, 1}, {3, 3}})
    EXPECT_TRUE(both.same(test::binary_noise(w, h, 0.5, 1, 3))) << w << "x" << h;
}

TEST(DecodeCuda, EveryPrintedSymbolDecodesAsOnTheCpu) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  BothDecoders default_set("default"), small_set("small");
  int found = 0;
  for (const std::string set : {"default", "small"}) {
    const int n = set == "default" ? 216 : 24;
    for (int id = 0; id < n; ++id)
      for (int k = 0; k < 3; ++k) {
        const double width = 40 + 90 * k + id % 7, rotation = 0.37 * id + 2.1 * k;
        const auto scene = gen.single(set, id, width, rotation);
        auto& both = set == "default" ? default_set : small_set;
        EXPECT_TRUE(both.same(binarise(scene.image))) << set << " " << id << " width " << width;
        for (const auto& f : both.last_cpu().fiducials) found += f.id == id;
      }
  }
  EXPECT_GE(found, 240 * 3 - 3);  // the CPU itself finds (nearly) all of them: the comparison is not empty
}

TEST(DecodeCuda, EveryBuiltInTreeSetOnGeneratedScenes) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  for (const std::string set : {"default", "small", "mini"}) {
    BothDecoders both(set);
    for (int i = 0; i < 6; ++i) {
      synth::SceneParams p;
      p.seed = 900 + static_cast<std::uint32_t>(i);
      p.set = set == "mini" ? "small" : set;  // mini has no prints of its own: its trees meet real noise
      p.symbols = 8;
      p.noise = i % 2 ? 12 : 3;
      EXPECT_TRUE(both.same(binarise(gen.make(p).image))) << set << " scene " << i;
    }
  }
}
