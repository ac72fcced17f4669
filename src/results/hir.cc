#include "results/hir.h"

#include "results/read.h"

namespace ssdlab::results {

using internal::Count;
using internal::Number;
using nlohmann::json;

namespace {

json CycleJson(const HirCycle& c) {
  return {{"cycle", c.cycle}, {"iops", c.iops}, {"mean_ns", c.mean_ns}, {"max_ns", c.max_ns}};
}

Result<HirCycle> CycleFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  HirCycle c;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "cycle", c.cycle));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "iops", c.iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_ns", c.mean_ns));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "max_ns", c.max_ns));
  return c;
}

json SampleJson(const HirSample& s) { return {{"t_end_s", s.t_end_s}, {"iops", s.iops}}; }

Result<HirSample> SampleFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  HirSample s;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "t_end_s", s.t_end_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "iops", s.iops));
  return s;
}

json WaitJson(const HirWaitState& w) {
  return {{"wait_ns", w.wait_ns},
          {"cycles", internal::ListJson(w.cycles, CycleJson)},
          {"mean_cycle_iops", w.mean_cycle_iops},
          {"gain_vs_baseline", w.gain_vs_baseline},
          {"gain_vs_continuous", w.gain_vs_continuous},
          {"cycle_metrics", ToJson(w.cycle_metrics)},
          {"return_to_baseline", ToJson(w.return_to_baseline)},
          {"return_series", internal::ListJson(w.return_series, SampleJson)}};
}

Result<HirWaitState> WaitFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  HirWaitState w;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "wait_ns", w.wait_ns));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "cycles", CycleFromJson, w.cycles));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_cycle_iops", w.mean_cycle_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "gain_vs_baseline", w.gain_vs_baseline));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "gain_vs_continuous", w.gain_vs_continuous));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "cycle_metrics", PhaseMetricsFromJson, w.cycle_metrics));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "return_to_baseline", PhaseMetricsFromJson, w.return_to_baseline));
  SSDLAB_RETURN_IF_ERROR(
      internal::List(j, where, "return_series", SampleFromJson, w.return_series));
  return w;
}

}  // namespace

json ToJson(const HirResults& h) {
  return {{"purge_method", h.purge_method},
          {"baseline_iops", h.baseline_iops},
          {"wait_states", internal::ListJson(h.wait_states, WaitJson)}};
}

Result<HirResults> HirResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  HirResults h;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", h.purge_method));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "baseline_iops", h.baseline_iops));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "wait_states", WaitFromJson, h.wait_states));
  return h;
}

}  // namespace ssdlab::results
