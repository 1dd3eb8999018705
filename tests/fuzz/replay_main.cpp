// The replay program of a fuzz harness (any compiler): runs LLVMFuzzerTestOneInput on every file
// given, or on every file in every folder given, so that seed corpora and committed regression
// inputs run in the normal test suite. Exits 0 when all ran; a finding aborts.
//
//   replay_NAME [--mutate N] FILE|FOLDER...
//
// --mutate N also runs N variants of every input, each made by a few random edits (bytes flipped,
// set to edge values, inserted, deleted or duplicated; a cut; a splice with another input), from a
// fixed seed: a short, repeatable fuzzing run for machines without libFuzzer (CI runs it under
// ASan and UBSan).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes mutated(const Bytes& input, const std::vector<Bytes>& all, std::mt19937& rng) {
  Bytes b = input;
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  static const std::uint8_t edges[] = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-', '<', '>', '"', '{', '}', ':', ','};
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0: if (!b.empty()) b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
      case 1: if (!b.empty()) b[pick(b.size())] = edges[pick(sizeof edges)]; break;
      case 2: b.insert(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size() + 1)), static_cast<std::uint8_t>(rng())); break;
      case 3: if (!b.empty()) b.erase(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size()))); break;
      case 4: if (!b.empty()) {  // a run of bytes duplicated in place
          const std::size_t at = pick(b.size()), n = 1 + pick(std::min<std::size_t>(b.size() - at, 64));
          const Bytes run(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), run.begin(), run.end());
        }
        break;
      case 5: b.resize(pick(b.size() + 1)); break;  // cut
      default: {  // splice: this input's head, another's tail
        const Bytes& other = all[pick(all.size())];
        b.resize(pick(b.size() + 1));
        const std::size_t from = pick(other.size() + 1);
        b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      }
    }
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  long mutations = 0;
  std::vector<Bytes> inputs;
  auto load = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    inputs.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutate") == 0 && i + 1 < argc) {
      mutations = std::strtol(argv[++i], nullptr, 10);
      continue;
    }
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(p, ec))
        if (e.is_regular_file()) load(e.path());
    } else if (fs::is_regular_file(p, ec)) {
      load(p);
    } else {
      std::fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  long runs = 0;
  for (const Bytes& b : inputs) {
    LLVMFuzzerTestOneInput(b.data(), b.size());
    ++runs;
  }
  std::mt19937 rng(20261128);
  for (const Bytes& b : inputs)
    for (long m = 0; m < mutations; ++m) {
      const Bytes v = mutated(b, inputs, rng);
      LLVMFuzzerTestOneInput(v.data(), v.size());
      ++runs;
    }
  std::printf("replay: %zu inputs, %ld runs, no finding\n", inputs.size(), runs);
  return 0;
}
