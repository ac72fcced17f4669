// The pieces of the run documents the use cases build (the `run` and `replay` documents, a
// stored run's context): the platform, the target, the workload and a phase's results, as JSON.
// They follow docs/architecture.md's rule for machine output: schema_version, fixed keys,
// numbers as numbers, every field always present.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.h"
#include "base/status.h"
#include "stats/phase_result.h"
#include "workload/spec.h"

namespace ssdlab::usecase {

inline constexpr int kRunSchemaVersion = 1;

// Tool version, git revision, host, kernel, CPU model.
nlohmann::json PlatformJson();
nlohmann::json TargetJson(const TargetInfo& info);
nlohmann::json WorkloadJson(const WorkloadSpec& spec);
// One direction of the `run` document: results/phase_metrics.h's direction with its bytes, the
// latency's standard deviation, percentiles 50 to 99.999 and the histogram.
nlohmann::json DirectionJson(const DirectionStats& d, uint64_t measured_ns);
// "results", "measured_ns", "edge", "intervals", "cpu", "errors", "verify", "interrupted",
// "notes" and "sim" (when the backend reported counters) of a phase.
nlohmann::json PhaseJson(const PhaseResult& r);
// A stored `run` or `replay` test's results: PhaseJson of `r` and "workload" (WorkloadJson of
// `spec`), the body of the `run` document without its context and health.
nlohmann::json PhaseRunResults(const WorkloadSpec& spec, const PhaseResult& r);
std::string IsoTime(double unix_s);

// "done", "interrupted" or "failed": the run status stored for a suite's final Status.
const char* RunStatusName(const Status& status);

}  // namespace ssdlab::usecase
