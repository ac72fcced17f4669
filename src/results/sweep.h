// The results of the DIRTH and ECW tests: a threads x QD sweep of cells (each the average over
// the steady-state window) and the latency histograms of three selected points.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "results/cells.h"

namespace ssdlab::results {

struct SweepPoint {
  std::string point;  // its role and cell: "max_iops T4 Q6", "mid ...", "min_iops ..."
  std::vector<std::pair<uint64_t, uint64_t>> histogram;  // (bucket's lower bound, ns; count)
  PhaseMetrics metrics;
};

struct SweepResults {
  std::string purge_method;
  uint64_t range_bytes = 0;
  std::vector<CellResult> cells;  // "T4 Q16", threads outer, QD inner
  std::vector<SweepPoint> selected;
  uint64_t max_mean_latency_ns = 0;  // the max-IOPS point's limit
};

// {"purge_method", "range_bytes", "cells", "selected": [metrics + "point", "histogram":
//  [[lower_ns, count]]], "max_mean_latency_ns"}
nlohmann::json ToJson(const SweepResults& s);
// `where` names the object in errors ("dirth.results"); keys beside these are ignored.
Result<SweepResults> SweepResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
