#include "results/pts_tests.h"

#include "results/hir.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/op.h"
#include "results/sweep.h"
#include "results/tp.h"
#include "results/wsat.h"
#include "results/xsr.h"

namespace ssdlab::results {

namespace {

// The catalogue's check of a test read by `From` (a FromJson of this module).
template <auto From>
Status Check(const nlohmann::json& results, const std::string& where) {
  return From(results, where).status();
}

}  // namespace

const std::vector<PtsTestInfo>& PtsTests() {
  using T = PtsTest;
  static const std::vector<PtsTestInfo> kTests = {
      {T::kIops, "iops", "IOPS", Check<MatrixResultsFromJson>},
      {T::kTp, "tp", "Throughput", Check<TpResultsFromJson>},
      {T::kLat, "lat", "Latency", Check<MatrixResultsFromJson>},
      {T::kLvi, "lvi", "Latency vs IOPS", Check<LviResultsFromJson>},
      {T::kWsat, "wsat", "Write saturation", Check<WsatResultsFromJson>},
      {T::kHir, "hir", "Host idle recovery", Check<HirResultsFromJson>},
      {T::kXsr, "xsr", "Cross-stimulus recovery", Check<XsrResultsFromJson>},
      {T::kDirth, "dirth", "Demand intensity / response time histogram",
       Check<SweepResultsFromJson>},
      {T::kEcw, "ecw", "Enterprise composite workload", Check<SweepResultsFromJson>},
      {T::kOp, "op", "Over-provisioning study", Check<OpResultsFromJson>},
  };
  return kTests;
}

const PtsTestInfo& PtsTestOf(PtsTest id) { return PtsTests()[static_cast<size_t>(id)]; }

const PtsTestInfo* FindPtsTest(std::string_view name) {
  for (const PtsTestInfo& t : PtsTests()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

const std::vector<std::string>& PtsTestNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const PtsTestInfo& t : PtsTests()) out.push_back(t.name);
    return out;
  }();
  return kNames;
}

std::string JoinedPtsTestNames(std::string_view sep) {
  std::string out;
  for (const PtsTestInfo& t : PtsTests()) {
    if (!out.empty()) out += sep;
    out += t.name;
  }
  return out;
}

}  // namespace ssdlab::results
