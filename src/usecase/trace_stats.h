// The `trace stats` use case: what a block trace does (trace/stats.h) as a document, with the
// nearest synthetic workload, stored as a run of kind "trace-stats" when a database is given.
// The CLI parses the flags into a TraceStatsRequest and prints the TraceStatsOutcome.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "trace/stats.h"

namespace ssdlab::usecase {

struct TraceStatsRequest {
  std::string trace;
  // The flags as given: --format, --event, --device-id, --skip-bad, --burst-gap.
  std::string format = "auto", event = "queue", device_id, skip_bad = "0", burst_gap = "1ms";
  std::string db, run;  // db "" = not stored; run "" = trace-stats-DATE-TIME (needs db)
  // The outputs, as (what, path): checked with the trace's and the database's first.
  std::vector<std::pair<std::string, std::string>> outputs;
  const std::atomic<bool>* stop = nullptr;
};

struct TraceStatsOutcome {
  trace::TraceStats stats;
  std::string format;           // the trace's format
  uint64_t skipped = 0;         // malformed records skipped
  std::string suggested_flags;  // `ssdlab run` flags of the nearest synthetic workload
  nlohmann::json doc;           // the statistics document (schema_version 1)
  std::string run;              // the stored run's name ("" when not stored)
  Status stored;                // storing it (ok when not asked)
};

// Reads the whole trace. An error is bad input (Invalid naming the flag), an unreadable or
// malformed trace, a database that cannot be opened or its run created, or Interrupted.
Result<TraceStatsOutcome> TraceStats(const TraceStatsRequest& r);

}  // namespace ssdlab::usecase
