#include "results/phase_metrics.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

// Each direction's stored key and the member that holds it.
constexpr std::pair<const char*, DirectionMetrics PhaseMetrics::*> kDirections[] = {
    {"read", &PhaseMetrics::read},
    {"write", &PhaseMetrics::write},
    {"total", &PhaseMetrics::total}};
constexpr const char* kCounterNames[] = {"sim"};  // the backends that report counters

json ToJson(const DirectionMetrics& d) {
  json lat = {{"mean", d.lat_ns.mean}, {"min", d.lat_ns.min}, {"max", d.lat_ns.max}};
  for (const auto& [k, v] : d.lat_ns.percentiles) lat[k] = v;
  return {{"ios", d.ios}, {"iops", d.iops}, {"bw_bytes_per_s", d.bw_bytes_per_s}, {"lat_ns", lat}};
}

Status DirectionFromJson(const json& j, const std::string& where, DirectionMetrics& d) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "ios", d.ios));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "iops", d.iops));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "bw_bytes_per_s", d.bw_bytes_per_s));
  auto lat = j.find("lat_ns");
  if (lat == j.end()) return Status::Ok();
  const std::string at = where + ".lat_ns";
  SSDLAB_RETURN_IF_ERROR(internal::Object(*lat, at));
  for (const auto& [k, v] : lat->items()) {
    if (k == "min" || k == "max") {
      SSDLAB_RETURN_IF_ERROR(
          internal::Count(*lat, at, k, k == "min" ? d.lat_ns.min : d.lat_ns.max));
    } else if (k == "mean") {
      SSDLAB_RETURN_IF_ERROR(internal::Number(*lat, at, k, d.lat_ns.mean));
    } else if (k.size() > 1 && k[0] == 'p' && !v.is_null()) {
      SSDLAB_RETURN_IF_ERROR(internal::Number(*lat, at, k, d.lat_ns.percentiles[k]));
    }
  }
  return Status::Ok();
}

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
    DirectionMetrics out{d.ios, r.Iops(d), r.BytesPerS(d), {}};
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

json ToJson(const PhaseMetrics& m) {
  json out = {{"measured_ns", m.measured_ns}};
  for (const auto& [key, member] : kDirections) out[key] = ToJson(m.*member);
  if (!m.counters_name.empty()) {
    json c = json::object();
    for (const auto& [k, v] : m.counters) c[k] = v;
    out[m.counters_name] = c;
  }
  return out;
}

Result<PhaseMetrics> PhaseMetricsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  PhaseMetrics m;
  for (const auto& [key, member] : kDirections) {
    auto it = j.find(key);
    if (it != j.end()) SSDLAB_RETURN_IF_ERROR(DirectionFromJson(*it, where + "." + key, m.*member));
  }
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "measured_ns", m.measured_ns));
  for (const char* name : kCounterNames) {
    auto it = j.find(name);
    if (it == j.end()) continue;
    const std::string at = where + "." + name;
    SSDLAB_RETURN_IF_ERROR(internal::Object(*it, at));
    m.counters_name = name;
    for (const auto& [k, v] : it->items())
      SSDLAB_RETURN_IF_ERROR(internal::Number(*it, at, k, m.counters[k]));
  }
  return m;
}

}  // namespace ssdlab::results
