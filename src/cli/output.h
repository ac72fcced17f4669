// Machine and human output of results. JSON documents follow ARCHITECTURE.md rule 5:
// schema_version, fixed keys, numbers as numbers, every field always present.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.h"
#include "base/status.h"
#include "stats/phase_result.h"
#include "workload/spec.h"

namespace ssdlab {

inline constexpr int kRunSchemaVersion = 1;

// Tool version, git revision, host, kernel, CPU model.
nlohmann::json PlatformJson();
nlohmann::json TargetJson(const TargetInfo& info);
nlohmann::json WorkloadJson(const WorkloadSpec& spec);
// One direction of the `run` document: results/phase_metrics.h's direction with its bytes, the
// latency's standard deviation, percentiles 50 to 99.999 and the histogram.
nlohmann::json DirectionJson(const DirectionStats& d, uint64_t measured_ns);
// "results", "intervals", "cpu", "errors", "verify", "interrupted", "notes" and "sim" (when
// the backend reported counters) of a phase.
// {"in_flight", "longest_ns", "abandoned", "abandoned_age_ns"}: the window's edge.
nlohmann::json EdgeJson(const EdgeStats& e);
nlohmann::json PhaseJson(const PhaseResult& r);
std::string IsoTime(double unix_s);

// Writes `doc` to `path` ("-": stdout). Fails naming --json and the path when the write
// does not complete (full disk).
Status WriteJsonOutput(const std::string& path, const nlohmann::json& doc);
// "done", "interrupted" or "failed": the run status stored for a suite's final Status.
const char* RunStatusName(const Status& status);

// The exit status of a finished phase, `code` unless the phase saw I/O errors or verify
// failures (kExitFindings, each said in one line) or was interrupted (kExitInterrupted).
int PhaseExitCode(const PhaseResult& r, int code);

// A fixed-width table: one row per direction that saw I/O, plus total.
std::string SummaryTable(const PhaseResult& r);

}  // namespace ssdlab
