// The load studies as profiles: vdbench-style curves, the over-provisioning advisor, sysbench
// fileio and user profiles from TOML files (suite/profile_internal.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "base/rng.h"
#include "suite/profile_internal.h"

namespace ssdlab::profile_internal {
namespace {

uint32_t JobsFor(uint32_t threads, uint32_t max_jobs) {
  for (uint32_t j = std::min(threads, std::max<uint32_t>(max_jobs, 1)); j > 1; --j) {
    if (threads % j == 0) return j;
  }
  return 1;
}

results::ProfileCurvePoint PointOf(const Ctx& c, const PhaseResult& r, double target_pct,
                                   double rate) {
  const DirectionStats t = r.Total();
  return {target_pct,        rate,
          r.Iops(t),         MBps(r, t),
          r.Iops(r.dirs[0]), r.Iops(r.dirs[1]),
          t.latency.Mean(),  t.latency.Percentile(99),
          c.Metrics(r)};
}

}  // namespace

// ---- vdbench-style curves ----
Result<results::CurveResults> Curve(Ctx& c, bool filled, Summary& sum) {
  const CurveMix& m = c.def.curve;
  const uint64_t cap = c.capacity();
  uint64_t largest_bs = m.block_sizes.empty() ? 4096 : 0;
  for (const BlockShare& b : m.block_sizes) {
    if (b.bytes % c.lbs())
      return Status::Invalid(c.def.name + ": block size " + std::to_string(b.bytes) +
                             " is not a multiple of the target's logical block");
    largest_bs = std::max(largest_bs, b.bytes);
  }
  results::CurveResults out;
  out.mix = CurveMixRecordOf(m);
  out.section_pct = c.o.section_pct;
  out.section_bytes = std::max(
      AlignDown(static_cast<uint64_t>(static_cast<double>(cap) * c.o.section_pct / 100), kAlign),
      AlignUp(largest_bs, kAlign));
  if (!filled && c.o.curve_fill_pct > 0) {
    uint64_t fill = AlignDown(
        static_cast<uint64_t>(static_cast<double>(cap) * c.o.curve_fill_pct / 100), kAlign);
    c.r.Report(
        {.stage = "fill",
         .message = "filling " + FormatBytes(fill) + " before the curve (the DC450R review)"});
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{"fill", SeqFill(c, 0, fill)}}));
    out.preparation =
        results::FillPreparation{std::nullopt, fill, MBps(st[0].result, st[0].result.dirs[1])};
  }
  out.threads = c.o.threads ? c.o.threads : m.threads;
  out.jobs = JobsFor(out.threads, c.o.max_jobs);
  out.qd = (out.threads + out.jobs - 1) / out.jobs;
  out.time_ns = c.PhaseNs();
  out.ramp_ns = c.o.ramp_ns != UINT64_MAX ? c.o.ramp_ns : c.Scaled(10 * kNsPerS);
  out.rule =
      "one uncapped run for the maximum, then runs paced at each percentage of it (open loop: "
      "latency from the scheduled time)";
  std::vector<double> pcts = c.o.curve_pcts;
  if (pcts.empty()) pcts = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
  auto spec = [&](double rate) {
    WorkloadSpec s = c.Spec(m.sequential, m.read_pct, m.block_sizes, out.jobs, out.qd, 0,
                            out.section_bytes, out.time_ns, 0);
    s.dist = m.dist;
    s.ramp_ns = out.ramp_ns;
    s.rate_iops = rate;
    return s;
  };
  SSDLAB_ASSIGN_OR_RETURN(auto mx, c.Step({{"max", spec(0)}}));
  const PhaseResult& top = mx[0].result;
  const double max_iops = top.Iops(top.Total());
  if (max_iops <= 0) return Status::Io(c.def.name + ": the uncapped run completed no I/O");
  for (double p : pcts) {
    double rate = max_iops * p / 100;
    char cell[48];
    std::snprintf(cell, sizeof cell, "iorate %g%%", p);
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{cell, spec(rate)}}));
    out.points.push_back(PointOf(c, st[0].result, p, rate));
  }
  out.max = PointOf(c, top, 0, 0);
  sum.insert(sum.end(), {{"max IOPS", max_iops},
                         {"max MB/s", MBps(top, top.Total())},
                         {"max mean latency ms", top.Total().latency.Mean() / 1e6},
                         {"max p99 latency ms", top.Total().latency.Percentile(99) / 1e6}});
  return out;
}

