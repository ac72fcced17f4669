#include "suite/tests.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "base/units.h"
#include "results/hir.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/op.h"
#include "results/sweep.h"
#include "results/tp.h"
#include "results/wsat.h"
#include "results/xsr.h"

namespace ssdlab::pts {
namespace {

struct Load {
  uint32_t threads, qd;
};

// Threads x QD of the load tests: the user's --threads/--qd, else the spec's.
Load LoadOf(const PtsOptions& o, const std::string& test) {
  Load l{4, 32};
  if (o.spec == PtsSpec::kPtsC) l = {2, 16};
  if (o.spec == PtsSpec::kReview) l = test == "tp" ? Load{8, 16} : Load{16, 8};
  if (o.threads) l.threads = o.threads;
  if (o.qd) l.qd = o.qd;
  return l;
}

Status CheckBlock(Runner& r, uint64_t bs) {
  uint32_t lbs = r.env().backend.info().logical_block_bytes;
  if (lbs > 1 && bs % lbs) {
    return Status::Invalid(r.env().test_name + ": block size " + std::to_string(bs) +
                           " is not a multiple of the target's " + std::to_string(lbs) +
                           "-byte logical block; drop it from the test's block sizes");
  }
  return Status::Ok();
}

// Rounds of a matrix of (mix, bs) cells, each `cell_ns`, judged on `track`.
Result<RoundsResult> MatrixRounds(Runner& r, int first_step, const std::vector<Mix>& mixes,
                                  const std::vector<uint64_t>& sizes, Load load, bool sequential,
                                  uint64_t cell_ns, uint64_t range_end, const TrackFn& track) {
  const PtsOptions& o = r.options();
  for (uint64_t bs : sizes) SSDLAB_RETURN_IF_ERROR(CheckBlock(r, bs));
  auto cells = [&](int round) {
    std::vector<Cell> out;
    uint64_t salt = static_cast<uint64_t>(round) << 16;
    for (const Mix& m : mixes) {
      for (uint64_t bs : sizes) {
        out.push_back({CellName(m, bs), r.Spec(sequential, m.read_pct, bs, load.threads, load.qd,
                                               cell_ns, range_end, ++salt)});
      }
    }
    return out;
  };
  return RunRounds(r, first_step, o.max_rounds, cells, track);
}

TrackFn TrackCells(std::vector<std::pair<std::string, std::string>> cells_and_metric) {
  return [cells_and_metric = std::move(cells_and_metric)](const std::vector<StoredPhase>& round) {
    std::vector<std::pair<std::string, double>> out;
    out.reserve(cells_and_metric.size());
    for (const auto& [cell, metric] : cells_and_metric)
      out.emplace_back(cell + " " + metric, CellValue(round, cell, metric));
    return out;
  };
}

// What a test stores: its verdict, its typed results (results/) and its rounds.
TestOutcome Outcome(nlohmann::json steady_state, nlohmann::json typed,
                    const std::vector<results::TrackedRound>& rounds) {
  TestOutcome t;
  t.steady_state = std::move(steady_state);
  t.results = std::move(typed);
  t.results["rounds"] = results::ToJson(rounds);
  return t;
}

// The cells of `rr` averaged over the steady-state window.
std::vector<results::CellResult> WindowCells(const RoundsResult& rr, const PtsOptions& o) {
  return WindowResults(rr, o.steady.window_rounds, o.percentiles);
}

// The latency percentiles of the LVI points and the WSAT rounds.
const std::vector<double> kTailPercentiles = {99, 99.9, 99.99, 99.999};

// ---- IOPS ----
Result<TestOutcome> Iops(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, true));
  std::vector<std::pair<std::string, std::string>> track;
  auto has = [&](const Mix& m, uint64_t bs) {
    return std::any_of(o.iops_mixes.begin(), o.iops_mixes.end(),
                       [&](const Mix& x) { return x.read_pct == m.read_pct; }) &&
           std::find(o.iops_block_bytes.begin(), o.iops_block_bytes.end(), bs) !=
               o.iops_block_bytes.end();
  };
  // PTS 2.0: 4 KiB 0/100, 64 KiB 65/35, 1024 KiB 100/0; PTS-E 1.1 and the reviewers: 4 KiB write.
  std::vector<std::pair<Mix, uint64_t>> wanted = {{{0}, 4 * kKiB}};
  if (o.spec == PtsSpec::kPtsC) wanted = {{{0}, 4 * kKiB}, {{65}, 64 * kKiB}, {{100}, 1024 * kKiB}};
  for (auto [m, bs] : wanted) {
    if (has(m, bs)) track.emplace_back(CellName(m, bs), "iops");
  }
  if (track.empty())
    track.emplace_back(CellName(o.iops_mixes.back(), o.iops_block_bytes.back()), "iops");
  SSDLAB_ASSIGN_OR_RETURN(RoundsResult rr,
                          MatrixRounds(r, 1, o.iops_mixes, o.iops_block_bytes, LoadOf(o, "iops"),
                                       false, IopsCellNs(o), range, TrackCells(track)));
  return Outcome(SteadyStateJson(rr),
                 results::ToJson(results::MatrixResults{purge, range, WindowCells(rr, o)}),
                 TrackedRounds(rr));
}

