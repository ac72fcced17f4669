// The pieces of the run documents the use cases build (the `run` and `replay` documents, a
// stored run's context) as the typed values of results/run_document.h: the platform, the target,
// the workload and a phase's results; and, for the documents that still hold them as JSON (pts,
// profile, app, plp, trace stats, the MPI clients), the same written through ToJson.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.h"
#include "base/status.h"
#include "results/run_document.h"
#include "stats/phase_result.h"
#include "workload/spec.h"

namespace ssdlab::usecase {

// Tool version, git revision, host, kernel, CPU model.
results::Platform PlatformOf();
results::TargetDoc TargetOf(const TargetInfo& info);
results::WorkloadDoc WorkloadOf(const WorkloadSpec& spec);
// One direction of the `run` document: results/phase_metrics.h's direction with its bytes, the
// latency's standard deviation, percentiles 50 to 99.999 and the histogram.
results::DirectionMetrics DirectionOf(const DirectionStats& d, uint64_t measured_ns);
// "results", "measured_ns", "edge", "intervals", "cpu", "errors", "verify", "interrupted",
// "notes" and "sim" (when the backend reported counters) of a phase.
results::PhaseDoc PhaseOf(const PhaseResult& r);

// The same written as JSON (results::ToJson).
nlohmann::json PlatformJson();
nlohmann::json TargetJson(const TargetInfo& info);
nlohmann::json WorkloadJson(const WorkloadSpec& spec);
nlohmann::json PhaseJson(const PhaseResult& r);
// A stored `run` or `replay` test's results: PhaseJson of `r` and "workload" (WorkloadJson of
// `spec`), the body of the `run` document without its context and health.
nlohmann::json PhaseRunResults(const WorkloadSpec& spec, const PhaseResult& r);
std::string IsoTime(double unix_s);

// "done", "interrupted" or "failed": the run status stored for a suite's final Status.
const char* RunStatusName(const Status& status);

}  // namespace ssdlab::usecase
