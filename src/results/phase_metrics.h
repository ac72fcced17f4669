// A measured phase's figures as the suite stores them (every PTS cell, round, profile point):
// per direction the I/O count, IOPS, bandwidth and latency summary, the measured time and the
// backend's counters (the simulator's "sim" object). One ToJson / FromJson pair; documents
// that hold more keys beside these (a cell's "cell" and "workload", a WSAT round's "round")
// read fine, the extra keys ignored.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "stats/phase_result.h"

namespace ssdlab::results {

struct LatencySummaryNs {
  double mean = 0;
  uint64_t min = 0, max = 0;
  std::map<std::string, double> percentiles;  // by stored key: "p99", "p99_9", ...
  std::optional<double> stddev;               // the `run` document's only

  // A statistic by its stored key ("mean", "min", "max", "p99_9"); none when not recorded.
  std::optional<double> Stat(const std::string& key) const;
};

// One direction's figures: the schema's "direction", in a stored cell and in the `run` document
// (which adds the bytes, the latency's standard deviation and the histogram).
struct DirectionMetrics {
  uint64_t ios = 0;
  double iops = 0, bw_bytes_per_s = 0;
  LatencySummaryNs lat_ns;
  std::optional<uint64_t> bytes;
  std::optional<std::vector<std::pair<uint64_t, uint64_t>>> histogram;  // (lower bound, ns; count)
};

struct PhaseMetrics {
  DirectionMetrics read, write, total;
  uint64_t measured_ns = 0;
  std::string counters_name;               // "" = none, "sim"
  std::map<std::string, double> counters;  // the backend's counters, by name
};

// "p99_9" for 99.9: a percentile's stored key.
std::string PercentileKey(double p);

// The figures of `r`, with latency percentiles `pcts`.
PhaseMetrics MetricsOf(const PhaseResult& r, const std::vector<double>& pcts);

// {"ios", "iops", "bw_bytes_per_s", "lat_ns": {"mean", "min", "max", "pNN"..., "stddev"},
//  "bytes", "histogram": [[lower_ns, count]]}, the optional keys when set.
nlohmann::json ToJson(const DirectionMetrics& d);
Result<DirectionMetrics> DirectionMetricsFromJson(const nlohmann::json& j,
                                                  const std::string& where);

// {"read", "write", "total": DIRECTION, "measured_ns", COUNTERS_NAME: {...}}
nlohmann::json ToJson(const PhaseMetrics& m);
// `where` names the object in errors ("tests.iops.cells[2]"). Invalid naming the key on a
// wrong type; missing keys read as zero (an older or partial document).
Result<PhaseMetrics> PhaseMetricsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
