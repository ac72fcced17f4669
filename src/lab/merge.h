// Results of several clients (MPI ranks) loading one target at once, made into one: counts and
// bytes summed, latency histograms merged bucket by bucket (percentiles are computed from the
// merged histogram, never averaged), time series summed interval by interval. Exact: the
// merged histogram's buckets are the sums of the ranks' buckets.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "base/status.h"
#include "stats/phase_result.h"

namespace ssdlab {

// A phase's result in full (every non-empty bucket, the exact moments, the series, the
// backend's counters), to move it between ranks; PhaseFromWire(PhaseWire(r)) has r's buckets,
// counts, series (with its lag per interval) and counters (not its verify records nor its
// submit-lag histogram: lab phases have none).
nlohmann::json PhaseWire(const PhaseResult& r);
// kInvalidArgument when `j` is not a PhaseWire document.
Result<PhaseResult> PhaseFromWire(const nlohmann::json& j);

// The clients' phases as one: measured_ns is the longest client's (they start together at a
// barrier), errors and CPU summed, interrupted when any was. REQUIRES: !phases.empty().
PhaseResult MergeClientPhases(const std::vector<PhaseResult>& phases);

}  // namespace ssdlab
