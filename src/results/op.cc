#include "results/op.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json PointJson(const OpPoint& p) {
  return {{"op_pct", p.op_pct},
          {"range_bytes", p.range_bytes},
          {"purge_method", p.purge_method},
          {"steady_state", ToJson(p.steady_state)},
          {"steady_write_iops", p.steady_write_iops},
          {"curves", internal::ListJson(p.curves)}};
}

Result<OpPoint> PointFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  OpPoint p;
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "op_pct", p.op_pct));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "range_bytes", p.range_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", p.purge_method));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "steady_state", SteadyStateFromJson, p.steady_state));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "steady_write_iops", p.steady_write_iops));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "curves", CurveFromJson, p.curves));
  return p;
}

}  // namespace

json ToJson(const OpResults& o) {
  return {{"op_points", internal::ListJson(o.op_points, PointJson)}};
}

Result<OpResults> OpResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  OpResults o;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "op_points", PointFromJson, o.op_points));
  return o;
}

}  // namespace ssdlab::results