// ---- Throughput ----
Result<TestOutcome> Throughput(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  results::TpResults tp{range, {}};
  std::vector<results::TrackedRound> rounds;
  results::TestSteadyState steady;  // the first block's figures, reached over all blocks
  int step = 0;
  for (uint64_t bs : o.tp_block_bytes) {
    SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(step++, range, true));
    std::vector<Mix> mixes = {{100}, {0}};
    SSDLAB_ASSIGN_OR_RETURN(
        RoundsResult rr,
        MatrixRounds(r, step, mixes, {bs}, LoadOf(o, "tp"), true, o.round_ns, range,
                     TrackCells({{CellName({0}, bs), "bw"}, {CellName({100}, bs), "bw"}})));
    step = rr.next_step;
    const results::TestSteadyState ss = SteadyStateOf(rr);
    if (!steady.required) {
      steady = ss;
    } else {
      steady.reached = steady.reached && ss.reached;
      if (!ss.reached) steady.end = ss.end;
      steady.variables.insert(ss.variables.begin(), ss.variables.end());
    }
    tp.by_block.push_back({bs, purge, ss, WindowCells(rr, o)});
    for (const results::TrackedRound& rd : TrackedRounds(rr)) rounds.push_back(rd);
  }
  if (!steady.required) steady = {true, true};  // no block sizes: nothing to reach
  return Outcome(results::ToJson(steady), results::ToJson(tp), rounds);
}

// ---- Latency ----
Result<TestOutcome> Latency(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, true));
  uint64_t track_bs = std::find(o.lat_block_bytes.begin(), o.lat_block_bytes.end(), 4 * kKiB) !=
                              o.lat_block_bytes.end()
                          ? 4 * kKiB
                          : o.lat_block_bytes.front();
  // The specification judges the 4 KiB 0/100 mean; without 0/100 in --lat-mixes, the mix with
  // the most writes (a cell that is measured, so that steady state can be reached).
  const Mix track_mix =
      *std::min_element(o.lat_mixes.begin(), o.lat_mixes.end(),
                        [](const Mix& a, const Mix& b) { return a.read_pct < b.read_pct; });
  SSDLAB_ASSIGN_OR_RETURN(
      RoundsResult rr,
      MatrixRounds(r, 1, o.lat_mixes, o.lat_block_bytes, {1, 1}, false, o.round_ns, range,
                   TrackCells({{CellName(track_mix, track_bs), "mean_ns"}})));
  return Outcome(SteadyStateJson(rr),
                 results::ToJson(results::MatrixResults{purge, range, WindowCells(rr, o)}),
                 TrackedRounds(rr));
}

// Bytes written by the first cell of every round so far.
double WrittenBytes(const RoundsResult& rr) {
  double written = 0;
  for (const auto& round : rr.rounds) written += static_cast<double>(round[0].result.dirs[1].bytes);
  return written;
}

