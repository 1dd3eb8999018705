// Life on the OpenCL backend: the board stays on the device between calls (32-bit words, as on
// CUDA), one generation per launch (life/opencl/life.cl) with the rules every backend compiles
// (life/word_rule.h), so the boards equal the CPU's bit for bit.
#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "gpuvis/life/life.hpp"
#include "life/backends.hpp"
#include "life/step_rules.hpp"
#include "opencl/context.hpp"
#include "opencl/sources.hpp"

namespace gpuvis::life::opencl_impl {
namespace {

class OpenclSimulation final : public Simulation {
 public:
  OpenclSimulation(const Board& initial, const Params& options)
      : options_(options), width_(initial.width()), height_(initial.height()), host_words_(initial.words_per_row()),
        masks_(rules::rule_masks<std::uint32_t>(options.rule.birth, options.rule.survival)) {
    const cl_program program = opencl::Context::get().program(opencl::sources::life, "-cl-std=CL1.2");
    step_ = std::make_unique<opencl::Kernel>(program, "life_step");
    count_ = std::make_unique<opencl::Kernel>(program, "life_population");
    opencl::upload_rows(initial.data(), row_bytes(), static_cast<std::size_t>(height_), static_cast<std::ptrdiff_t>(row_bytes()), a_);
    b_.reserve(initial.bytes());
    // A Generations rule's dying ages: age_planes(rule) boards one after another, all 0 at the start
    // (a word of them for two-state rules, which never read it).
    planes_ = age_planes(options.rule);
    const std::vector<Board::word> zeros(static_cast<std::size_t>(std::max(planes_, 1)) * initial.bytes() / sizeof(Board::word), 0);
    const std::size_t age_rows = static_cast<std::size_t>(std::max(planes_, 1)) * static_cast<std::size_t>(height_);
    opencl::upload_rows(zeros.data(), row_bytes(), age_rows, static_cast<std::ptrdiff_t>(row_bytes()), ages_);
  }

  void advance(std::int64_t generations) override {
    require(generations >= 0, "the number of generations must not be negative");
    for (std::int64_t g = 0; g < generations; ++g) step();
    opencl::check(opencl::api().Finish(opencl::Context::get().queue()), "running Life generations");
  }

  void advance_counting(std::int64_t generations, const std::function<void(std::int64_t, std::uint64_t)>& each) override {
    require(generations >= 0, "the number of generations must not be negative");
    for (std::int64_t g = 0; g < generations; ++g) {
      step();
      each(generation_, population());
    }
  }

  std::uint64_t population() override {
    const int words = 2 * host_words_;
    const std::size_t groups = ((static_cast<std::size_t>(words) + 31) / 32) * ((static_cast<std::size_t>(height_) + 3) / 4);
    counts_.reserve(groups * sizeof(cl_uint));
    count_->arg(0, a_).arg(1, static_cast<cl_int>(words)).arg(2, static_cast<cl_int>(height_)).arg(3, counts_);
    count_->run(static_cast<std::size_t>(words), static_cast<std::size_t>(height_));
    group_counts_.resize(groups);  // kept: advance_counting asks every generation
    opencl::download_rows(counts_, groups * sizeof(cl_uint), 1, static_cast<std::ptrdiff_t>(groups * sizeof(cl_uint)), group_counts_.data());
    return std::accumulate(group_counts_.begin(), group_counts_.end(), std::uint64_t{0});
  }

  void read(Board& out) override {
    if (out.width() != width_ || out.height() != height_) out = Board(width_, height_);
    opencl::download_rows(a_, row_bytes(), static_cast<std::size_t>(height_), static_cast<std::ptrdiff_t>(row_bytes()), out.data());
  }
  void read_states(std::vector<std::uint8_t>& out) override {
    Board alive;
    read(alive);
    std::vector<Board> ages(static_cast<std::size_t>(planes_), Board(width_, height_));
    std::vector<Board::word> all(static_cast<std::size_t>(std::max(planes_, 1)) * alive.bytes() / sizeof(Board::word));
    const std::size_t age_rows = static_cast<std::size_t>(std::max(planes_, 1)) * static_cast<std::size_t>(height_);
    opencl::download_rows(ages_, row_bytes(), age_rows, static_cast<std::ptrdiff_t>(row_bytes()), all.data());
    for (int i = 0; i < planes_; ++i)
      std::copy_n(all.data() + static_cast<std::size_t>(i) * alive.bytes() / sizeof(Board::word), alive.bytes() / sizeof(Board::word), ages[i].data());
    compose_states(alive, ages, out);
  }
  std::int64_t generation() const override { return generation_; }
  Backend backend() const override { return Backend::opencl; }

 private:
  std::size_t row_bytes() const { return static_cast<std::size_t>(host_words_) * sizeof(Board::word); }

  void step() {
    const int words = 2 * host_words_;  // 32-bit words per row
    step_->arg(0, a_).arg(1, b_).arg(2, static_cast<cl_int>(width_)).arg(3, static_cast<cl_int>(height_)).arg(4, static_cast<cl_int>(words));
    step_->arg(5, static_cast<cl_int>(options_.topology == Topology::torus)).arg(6, static_cast<cl_int>(options_.rule == conway));
    step_->arg(7, masks_).arg(8, ages_).arg(9, static_cast<cl_int>(planes_)).arg(10, static_cast<cl_int>(options_.rule.states));
    step_->run(static_cast<std::size_t>(words), static_cast<std::size_t>(height_));
    std::swap(a_, b_);
    ++generation_;
  }

  Params options_;
  int width_, height_, host_words_;
  rules::RuleMasks<std::uint32_t> masks_;  // the same layout as life.cl's life_masks
  std::unique_ptr<opencl::Kernel> step_, count_;
  opencl::Buffer a_, b_, counts_;  // a_: the current board
  opencl::Buffer ages_;            // a Generations rule's age planes, each laid out as a board
  int planes_ = 0;
  std::vector<cl_uint> group_counts_;  // counts_ on the host
  std::int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options) {
  return std::make_unique<OpenclSimulation>(initial, options);
}

}  // namespace gpuvis::life::opencl_impl