// ---- OP advisor (the DC500M over-provisioning study) ----
// Why the points cannot rank the OP settings: every point's measured window has a write
// amplification of at most 1.02 (the simulator's counter; garbage collection never ran), so
// the drive never left its fresh state. "" when any point left it or a point has no counter.
// Says how much of its range each window wrote (at `time_ns` per point) and the --time that
// writes every range twice at the measured rate (a drive leaves its fresh state about once it
// has written its range), in simulated time at this `time_scale` and as the full drive's time.
// The share does not depend on the scale: a time-scaled drive has its capacity and its
// durations divided alike, so --time-scale (auto or a number) cannot change it; --time can.
static std::string FreshStateNote(const std::vector<results::OpAdvisorPoint>& points,
                                  uint64_t time_ns, uint32_t time_scale) {
  double max_wa = 0, max_share = 0, need_s = 0;
  for (const results::OpAdvisorPoint& p : points) {
    auto it = p.metrics.counters.find("write_amplification");
    if (it == p.metrics.counters.end()) return "";
    max_wa = std::max(max_wa, it->second);
    const double bytes_per_s = p.mean_iops * 4096.0;
    if (!(bytes_per_s > 0) || p.range_bytes == 0) continue;
    max_share = std::max(max_share, bytes_per_s * static_cast<double>(time_ns) / 1e9 /
                                        static_cast<double>(p.range_bytes));
    need_s = std::max(need_s, 2 * static_cast<double>(p.range_bytes) / bytes_per_s);
  }
  if (points.empty() || max_wa > 1.02) return "";
  std::string note = fmt::format(
      "the drive never left its fresh state (write amplification at most {:.2f} in every "
      "measured window: no garbage collection), so every OP setting measured the fresh drive",
      max_wa);
  if (!(need_s > 0)) return note + "; run longer (--time)";
  const uint32_t scale = std::max<uint32_t>(1, time_scale);
  auto full = [](double s) {
    return s >= 3600 ? fmt::format("{:.1f} h", s / 3600)
           : s >= 60 ? fmt::format("{:.0f} min", s / 60)
                     : fmt::format("{:.0f} s", s);
  };
  note += fmt::format(
      ": each window wrote at most {:.2f} of its range, and a drive leaves that state once it has "
      "written about its range. Run longer: --time {:.0f}s{} writes every range twice at the "
      "measured rate",
      max_share, std::ceil(need_s), scale > 1 ? fmt::format(" with --time-scale {}", scale) : "");
  if (scale > 1)
    note += fmt::format(
        " ({} of the full drive's time). --time-scale does not change the share: a time-scaled "
        "drive has its capacity and durations divided alike",
        full(std::ceil(need_s) * scale));
  return note;
}

