// The results of the XSR test: three write segments in sequence (A: sequential 1024 KiB, B:
// random 8 KiB, C: sequential again) with their throughput over time, and how soon C got back to
// 90% of A's settled throughput.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "results/phase_metrics.h"

namespace ssdlab::results {

struct XsrSegment {
  std::string name;  // "A: SEQ 1024KiB write"
  PhaseMetrics metrics;
  std::vector<std::pair<double, double>> series_bw;  // (interval end, s; write bytes/s)
};

struct XsrResults {
  std::string purge_method;
  std::vector<XsrSegment> segments;
  double settled_seq_write_bytes_per_s = 0;  // A's last 10% of intervals
  double recovery_time_s = -1;               // into C; -1 when it did not recover
  bool recovered = false;
};

// {"purge_method", "segments": [{"name", "metrics", "series_bw": [[t_s, bytes_per_s]]}],
//  "settled_seq_write_bytes_per_s", "recovery_time_s", "recovered"}
nlohmann::json ToJson(const XsrResults& x);
// `where` names the object in errors ("xsr.results"); keys beside these are ignored.
Result<XsrResults> XsrResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
