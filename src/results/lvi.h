// The results of the LVI test: latency-vs-IOPS curves, one per (mix, block size), each point
// one threads x QD load after its warm-up. The OP study stores the same curves per setting.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/phase_metrics.h"

namespace ssdlab::results {

struct CurvePoint {
  uint32_t threads = 0, qd = 0;
  PhaseMetrics metrics;  // percentiles 99, 99.9, 99.99, 99.999
};

struct Curve {
  std::string curve;  // "rw=70/30 bs=4KiB"
  double read_pct = 0;
  uint64_t block_bytes = 0;
  std::vector<CurvePoint> points;  // threads outer, QD inner, in the order they ran
};

struct LviResults {
  std::string purge_method;
  uint64_t range_bytes = 0;
  std::vector<Curve> curves;
};

// {"curve", "read_pct", "block_bytes", "points": [metrics + "threads", "qd"]}
nlohmann::json ToJson(const Curve& c);
// `where` names the object in errors ("lvi.results.curves[0]").
Result<Curve> CurveFromJson(const nlohmann::json& j, const std::string& where);

// {"purge_method", "range_bytes", "curves"}
nlohmann::json ToJson(const LviResults& l);
// `where` names the object in errors ("lvi.results"); keys beside these are ignored.
Result<LviResults> LviResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
