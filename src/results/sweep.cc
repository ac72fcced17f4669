#include "results/sweep.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json PointJson(const SweepPoint& p) {
  json buckets = json::array();
  for (const auto& [low, count] : p.histogram) buckets.push_back({low, count});
  json out = ToJson(p.metrics);
  out["point"] = p.point;
  out["histogram"] = buckets;
  return out;
}

Result<SweepPoint> PointFromJson(const json& j, const std::string& where) {
  SweepPoint p;
  SSDLAB_ASSIGN_OR_RETURN(p.metrics, PhaseMetricsFromJson(j, where));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "point", p.point));
  SSDLAB_RETURN_IF_ERROR(
      internal::List(j, where, "histogram", internal::NumberPair<uint64_t, uint64_t>, p.histogram));
  return p;
}

}  // namespace

json ToJson(const SweepResults& s) {
  return {{"purge_method", s.purge_method},
          {"range_bytes", s.range_bytes},
          {"cells", internal::ListJson(s.cells)},
          {"selected", internal::ListJson(s.selected, PointJson)},
          {"max_mean_latency_ns", s.max_mean_latency_ns}};
}

Result<SweepResults> SweepResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  SweepResults s;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", s.purge_method));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "range_bytes", s.range_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "cells", CellFromJson, s.cells));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "selected", PointFromJson, s.selected));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "max_mean_latency_ns", s.max_mean_latency_ns));
  return s;
}

}  // namespace ssdlab::results