// Rounds of 4 KiB random writes until steady: the workload-dependent preconditioning before
// LVI, HIR and each OP-study point.
Result<RoundsResult> WritePreconditionToSteady(Runner& r, int first_step, uint64_t range,
                                               uint64_t salt) {
  const PtsOptions& o = r.options();
  Load load = LoadOf(o, "wsat");
  auto cells = [&](int round) {
    return std::vector<Cell>{{"precondition rw=0/100 bs=4KiB",
                              r.Spec(false, 0, 4 * kKiB, load.threads, load.qd, o.round_ns, range,
                                     salt + static_cast<uint64_t>(round))}};
  };
  const TrackFn track = TrackCells({{"precondition rw=0/100 bs=4KiB", "iops"}});
  if (o.wdpc_capacity_multiple <= 0) return RunRounds(r, first_step, o.max_rounds, cells, track);
  // At least that much written first; then steady state judged on the rounds after it alone,
  // or --max-rounds more rounds.
  const double need = o.wdpc_capacity_multiple * static_cast<double>(range);
  auto preconditioned = [&](const RoundsResult& rr) { return WrittenBytes(rr) >= need; };
  auto done = [&](const RoundsResult& rr) {
    return rr.first_judged &&
           (rr.all_reached || rr.rounds.size() >= *rr.first_judged + o.max_rounds);
  };
  return RunRounds(r, first_step, std::max(o.wsat_max_rounds, o.max_rounds), cells, track, false,
                   done, preconditioned);
}

// One LVI curve family: for each (mix, bs), every threads x QD point (warm-up + measured).
Result<std::vector<results::Curve>> LviSweep(Runner& r, int& step, const std::vector<Mix>& mixes,
                                             const std::vector<uint64_t>& sizes, uint64_t range,
                                             uint64_t salt) {
  const PtsOptions& o = r.options();
  std::vector<results::Curve> curves;
  for (const Mix& m : mixes) {
    for (uint64_t bs : sizes) {
      SSDLAB_RETURN_IF_ERROR(CheckBlock(r, bs));
      std::string curve = CellName(m, bs);
      auto body = [&]() -> Result<std::vector<StoredPhase>> {
        std::vector<StoredPhase> out;
        for (uint32_t t : o.lvi_threads) {
          for (uint32_t q : o.lvi_qds) {
            WorkloadSpec s = r.Spec(false, m.read_pct, bs, t, q, o.lvi_measure_ns, range, ++salt);
            s.ramp_ns = o.lvi_warmup_ns;
            std::string cell = curve + " T" + std::to_string(t) + " Q" + std::to_string(q);
            SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(s, cell));
            r.Report({.stage = "point",
                      .cell = cell,
                      .iops = res.Iops(res.Total()),
                      .mean_ns = res.Total().latency.Mean(),
                      .p99_ns = res.Total().latency.Percentile(99)});
            out.push_back({step,
                           cell,
                           {{"threads", t}, {"qd", q}, {"description", DescribeWorkload(s)}},
                           std::move(res)});
          }
        }
        return out;
      };
      salt += 1000;
      SSDLAB_ASSIGN_OR_RETURN(auto phases, r.Step(step++, body, nullptr));
      results::Curve c{curve, m.read_pct, bs, {}};
      for (const StoredPhase& p : phases) {
        c.points.push_back({p.workload.value("threads", 0u), p.workload.value("qd", 0u),
                            results::MetricsOf(p.result, kTailPercentiles)});
      }
      curves.push_back(std::move(c));
    }
  }
  return curves;
}

// ---- Latency vs IOPS ----
Result<TestOutcome> Lvi(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, true));
  SSDLAB_ASSIGN_OR_RETURN(RoundsResult pre, WritePreconditionToSteady(r, 1, range, 0x1f1));
  int step = pre.next_step;
  SSDLAB_ASSIGN_OR_RETURN(auto curves,
                          LviSweep(r, step, o.lvi_mixes, o.lvi_block_bytes, range, 0x1f100));
  return Outcome(SteadyStateJson(pre),
                 results::ToJson(results::LviResults{purge, range, std::move(curves)}),
                 TrackedRounds(pre));
}