Result<results::OpAdvisorResults> OpAdvisor(Ctx& c, Summary& sum) {
  std::vector<double> ops = c.o.op_pcts;
  if (ops.empty()) ops = {0, 5, 10, 15, 20, 25, 30};
  results::OpAdvisorResults out;
  out.threads = c.o.threads ? c.o.threads : 4;
  out.qd = c.o.qd ? c.o.qd : 32;
  out.time_ns = c.PhaseNs();
  out.interval_ns = c.o.interval_ns ? c.o.interval_ns : std::max<uint64_t>(1, c.Scaled(kNsPerS));
  const uint64_t cap = c.capacity();
  // The range an OP leaves (whole MiB) and the capacity it gives up: OP 0 gives up nothing
  // (the range's rounding to whole MiB is not over-provisioning).
  auto range_of = [&](double op) {
    return AlignDown(static_cast<uint64_t>(static_cast<double>(cap) * (100 - op) / 100), kAlign);
  };
  auto cost_of = [&](double op) { return op > 0 ? cap - range_of(op) : 0; };
  for (double op : ops) {
    results::OpAdvisorPoint pt;
    pt.op_pct = op;
    pt.range_bytes = range_of(op);
    pt.capacity_cost_bytes = cost_of(op);
    WorkloadSpec s =
        c.Spec(false, 0, {{4 * kKiB, 100}}, out.threads, out.qd, 0, pt.range_bytes, out.time_ns, 0);
    s.interval_ns = out.interval_ns;
    char cell[48];
    std::snprintf(cell, sizeof cell, "op %g%%", op);
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{cell, s}}, true, &pt.purge_method));
    const PhaseResult& r = st[0].result;
    std::vector<double> iops;
    for (const IntervalSample& iv : r.intervals) {
      double dt = static_cast<double>(iv.t_end_ns - iv.t_begin_ns);
      uint64_t ios = iv.dirs[1].ios;
      double v = dt > 0 ? static_cast<double>(ios) * 1e9 / dt : 0;
      iops.push_back(v);
      pt.series.push_back(
          {static_cast<double>(iv.t_end_ns) / 1e9, v,
           ios ? static_cast<double>(iv.dirs[1].lat_sum_ns) / static_cast<double>(ios) : 0});
    }
    // Initial: the first tenth of the run; sustained: its last third.
    size_t n = iops.size();
    size_t first = std::max<size_t>(1, n / 10), last = std::max<size_t>(1, n / 3);
    pt.initial_iops = n ? std::accumulate(iops.begin(), iops.begin() + std::min(first, n), 0.0) /
                              static_cast<double>(std::min(first, n))
                        : 0;
    pt.sustained_iops = n ? std::accumulate(iops.end() - std::min(last, n), iops.end(), 0.0) /
                                static_cast<double>(std::min(last, n))
                          : r.Iops(r.dirs[1]);
    // When the IOPS first falls below the midpoint between the initial and sustained level.
    if (pt.initial_iops > pt.sustained_iops * 1.1) {
      for (size_t i = 0; i < n; ++i) {
        if (iops[i] < (pt.initial_iops + pt.sustained_iops) / 2) {
          pt.drop_at_s = pt.series[i].t_s;
          break;
        }
      }
    }
    pt.mean_iops = r.Iops(r.dirs[1]);
    pt.metrics = c.Metrics(r);
    sum.push_back({std::string(cell) + " sustained IOPS", pt.sustained_iops});
    out.points.push_back(std::move(pt));
  }
  // A drive that never left its fresh state (write amplification about 1 in every measured
  // window: no garbage collection) measures the same IOPS at every OP: no recommendation.
  if (const std::string fresh = FreshStateNote(out.points, out.time_ns, c.o.time_scale);
      !fresh.empty()) {
    out.recommendation.no_recommendation = fresh;
    out.recommendation.rule = "none: " + fresh;
    return out;
  }
  // The best sustained IOPS; within 1% of it, the smaller OP (less capacity given up).
  double best_v = 0;
  for (const auto& p : out.points) best_v = std::max(best_v, p.sustained_iops);
  const results::OpAdvisorPoint* rec = nullptr;
  for (const auto& p : out.points) {
    if (p.sustained_iops >= best_v * 0.99 && (!rec || p.op_pct < rec->op_pct)) rec = &p;
  }
  const results::OpAdvisorPoint* base = &out.points.front();
  for (const auto& p : out.points) {
    if (p.op_pct < base->op_pct) base = &p;
  }
  double gain =
      base->sustained_iops > 0 ? (rec->sustained_iops / base->sustained_iops - 1) * 100 : 0;
  out.recommendation = {rec->op_pct,
                        rec->sustained_iops,
                        base->op_pct,
                        base->sustained_iops,
                        gain,
                        rec->op_pct,
                        cost_of(rec->op_pct),
                        "the OP with the best sustained IOPS (mean of the last third of the "
                        "run); within 1% of the best, the smaller OP"};
  sum.push_back({"recommended OP %", rec->op_pct});
  sum.push_back({"gain over baseline %", gain});
  return out;
}

