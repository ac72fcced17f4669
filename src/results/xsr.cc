#include "results/xsr.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json SegmentJson(const XsrSegment& s) {
  json series = json::array();
  for (const auto& [t, bw] : s.series_bw) series.push_back({t, bw});
  return {{"name", s.name}, {"metrics", ToJson(s.metrics)}, {"series_bw", series}};
}

Result<XsrSegment> SegmentFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  XsrSegment s;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "name", s.name));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, s.metrics));
  SSDLAB_RETURN_IF_ERROR(
      internal::List(j, where, "series_bw", internal::NumberPair<double, double>, s.series_bw));
  return s;
}

}  // namespace

json ToJson(const XsrResults& x) {
  return {{"purge_method", x.purge_method},
          {"segments", internal::ListJson(x.segments, SegmentJson)},
          {"settled_seq_write_bytes_per_s", x.settled_seq_write_bytes_per_s},
          {"recovery_time_s", x.recovery_time_s},
          {"recovered", x.recovered}};
}

Result<XsrResults> XsrResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  XsrResults x;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", x.purge_method));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "segments", SegmentFromJson, x.segments));
  SSDLAB_RETURN_IF_ERROR(
      internal::Number(j, where, "settled_seq_write_bytes_per_s", x.settled_seq_write_bytes_per_s));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "recovery_time_s", x.recovery_time_s));
  SSDLAB_RETURN_IF_ERROR(internal::Flag(j, where, "recovered", x.recovered));
  return x;
}

}  // namespace ssdlab::results