// ---- Write saturation ----
Result<TestOutcome> Wsat(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, false));
  Load load = LoadOf(o, "wsat");
  auto cells = [&](int round) {
    return std::vector<Cell>{
        {"rw=0/100 bs=4KiB", r.Spec(false, 0, 4 * kKiB, load.threads, load.qd, o.wsat_round_ns,
                                    range, 0x5a7 + static_cast<uint64_t>(round))}};
  };
  const double limit = o.wsat_capacity_multiple * static_cast<double>(range);
  auto done = [&](const RoundsResult& rr) { return WrittenBytes(rr) >= limit; };
  SSDLAB_ASSIGN_OR_RETURN(RoundsResult rr,
                          RunRounds(r, 1, o.wsat_max_rounds, cells,
                                    TrackCells({{"rw=0/100 bs=4KiB", "iops"}}), false, done));
  results::WsatResults wsat{purge, range, {}, done(rr) ? "capacity written" : "round limit"};
  // WSAT ends by its own conditions; its steady state is recorded, not required to end it.
  results::TestSteadyState steady = SteadyStateOf(rr);
  if (done(rr)) {
    steady.end = results::TestEnd::kOwnCapacity;
    steady.end_capacity_multiple = o.wsat_capacity_multiple;
  } else {
    steady.end = results::TestEnd::kOwnRoundLimit;
    steady.end_rounds = o.wsat_max_rounds;
  }
  double written = 0, t = 0;
  for (size_t i = 0; i < rr.rounds.size(); ++i) {
    const PhaseResult& p = rr.rounds[i][0].result;
    written += static_cast<double>(p.dirs[1].bytes);
    t += static_cast<double>(p.measured_ns) / 1e9;
    wsat.per_round.push_back({i + 1, t, written, written / static_cast<double>(range),
                              results::MetricsOf(p, kTailPercentiles)});
  }
  return Outcome(results::ToJson(steady), results::ToJson(wsat), TrackedRounds(rr));
}

// ---- Host idle recovery ----
Result<TestOutcome> Hir(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  // Sequential fill first: without it the fresh drive's plateau looks steady.
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, true));
  SSDLAB_ASSIGN_OR_RETURN(RoundsResult pre, WritePreconditionToSteady(r, 1, range, 0x417));
  double baseline = pre.verdicts.begin()->second.mean;
  Load load = LoadOf(o, "hir");
  int step = pre.next_step;
  uint64_t salt = 0x41700;
  results::HirResults hir{purge, baseline, {}};
  for (uint64_t wait : o.hir_wait_ns) {
    auto body = [&]() -> Result<std::vector<StoredPhase>> {
      std::vector<StoredPhase> out;
      for (uint32_t c = 0; c < o.hir_cycles; ++c) {
        WorkloadSpec s =
            r.Spec(false, 0, 4 * kKiB, load.threads, load.qd, o.hir_write_ns, range, salt + c);
        std::string cell =
            "wait " + FormatNs(static_cast<double>(wait)) + " cycle " + std::to_string(c + 1);
        SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(s, cell));
        if (c % 20 == 0)
          r.Report({.stage = "cycle",
                    .round = c + 1,
                    .max_rounds = o.hir_cycles,
                    .cell = cell,
                    .iops = res.Iops(res.Total()),
                    .mean_ns = res.Total().latency.Mean(),
                    .p99_ns = res.Total().latency.Percentile(99)});
        out.push_back({step, cell, {{"wait_ns", wait}, {"cycle", c + 1}}, std::move(res)});
        SSDLAB_RETURN_IF_ERROR(r.Idle(wait));
      }
      WorkloadSpec back =
          r.Spec(false, 0, 4 * kKiB, load.threads, load.qd, o.hir_baseline_ns, range, salt + 99999);
      back.interval_ns = std::max<uint64_t>(o.hir_baseline_ns / 60, kNsPerMs * 10);
      SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(back, "return to baseline"));
      out.push_back({step,
                     "return to baseline after wait " + FormatNs(static_cast<double>(wait)),
                     {{"wait_ns", wait}, {"baseline", true}},
                     std::move(res)});
      return out;
    };
    salt += 1'000'000;
    SSDLAB_ASSIGN_OR_RETURN(
        auto phases, r.Step(step++, body, [&](const std::vector<StoredPhase>& ph) {
          double sum = 0;
          for (size_t i = 0; i + 1 < ph.size(); ++i) sum += ph[i].result.Iops(ph[i].result.Total());
          return nlohmann::json{
              {"mean_cycle_iops", ph.size() > 1 ? sum / static_cast<double>(ph.size() - 1) : 0}};
        }));
    results::HirWaitState ws;
    ws.wait_ns = wait;
    std::vector<const PhaseResult*> writes;
    for (size_t i = 0; i + 1 < phases.size(); ++i) {
      const PhaseResult& p = phases[i].result;
      writes.push_back(&p);
      ws.cycles.push_back(
          {i + 1, p.Iops(p.Total()), p.Total().latency.Mean(), p.Total().latency.max()});
    }
    PhaseResult merged = MergePhases(writes);
    const PhaseResult& back = phases.back().result;
    for (const IntervalSample& iv : back.intervals) {
      double secs = static_cast<double>(iv.t_end_ns - iv.t_begin_ns) / 1e9;
      ws.return_series.push_back({static_cast<double>(iv.t_end_ns) / 1e9,
                                  secs > 0 ? static_cast<double>(iv.dirs[1].ios) / secs : 0});
    }
    double continuous = back.Iops(back.Total());
    ws.mean_cycle_iops = merged.Iops(merged.Total());
    ws.gain_vs_baseline = baseline > 0 ? ws.mean_cycle_iops / baseline : 0;
    ws.gain_vs_continuous = continuous > 0 ? ws.mean_cycle_iops / continuous : 0;
    ws.cycle_metrics = results::MetricsOf(merged, o.percentiles);
    ws.return_to_baseline = results::MetricsOf(back, o.percentiles);
    hir.wait_states.push_back(std::move(ws));
  }
  return Outcome(SteadyStateJson(pre), results::ToJson(hir), TrackedRounds(pre));
}

