// The results of the HIR test: after preconditioning to the baseline, per wait state the write
// bursts separated by that pause, their merged figures and the continuous writing that follows.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/phase_metrics.h"

namespace ssdlab::results {

struct HirCycle {
  uint64_t cycle = 0;  // 1-based
  double iops = 0, mean_ns = 0;
  uint64_t max_ns = 0;
};

struct HirSample {
  double t_end_s = 0;  // the end of the interval, from the start of the phase
  double iops = 0;     // write IOPS over the interval
};

struct HirWaitState {
  uint64_t wait_ns = 0;
  std::vector<HirCycle> cycles;
  double mean_cycle_iops = 0;     // the bursts merged
  double gain_vs_baseline = 0;    // mean_cycle_iops / the preconditioning's steady mean
  double gain_vs_continuous = 0;  // mean_cycle_iops / the return to baseline's
  PhaseMetrics cycle_metrics;     // the bursts merged
  PhaseMetrics return_to_baseline;
  std::vector<HirSample> return_series;
};

struct HirResults {
  std::string purge_method;
  double baseline_iops = 0;  // the preconditioning's steady-state mean
  std::vector<HirWaitState> wait_states;
};

// {"purge_method", "baseline_iops", "wait_states": [{"wait_ns", "cycles": [{"cycle", "iops",
//  "mean_ns", "max_ns"}], "mean_cycle_iops", "gain_vs_baseline", "gain_vs_continuous",
//  "cycle_metrics", "return_to_baseline", "return_series": [{"t_end_s", "iops"}]}]}
nlohmann::json ToJson(const HirResults& h);
// `where` names the object in errors ("hir.results"); keys beside these are ignored.
Result<HirResults> HirResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
