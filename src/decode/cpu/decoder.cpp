// Amoeba decoding on the CPU (spec §4–§5): the phases of src/decode/cpu/phases.hpp, one after the
// other. Statistics are defined soundly (docs/decoding.md): leaf centres are region centroids at
// sub-pixel precision, leaf-size extremes are true extremes.
#include <string>

#include "decode/cpu/phases.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/decode/fiducial.hpp"

namespace gpuvis::decode {

Decoder::Decoder(TreeSet set) : set_(std::move(set)), scratch_(std::make_unique<cpu::DecoderScratch>()) {}
Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

void Decoder::decode(const segment::RegionTree& t, std::vector<Fiducial>& out, DecodeStats* stats) {
  decode(t, {}, out, stats);
}

void Decoder::decode(const segment::RegionTree& t, HostView<const std::uint8_t> binary, std::vector<Fiducial>& out,
                     DecodeStats* stats) {
  require(!set_.yamaarashi || !binary.empty(), "decode: yamaarashi symbols need the frame's binary image");
  out.clear();
  leaves_.clear();
  reports_.clear();
  cpu::DecoderScratch& s = *scratch_;
  cpu::propagate(t, set_, s);
  DecodeStats st;
  std::vector<Fiducial> fuzzy;
  for (int root : s.candidates) {
    ++st.candidates;
    const std::size_t leaf_begin = leaves_.size();
    cpu::SymbolOutcome symbol = cpu::read_symbol(t, binary, set_, root, s, leaves_, repair_);
    if (explain_) report(t, root, symbol);
    switch (symbol.kind) {
      case cpu::SymbolOutcome::Kind::valid:
        ++st.valid;
        out.push_back(symbol.fiducial);
        break;
      case cpu::SymbolOutcome::Kind::fuzzy:
        ++st.fuzzy;
        fuzzy.push_back(symbol.fiducial);
        break;
      case cpu::SymbolOutcome::Kind::invalid:
        ++st.invalid;
        leaves_.resize(leaf_begin);
        break;
    }
  }
  out.insert(out.end(), fuzzy.begin(), fuzzy.end());
  if (stats) *stats = st;
  if (explain_) cpu::explain_misses(t, set_, s, reports_);
}

void Decoder::report(const segment::RegionTree& t, int root, const cpu::SymbolOutcome& symbol) {
  const cpu::DecoderScratch& s = *scratch_;
  CandidateReport r;
  r.region = root;
  r.descendants = s.desc[root];
  r.height = s.height[root];
  r.leaves = symbol.sums.leaves;
  r.gated_black = symbol.sums.gated[0];
  r.gated_white = symbol.sums.gated[1];
  r.key = symbol.key.empty() ? symbol.key : (t.colour[root] ? "w" : "b") + symbol.key;
  r.id = symbol.kind == cpu::SymbolOutcome::Kind::valid ? symbol.fiducial.id : -1;
  r.fuzzy = symbol.kind == cpu::SymbolOutcome::Kind::fuzzy;
  r.reason = symbol.reason;
  if (symbol.and_few_leaves) r.reason += ", and too few leaves above the size gate for a fuzzy candidate";
  reports_.push_back(std::move(r));
}

}  // namespace gpuvis::decode