// ---- Cross-stimulus recovery ----
Result<TestOutcome> Xsr(Runner& r) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, false));
  Load load = LoadOf(o, "xsr");
  struct Access {
    const char* name;
    bool sequential;
    uint64_t bs;
  };
  const Access access[3] = {{"A: SEQ 1024KiB write", true, 1024 * kKiB},
                            {"B: RND 8KiB write", false, 8 * kKiB},
                            {"C: SEQ 1024KiB write", true, 1024 * kKiB}};
  std::vector<PhaseResult> phases;
  for (int i = 0; i < 3; ++i) {
    auto body = [&]() -> Result<std::vector<StoredPhase>> {
      WorkloadSpec s = r.Spec(access[i].sequential, 0, access[i].bs, load.threads, load.qd,
                              o.xsr_ns[i], range, 0x757 + i);
      s.interval_ns = std::max<uint64_t>(o.xsr_ns[i] / 120, 10 * kNsPerMs);
      r.Report({.stage = "round",
                .round = static_cast<uint32_t>(i + 1),
                .max_rounds = 3,
                .cell = access[i].name});
      SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(s, access[i].name));
      return std::vector<StoredPhase>{
          {i + 1, access[i].name, {{"description", DescribeWorkload(s)}}, std::move(res)}};
    };
    SSDLAB_ASSIGN_OR_RETURN(auto step, r.Step(i + 1, body, nullptr));
    phases.push_back(step[0].result);
  }
  auto bw_series = [](const PhaseResult& p) {
    std::vector<std::pair<double, double>> v;
    for (const IntervalSample& iv : p.intervals) {
      double secs = static_cast<double>(iv.t_end_ns - iv.t_begin_ns) / 1e9;
      if (secs > 0)
        v.emplace_back(static_cast<double>(iv.t_end_ns) / 1e9,
                       static_cast<double>(iv.dirs[1].bytes) / secs);
    }
    return v;
  };
  // A's settled throughput: the mean of its last 10% of intervals.
  auto a = bw_series(phases[0]);
  double settled = 0;
  size_t tail = std::max<size_t>(1, a.size() / 10);
  for (size_t i = a.size() - std::min(tail, a.size()); i < a.size(); ++i) settled += a[i].second;
  settled /= static_cast<double>(std::min(tail, a.size()));
  double recovery_s = -1;
  for (const auto& [t, bw] : bw_series(phases[2])) {
    if (bw >= 0.9 * settled) {
      recovery_s = t;
      break;
    }
  }
  results::XsrResults xsr{purge, {}, settled, recovery_s, recovery_s >= 0};
  for (int i = 0; i < 3; ++i) {
    xsr.segments.push_back(
        {access[i].name, results::MetricsOf(phases[i], o.percentiles), bw_series(phases[i])});
  }
  return Outcome(nlohmann::json::object(), results::ToJson(xsr), {});
}

