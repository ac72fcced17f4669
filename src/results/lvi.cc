#include "results/lvi.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json PointJson(const CurvePoint& p) {
  json out = ToJson(p.metrics);
  out["threads"] = p.threads;
  out["qd"] = p.qd;
  return out;
}

Result<CurvePoint> PointFromJson(const json& j, const std::string& where) {
  CurvePoint p;
  SSDLAB_ASSIGN_OR_RETURN(p.metrics, PhaseMetricsFromJson(j, where));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "threads", p.threads));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "qd", p.qd));
  return p;
}

}  // namespace

json ToJson(const Curve& c) {
  return {{"curve", c.curve},
          {"read_pct", c.read_pct},
          {"block_bytes", c.block_bytes},
          {"points", internal::ListJson(c.points, PointJson)}};
}

Result<Curve> CurveFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  Curve c;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "curve", c.curve));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "read_pct", c.read_pct));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "block_bytes", c.block_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "points", PointFromJson, c.points));
  return c;
}

json ToJson(const LviResults& l) {
  return {{"purge_method", l.purge_method},
          {"range_bytes", l.range_bytes},
          {"curves", internal::ListJson(l.curves)}};
}

Result<LviResults> LviResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  LviResults l;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", l.purge_method));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "range_bytes", l.range_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "curves", CurveFromJson, l.curves));
  return l;
}

}  // namespace ssdlab::results
