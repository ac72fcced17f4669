#include "results/wsat.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json RoundJson(const WsatRound& r) {
  json out = ToJson(r.metrics);
  out["round"] = r.round;
  out["time_s"] = r.time_s;
  out["written_bytes"] = r.written_bytes;
  out["written_capacities"] = r.written_capacities;
  return out;
}

Result<WsatRound> RoundFromJson(const json& j, const std::string& where) {
  WsatRound r;
  SSDLAB_ASSIGN_OR_RETURN(r.metrics, PhaseMetricsFromJson(j, where));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "round", r.round));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "time_s", r.time_s));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "written_bytes", r.written_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "written_capacities", r.written_capacities));
  return r;
}

}  // namespace

json ToJson(const WsatResults& w) {
  return {{"purge_method", w.purge_method},
          {"range_bytes", w.range_bytes},
          {"per_round", internal::ListJson(w.per_round, RoundJson)},
          {"stopped_by", w.stopped_by}};
}

Result<WsatResults> WsatResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  WsatResults w;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", w.purge_method));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "range_bytes", w.range_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "per_round", RoundFromJson, w.per_round));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "stopped_by", w.stopped_by));
  return w;
}

}  // namespace ssdlab::results