// ---- DIRTH and ECW: threads x QD sweeps ----
Result<TestOutcome> Sweep(Runner& r, bool ecw) {
  const PtsOptions& o = r.options();
  uint64_t range = r.default_range_end();
  SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(0, range, true));
  auto make = [&](uint32_t t, uint32_t q, uint64_t runtime, uint64_t salt) {
    WorkloadSpec s = r.Spec(false, ecw ? 40 : 65, 8 * kKiB, t, q, runtime, range, salt);
    if (ecw) {
      // PTS-E 1.1 Enterprise Composite Workload.
      s.block_sizes = {{512, 4},  {1024, 1},  {1536, 1},  {2048, 1},  {2560, 1},  {3072, 1},
                       {3584, 1}, {4096, 67}, {8192, 10}, {16384, 7}, {32768, 3}, {65536, 3}};
      s.dist.kind = DistKind::kZoned;
      s.dist.zones = {{50, 5}, {30, 15}, {20, 80}};
    }
    return s;
  };
  if (ecw) SSDLAB_RETURN_IF_ERROR(CheckBlock(r, 512));
  auto name = [](uint32_t t, uint32_t q) {
    return "T" + std::to_string(t) + " Q" + std::to_string(q);
  };
  auto cells = [&](int round) {
    std::vector<Cell> out;
    uint64_t salt = (static_cast<uint64_t>(round) << 16) + (ecw ? 0xec0000 : 0xd10000);
    for (uint32_t t : o.dirth_threads) {
      for (uint32_t q : o.dirth_qds) out.push_back({name(t, q), make(t, q, o.round_ns, ++salt)});
    }
    return out;
  };
  std::string tracked = name(o.dirth_threads.front(), o.dirth_qds.front());
  SSDLAB_ASSIGN_OR_RETURN(RoundsResult rr,
                          RunRounds(r, 1, o.max_rounds, cells, TrackCells({{tracked, "iops"}})));
  results::SweepResults sweep{purge, range, WindowCells(rr, o), {}, o.dirth_max_mean_ns};
  const std::vector<results::CellResult>& map = sweep.cells;
  auto iops_of = [&](int i) { return map[i].metrics.total.iops; };
  // Selected points: the max IOPS with a mean below the limit, the min, and the one nearest the
  // middle.
  int best = -1, lowest = -1;
  for (size_t i = 0; i < map.size(); ++i) {
    double iops = map[i].metrics.total.iops, mean = map[i].metrics.total.lat_ns.mean;
    if (mean <= static_cast<double>(o.dirth_max_mean_ns) && (best < 0 || iops > iops_of(best)))
      best = static_cast<int>(i);
    if (lowest < 0 || iops < iops_of(lowest)) lowest = static_cast<int>(i);
  }
  if (best < 0) best = lowest;
  double mid_iops = (iops_of(best) + iops_of(lowest)) / 2;
  int mid = best;
  for (size_t i = 0; i < map.size(); ++i) {
    if (std::fabs(iops_of(static_cast<int>(i)) - mid_iops) < std::fabs(iops_of(mid) - mid_iops))
      mid = static_cast<int>(i);
  }
  struct Pick {
    const char* role;
    int index;
  };
  const Pick picks[3] = {{"max_iops", best}, {"mid", mid}, {"min_iops", lowest}};
  auto body = [&]() -> Result<std::vector<StoredPhase>> {
    std::vector<StoredPhase> out;
    for (const Pick& p : picks) {
      // The cells are the last round's, in its order (WindowResults).
      const nlohmann::json& wl = rr.rounds.back()[p.index].workload;
      const std::string& cell = map[p.index].cell;
      uint32_t t = static_cast<uint32_t>(std::stoul(cell.substr(1)));
      uint32_t q = static_cast<uint32_t>(std::stoul(cell.substr(cell.find('Q') + 1)));
      SSDLAB_ASSIGN_OR_RETURN(
          PhaseResult res,
          r.Phase(make(t, q, o.dirth_histogram_ns, 0x4157 + static_cast<uint64_t>(p.index)), cell));
      out.push_back({rr.next_step, std::string(p.role) + " " + cell, wl, std::move(res)});
    }
    return out;
  };
  SSDLAB_ASSIGN_OR_RETURN(auto hist_phases, r.Step(rr.next_step, body, nullptr));
  for (const StoredPhase& p : hist_phases) {
    sweep.selected.push_back({p.cell, p.result.Total().latency.NonEmptyBuckets(),
                              results::MetricsOf(p.result, o.percentiles)});
  }
  return Outcome(SteadyStateJson(rr), results::ToJson(sweep), TrackedRounds(rr));
}

