// The HIR test's section: the write bursts' IOPS per wait state against the baseline and the
// continuous writing that follows (results/hir.h).
#include <fmt/format.h>

#include <set>

#include "report/pts_sections.h"
#include "results/hir.h"

namespace ssdlab::report::pts {

// The rows of the section's parameter table.
static std::vector<ParamFact<results::HirResults>> HirFacts() {
  return {
      {"Stimulus",
       [](const PtsOptions& o, const results::HirResults&) {
         return fmt::format("4KiB random write: {} write then a pause, {:g} cycles per wait state",
                            FullDriveOf(o).Duration(o.hir_write_ns),
                            static_cast<double>(o.hir_cycles));
       }},
      {"Wait states",
       [](const PtsOptions& o, const results::HirResults&) {
         std::string s;
         for (uint64_t w : o.hir_wait_ns) s += (s.empty() ? "" : ", ") + FullDriveOf(o).Duration(w);
         return s;
       }},
      {"Return to baseline",
       [](const PtsOptions& o, const results::HirResults&) {
         return FullDriveOf(o).Duration(o.hir_baseline_ns) +
                " continuous write after each wait state";
       }},
  };
}

json HirSection(Ctx& ctx, const std::string& name) {
  auto [runs, blocks] = OpenSection(ctx, name, results::HirResultsFromJson, HirFacts());
  json seq = json::array(), bars = json::array(), trows = json::array();
  json wait_sort = json::array({"continuous (preconditioning)"});
  const std::string kReturn = "continuous (return to baseline)";
  std::set<double> waits;
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    const ReportRun& r = *run;
    // One axis, time in the test: the nominal length of each round, burst (write and wait) and
    // step of the return to baseline, the full drive's (FullDrive).
    auto o = OptionsOf(r);
    const PtsOptions opt = o.ok() ? *o : PtsOptions{};
    const FullDrive full = FullDriveOf(opt);
    double t_s = 0;
    auto minutes = [&](double at_s) { return R6(full.Seconds(at_s) / 60); };
    for (const results::TrackedRound& rd : RoundsOf(*test)) {
      t_s += opt.round_ns / 1e9;
      for (const auto& [k, v] : rd.tracking) {
        seq.push_back({{"drive", r.label},
                       {"x", minutes(t_s)},
                       {"state", "continuous (preconditioning)"},
                       {"segment", "preconditioning"},
                       {"iops", R6(v)}});
      }
    }
    const double baseline = res->baseline_iops;
    for (const results::HirWaitState& ws : res->wait_states) {
      const double wait = static_cast<double>(ws.wait_ns);
      waits.insert(full.Seconds(wait));
      std::string label = "wait " + FmtDurationNs(full.Seconds(wait));
      for (const results::HirCycle& c : ws.cycles) {
        t_s += (opt.hir_write_ns + wait) / 1e9;
        seq.push_back({{"drive", r.label},
                       {"x", minutes(t_s - wait / 1e9)},
                       {"state", label},
                       {"segment", label},
                       {"iops", R6(c.iops)},
                       {"mean_us", R6(c.mean_ns / 1000)}});
      }
      // The continuous writing after the bursts, in at most 15 steps.
      json series = json::array();
      for (const results::HirSample& p : ws.return_series)
        series.push_back({{"t_end_s", p.t_end_s}, {"iops", p.iops}});
      for (const json& p : ThinSeries(series, "t_end_s", "iops", 15)) {
        seq.push_back({{"drive", r.label},
                       {"x", minutes(t_s + Num(p, "t_end_s"))},
                       {"state", kReturn},
                       {"segment", "return after " + label},
                       {"iops", R6(Num(p, "iops"))}});
      }
      t_s += opt.hir_baseline_ns / 1e9;
      bars.push_back({{"drive", r.label},
                      {"state", label},
                      {"wait_s", full.Seconds(wait / 1e9)},
                      {"iops", R6(ws.mean_cycle_iops)},
                      {"baseline", R6(baseline)}});
      const results::LatencySummaryNs& l = ws.cycle_metrics.total.lat_ns;
      trows.push_back(json::array({r.label, full.Duration(wait), FmtInt(ws.mean_cycle_iops),
                                   fmt::format("{:.2f}x", ws.gain_vs_baseline),
                                   fmt::format("{:.2f}x", ws.gain_vs_continuous), FmtUs(l.mean),
                                   FmtUs(l.Stat("p99_99").value_or(0)),
                                   FmtInt(ws.return_to_baseline.total.iops)}));
    }
  }
  if (seq.empty()) return nullptr;
  for (double w : waits) wait_sort.push_back("wait " + FmtDurationNs(w));  // full drive's, ns
  wait_sort.push_back(kReturn);
  blocks.push_back(TableBlock(
      ctx.Id("hir-table"),
      "IOPS of the write bursts per wait state, against the steady-state baseline and against the "
      "continuous writing that follows",
      json::array({"Drive", "Wait", "Mean IOPS of the bursts", "vs baseline", "vs continuous",
                   "Mean, µs", "99.99%, µs", "Return to baseline, IOPS"}),
      trows));
  json s1 = LineSpec("HIR: IOPS against time", seq, Q("x", "Time in the test, minutes"),
                     Q("iops", "IOPS"), "state", "Load", ctx, wait_sort);
  s1["mark"] = {{"type", "line"}, {"point", {{"size", 10}}}, {"tooltip", true}};
  s1["encoding"]["detail"] = N("segment", "Segment");
  blocks.push_back(
      ChartBlock(ctx.Id("hir-iops"),
                 "Continuous writing (preconditioning), then write bursts separated "
                 "by growing pauses (one point per burst, at its write), each wait "
                 "state followed by continuous writing (return to baseline, in at most "
                 "15 steps); time as the test's nominal durations add up",
                 s1));
  json s2 = Spec("HIR: mean IOPS of the bursts by wait state", bars, kNarrow, kShort);
  json enc = {{"x", O("state", "Wait state", wait_sort)},
              {"y", Q("iops", "IOPS")},
              {"color", ctx.multi ? DriveEnc() : N("state", "Wait state", wait_sort)}};
  if (ctx.multi) enc["xOffset"] = N("drive", "Drive");
  s2["layer"] = json::array(
      {{{"mark", {{"type", "bar"}, {"tooltip", true}}}, {"encoding", enc}},
       {{"mark", {{"type", "tick"}, {"color", "#333"}, {"thickness", 2}, {"size", 40}}},
        {"encoding", {{"x", O("state", "Wait state", wait_sort)}, {"y", Q("baseline", "IOPS")}}}}});
  json s3 = LineSpec("HIR: mean latency by burst", seq, Q("x", "Time in the test, minutes"),
                     Q("mean_us", "Mean latency, µs", true), "state", "Load", ctx, wait_sort, "",
                     kNarrow, kShort);
  s3["transform"] = json::array({{{"filter", "datum.mean_us > 0"}}});
  s3["mark"] = {{"type", "line"}, {"point", {{"size", 10}}}, {"tooltip", true}};
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(
           ctx.Id("hir-bars"),
           "Mean IOPS of the bursts per wait state; the black tick is the steady-state baseline",
           s2),
       ChartBlock(ctx.Id("hir-lat"), "Mean latency of each burst (log scale)", s3)})));
  return SteadySection(
      ctx, name, blocks, "preconditioning to the baseline",
      "After saturation, 4KiB random-write bursts alternate with pauses: the longer the "
      "pause, the more garbage collection the drive does in the background.");
}

}  // namespace ssdlab::report::pts
