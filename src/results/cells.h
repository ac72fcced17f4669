// One stored cell of a PTS test (an IOPS, LAT, TP or sweep cell): its name, the workload that
// produced it and its figures merged over the steady-state window's rounds.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "results/phase_metrics.h"

namespace ssdlab::results {

struct CellWorkload {
  std::string description;       // "randread bs=4 KiB qd=8 jobs=16"
  std::optional<uint64_t> seed;  // the last round's seed (absent in a hand-made document)
};

struct CellResult {
  std::string cell;  // "rw=65/35 bs=4KiB", "T4 Q16"
  CellWorkload workload;
  PhaseMetrics metrics;
};

// The metrics' keys (results/phase_metrics.h) plus "cell" and "workload": {"description",
// "seed"}.
nlohmann::json ToJson(const CellResult& c);
// `where` names the object in errors ("iops.results.cells[2]").
Result<CellResult> CellFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
