// The results of the OP study: per share of capacity left unused (0% first), a purge, 4 KiB
// random writes of the remaining range to steady state, then latency-vs-IOPS curves.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/lvi.h"
#include "results/steady_state.h"

namespace ssdlab::results {

struct OpPoint {
  double op_pct = 0;         // share of the capacity left unused
  uint64_t range_bytes = 0;  // the range written
  std::string purge_method;
  TestSteadyState steady_state;  // of this setting's preconditioning
  double steady_write_iops = 0;  // its steady-state mean
  std::vector<Curve> curves;
};

struct OpResults {
  std::vector<OpPoint> op_points;
};

// {"op_points": [{"op_pct", "range_bytes", "purge_method", "steady_state",
//  "steady_write_iops", "curves"}]}
nlohmann::json ToJson(const OpResults& o);
// `where` names the object in errors ("op.results"); keys beside these are ignored.
Result<OpResults> OpResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
