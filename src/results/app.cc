#include "results/app.h"

#include "results/read_extra.h"

namespace ssdlab::results {

using internal::Count;
using internal::Number;
using internal::OrNull;
using nlohmann::json;

namespace {

Status OptNumber(const json& j, const std::string& where, const std::string& key,
                 std::optional<double>& out) {
  return internal::Optional(j, where, key, Number<double>, out);
}

Result<AppSecond> AppSecondFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  AppSecond s;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "t_s", s.t_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "tps", s.tps));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "qps", s.qps));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "lat_ms", s.lat_ms));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "lat_stddev_ms", s.lat_stddev_ms));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "errors_per_s", s.errors_per_s));
  return s;
}

Result<AppLatencyMs> LatencyFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  AppLatencyMs l;
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "mean", l.mean));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "min", l.min));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "p50", l.p50));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "p95", l.p95));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "p99", l.p99));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "p99_9", l.p99_9));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "max", l.max));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "samples", l.samples));
  return l;
}

// The rates a second and the summary share: IOPS, MB/s, service time and utilisation.
template <class T>
json RatesJson(const T& s) {
  return {{"read_iops", s.read_iops},     {"write_iops", s.write_iops},
          {"read_mb_s", s.read_mb_s},     {"write_mb_s", s.write_mb_s},
          {"read_lat_ms", s.read_lat_ms}, {"write_lat_ms", s.write_lat_ms},
          {"util_pct", s.util_pct}};
}

template <class T>
Status RatesFromJson(const json& j, const std::string& where, T& s) {
  for (auto [key, v] : {std::pair<const char*, double*>{"read_iops", &s.read_iops},
                        {"write_iops", &s.write_iops},
                        {"read_mb_s", &s.read_mb_s},
                        {"write_mb_s", &s.write_mb_s},
                        {"read_lat_ms", &s.read_lat_ms},
                        {"write_lat_ms", &s.write_lat_ms},
                        {"util_pct", &s.util_pct}})
    SSDLAB_RETURN_IF_ERROR(Number(j, where, key, *v));
  return Status::Ok();
}

json SecondJson(const DeviceSecond& s) {
  json out = RatesJson(s);
  out["t_s"] = s.t_s;
  out["flush_per_s"] = s.flush_per_s;
  out["temperature_c"] = OrNull(s.temperature_c);
  return out;
}

Result<DeviceSecond> DeviceSecondFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  DeviceSecond s;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "t_s", s.t_s));
  SSDLAB_RETURN_IF_ERROR(RatesFromJson(j, where, s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "flush_per_s", s.flush_per_s));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "temperature_c", s.temperature_c));
  return s;
}

Result<DeviceSummary> SummaryFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  DeviceSummary s;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "seconds", s.seconds));
  SSDLAB_RETURN_IF_ERROR(RatesFromJson(j, where, s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "peak_util_pct", s.peak_util_pct));
  return s;
}

Result<DeviceTemperature> TemperatureFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  DeviceTemperature t;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "source", t.source));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "note", t.note));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "idle_c", t.idle_c));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "peak_c", t.peak_c));
  SSDLAB_RETURN_IF_ERROR(OptNumber(j, where, "mean_c", t.mean_c));
  return t;
}

Result<AppDevice> DeviceFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  AppDevice d;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "stat_path", d.stat_path));
  SSDLAB_RETURN_IF_ERROR(
      internal::List(j, where, "per_second", DeviceSecondFromJson, d.per_second));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "summary", SummaryFromJson, d.summary));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "temperature", TemperatureFromJson, d.temperature));
  return d;
}

}  // namespace

json ToJson(const AppDevice& d) {
  const DeviceTemperature& t = d.temperature;
  json summary = RatesJson(d.summary);
  summary["seconds"] = d.summary.seconds;
  summary["peak_util_pct"] = d.summary.peak_util_pct;
  return {{"stat_path", d.stat_path},
          {"per_second", internal::ListJson(d.per_second, SecondJson)},
          {"summary", summary},
          {"temperature",
           {{"source", t.source},
            {"note", t.note},
            {"idle_c", OrNull(t.idle_c)},
            {"peak_c", OrNull(t.peak_c)},
            {"mean_c", OrNull(t.mean_c)}}}};
}

json ToJson(const AppResults& a) {
  const AppLatencyMs& l = a.latency_ms;
  json out = {{"app", a.app},
              {"complete", a.complete},
              {"tps", a.tps},
              {"qps", a.qps},
              {"transactions", a.transactions},
              {"queries", a.queries},
              {"errors", a.errors},
              {"duration_s", a.duration_s},
              {"latency_ms",
               {{"mean", OrNull(l.mean)},
                {"min", OrNull(l.min)},
                {"p50", OrNull(l.p50)},
                {"p95", OrNull(l.p95)},
                {"p99", OrNull(l.p99)},
                {"p99_9", OrNull(l.p99_9)},
                {"max", OrNull(l.max)},
                {"samples", l.samples}}},
              {"per_second", internal::ListJson(a.per_second,
                                                [](const AppSecond& s) {
                                                  return json{{"t_s", s.t_s},
                                                              {"tps", s.tps},
                                                              {"qps", s.qps},
                                                              {"lat_ms", s.lat_ms},
                                                              {"lat_stddev_ms", s.lat_stddev_ms},
                                                              {"errors_per_s", s.errors_per_s}};
                                                })},
              {"per_second_latency", a.per_second_latency},
              {"device", a.device ? ToJson(*a.device) : json(nullptr)},
              {"settings", a.settings},
              {"error", OrNull(a.error)}};
  if (a.measured) out["measured"] = *a.measured;
  return out;
}

Result<AppResults> AppResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  AppResults a;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "app", a.app));
  SSDLAB_RETURN_IF_ERROR(internal::Optional(j, where, "measured", internal::Flag, a.measured));
  SSDLAB_RETURN_IF_ERROR(internal::Flag(j, where, "complete", a.complete));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "tps", a.tps));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "qps", a.qps));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "duration_s", a.duration_s));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "transactions", a.transactions));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "queries", a.queries));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "errors", a.errors));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "latency_ms", LatencyFromJson, a.latency_ms));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "per_second", AppSecondFromJson, a.per_second));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "per_second_latency", a.per_second_latency));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "device", DeviceFromJson, a.device));
  if (auto it = j.find("settings"); it != j.end()) a.settings = *it;
  SSDLAB_RETURN_IF_ERROR(internal::Optional(j, where, "error", internal::Text, a.error));
  return a;
}

}  // namespace ssdlab::results