// ---- sysbench fileio ----
Result<results::FileioResults> FileIo(Ctx& c, uint64_t base, Summary& sum) {
  std::vector<std::string> modes = c.o.fileio_modes;
  if (modes.empty()) modes = {"rndrd", "rndwr", "rndrw"};
  results::FileioResults out;
  out.threads = c.o.threads ? c.o.threads : 192;
  out.time_ns = c.PhaseNs();
  out.block_bytes = c.o.bs ? c.o.bs : 4 * kKiB;
  out.rndrw_reads_per_write = c.o.fileio_rw_ratio;
  const uint64_t ramp = c.o.ramp_ns != UINT64_MAX ? c.o.ramp_ns : 0;
  const uint64_t bs = out.block_bytes;
  const uint64_t end = c.capacity();
  if (base + bs > end) return Status::Invalid("fileio: no room left after the fill");
  out.range_bytes = end - base;
  // sysbench's prepare writes every file.
  SSDLAB_RETURN_IF_ERROR(c.Step({{"prepare", SeqFill(c, base, end)}}).status());
  for (const std::string& mode : modes) {
    bool seq = mode.rfind("seq", 0) == 0;
    double read = mode == "rndrd" || mode == "seqrd" ? 100
                  : mode == "rndrw" ? 100 * c.o.fileio_rw_ratio / (1 + c.o.fileio_rw_ratio)
                                    : 0;
    WorkloadSpec s = c.Spec(seq, read, {{bs, 100}}, out.threads, 1, base, end, out.time_ns, 0);
    s.ramp_ns = ramp;
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{mode, s}}));
    const PhaseResult& r = st[0].result;
    const DirectionStats tot = r.Total();
    out.modes.push_back({mode,
                         r.Iops(r.dirs[0]),
                         r.Iops(r.dirs[1]),
                         r.BytesPerS(r.dirs[0]) / kMiB,
                         r.BytesPerS(r.dirs[1]) / kMiB,
                         {tot.latency.min(), tot.latency.max(), tot.latency.Mean(),
                          tot.latency.Percentile(95), tot.latency.Percentile(99)},
                         c.Metrics(r)});
    if (read > 0) sum.push_back({mode + " read IOPS", r.Iops(r.dirs[0])});
    if (read < 100) sum.push_back({mode + " write IOPS", r.Iops(r.dirs[1])});
  }
  return out;
}

// ---- user profiles ----
Result<results::UserResults> User(Ctx& c, Summary& sum) {
  results::UserResults out;
  for (const UserPhase& p : c.def.phases) {
    auto spec = ResolveWorkload(p.args, c.capacity(), c.lbs());
    if (!spec.ok()) return spec.status().WithContext(c.def.name + " phase '" + p.name + "'");
    WorkloadSpec s = spec.value();
    s.seed = Mix64(c.o.seed ^ Mix64(p.args.seed * 0x9e37 + (++c.salt)));
    if (s.runtime_ns) s.runtime_ns = std::max<uint64_t>(1, c.Scaled(s.runtime_ns));
    s.ramp_ns = c.Scaled(s.ramp_ns);
    const uint64_t idle_ns = c.Scaled(p.idle_after_ns);
    std::vector<PhaseItem> items = {{p.name, s}};
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step(items));
    if (idle_ns) SSDLAB_RETURN_IF_ERROR(c.r.Idle(idle_ns));
    const PhaseResult& r = st[0].result;
    out.phases.push_back({p.name, DescribeWorkload(s), idle_ns, c.Metrics(r), r.Iops(r.Total()),
                          MBps(r, r.Total()), r.Total().latency.Mean(),
                          r.Total().latency.Percentile(99)});
    sum.push_back({p.name + " IOPS", r.Iops(r.Total())});
    sum.push_back({p.name + " MB/s", MBps(r, r.Total())});
  }
  return out;
}

}  // namespace ssdlab::profile_internal
