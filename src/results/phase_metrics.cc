#include "results/phase_metrics.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "results/counters.h"
#include "results/fields.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

namespace f = fields;

// The latency percentiles stand beside mean, min and max: every key "pNN" of the object.
bool IsPercentile(const std::string& key, const json& v) {
  return key.size() > 1 && key[0] == 'p' && !v.is_null();
}

constexpr auto kLatencyNs = f::Object<LatencySummaryNs>(
    f::Number("mean", &LatencySummaryNs::mean), f::Count("min", &LatencySummaryNs::min),
    f::Count("max", &LatencySummaryNs::max),
    f::Inline(&LatencySummaryNs::percentiles, f::MapOf(f::NumberOf<double>(), IsPercentile)),
    f::Number("stddev", &LatencySummaryNs::stddev));

constexpr auto kDirection = f::Object<DirectionMetrics>(
    f::Count("ios", &DirectionMetrics::ios), f::Number("iops", &DirectionMetrics::iops),
    f::Number("bw_bytes_per_s", &DirectionMetrics::bw_bytes_per_s),
    f::Sub("lat_ns", &DirectionMetrics::lat_ns, kLatencyNs),
    f::Count("bytes", &DirectionMetrics::bytes),
    f::List("histogram", &DirectionMetrics::histogram, f::PairOf<uint64_t, uint64_t>()));

constexpr auto kPhaseMetrics = f::Object<PhaseMetrics>(
    f::Sub("read", &PhaseMetrics::read, kDirection),
    f::Sub("write", &PhaseMetrics::write, kDirection),
    f::Sub("total", &PhaseMetrics::total, kDirection),
    f::Count("measured_ns", &PhaseMetrics::measured_ns),
    f::Merge<PhaseMetrics>(f::CountersOf(&PhaseMetrics::counters_name, &PhaseMetrics::counters)));

}  // namespace

std::optional<double> LatencySummaryNs::Stat(const std::string& key) const {
  if (key == "mean") return mean;
  if (key == "min") return static_cast<double>(min);
  if (key == "max") return static_cast<double>(max);
  auto it = percentiles.find(key);
  if (it == percentiles.end()) return std::nullopt;
  return it->second;
}

std::string PercentileKey(double p) {
  char key[32];
  std::snprintf(key, sizeof key, "p%g", p);
  std::string k = key;
  std::replace(k.begin(), k.end(), '.', '_');
  return k;
}

PhaseMetrics MetricsOf(const PhaseResult& r, const std::vector<double>& pcts) {
  PhaseMetrics m;
  auto dir = [&](const DirectionStats& d) {
    DirectionMetrics out;
    out.ios = d.ios;
    out.iops = r.Iops(d);
    out.bw_bytes_per_s = r.BytesPerS(d);
    out.lat_ns.mean = d.latency.Mean();
    out.lat_ns.min = d.latency.min();
    out.lat_ns.max = d.latency.max();
    for (double p : pcts) out.lat_ns.percentiles[PercentileKey(p)] = d.latency.Percentile(p);
    return out;
  };
  m.read = dir(r.dirs[0]);
  m.write = dir(r.dirs[1]);
  m.total = dir(r.Total());
  m.measured_ns = r.measured_ns;
  m.counters_name = r.counters_name;
  for (const auto& [k, v] : r.counters) m.counters[k] = v;
  return m;
}

json ToJson(const DirectionMetrics& d) { return kDirection.Write(d); }

Result<DirectionMetrics> DirectionMetricsFromJson(const json& j, const std::string& where) {
  return kDirection.Parse(j, where);
}

json ToJson(const PhaseMetrics& m) { return kPhaseMetrics.Write(m); }

Result<PhaseMetrics> PhaseMetricsFromJson(const json& j, const std::string& where) {
  return kPhaseMetrics.Parse(j, where);
}

}  // namespace ssdlab::results
