// The results of the WSAT test: every round of continuous 4 KiB random writes from a fresh
// drive, with the time and the data written up to its end.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/phase_metrics.h"

namespace ssdlab::results {

struct WsatRound {
  uint64_t round = 0;             // 1-based
  double time_s = 0;              // measured time up to the end of this round
  double written_bytes = 0;       // written up to the end of this round
  double written_capacities = 0;  // the same in active ranges
  PhaseMetrics metrics;           // percentiles 99, 99.9, 99.99, 99.999
};

struct WsatResults {
  std::string purge_method;
  uint64_t range_bytes = 0;
  std::vector<WsatRound> per_round;
  std::string stopped_by;  // "capacity written" or "round limit"
};

// {"purge_method", "range_bytes", "per_round": [metrics + "round", "time_s", "written_bytes",
//  "written_capacities"], "stopped_by"}
nlohmann::json ToJson(const WsatResults& w);
// `where` names the object in errors ("wsat.results"); keys beside these are ignored.
Result<WsatResults> WsatResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