// ---- Over-provisioning study ----
Result<TestOutcome> OpStudy(Runner& r) {
  const PtsOptions& o = r.options();
  std::vector<double> ops = o.op_pcts;
  if (std::find(ops.begin(), ops.end(), 0.0) == ops.end()) ops.insert(ops.begin(), 0.0);
  int step = 0;
  results::OpResults op_study;
  bool all = true;
  std::vector<results::TrackedRound> rounds;
  for (double op : ops) {
    uint64_t range =
        static_cast<uint64_t>(static_cast<double>(r.default_range_end()) * (100 - op) / 100) /
        kMiB * kMiB;
    SSDLAB_ASSIGN_OR_RETURN(std::string purge, r.PurgeAndPrecondition(step++, range, true));
    SSDLAB_ASSIGN_OR_RETURN(
        RoundsResult pre,
        WritePreconditionToSteady(r, step, range, 0x0b00 + static_cast<uint64_t>(op * 10)));
    step = pre.next_step;
    all &= pre.all_reached;
    SSDLAB_ASSIGN_OR_RETURN(auto curves, LviSweep(r, step, {{0}, {70}}, {4 * kKiB}, range,
                                                  0x0b0000 + static_cast<uint64_t>(op * 1000)));
    for (results::TrackedRound& rd : TrackedRounds(pre)) {
      rd.op_pct = op;
      rounds.push_back(std::move(rd));
    }
    op_study.op_points.push_back({op, range, purge, SteadyStateOf(pre),
                                  pre.verdicts.begin()->second.mean, std::move(curves)});
  }
  // The first OP point's verdict, reached over all.
  results::TestSteadyState steady = op_study.op_points.empty()
                                        ? results::TestSteadyState{}
                                        : op_study.op_points.front().steady_state;
  steady.reached = all;
  for (const results::OpPoint& p : op_study.op_points) {
    if (!p.steady_state.reached) steady.end = p.steady_state.end;
  }
  return Outcome(results::ToJson(steady), results::ToJson(op_study), rounds);
}

}  // namespace

namespace {
std::vector<uint64_t> NoSizes(const PtsOptions&) { return {}; }
// ECW's mix (Sweep): blocks of 0.5 KiB to 3.5 KiB among the larger ones.
std::vector<uint64_t> EcwSizes(const PtsOptions&) {
  return {512, 1024, 1536, 2048, 2560, 3072, 3584};
}
}  // namespace

const std::vector<TestDef>& Tests() {
  using T = results::PtsTest;
  static const std::vector<TestDef> kTests = {
      {T::kIops, Iops, [](const PtsOptions& o) { return o.iops_block_bytes; }, "--iops-bs"},
      {T::kTp, Throughput, [](const PtsOptions& o) { return o.tp_block_bytes; }, "--tp-bs"},
      {T::kLat, Latency, [](const PtsOptions& o) { return o.lat_block_bytes; }, "--lat-bs"},
      {T::kLvi, Lvi, [](const PtsOptions& o) { return o.lvi_block_bytes; }, "--lvi-bs"},
      {T::kWsat, Wsat, NoSizes, ""},
      {T::kHir, Hir, NoSizes, ""},
      {T::kXsr, Xsr, NoSizes, ""},
      {T::kDirth, [](Runner& r) { return Sweep(r, false); }, NoSizes, ""},
      {T::kEcw, [](Runner& r) { return Sweep(r, true); }, EcwSizes, ""},
      {T::kOp, OpStudy, NoSizes, ""},
  };
  return kTests;
}

const TestDef* FindTest(const std::string& name) {
  for (const TestDef& t : Tests()) {
    if (name == t.name()) return &t;
  }
  return nullptr;
}

}  // namespace ssdlab::pts
