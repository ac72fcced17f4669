#include "suite/runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/clock.h"
#include "base/rng.h"
#include "base/units.h"
#include "results/ids.h"
#include "stats/completed_io.h"

namespace ssdlab::pts {

std::string BlockLabel(uint64_t bytes) {
  char buf[32];
  if (bytes % 1024 == 0) {
    std::snprintf(buf, sizeof buf, "%lluKiB", static_cast<unsigned long long>(bytes / 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%gKiB", static_cast<double>(bytes) / 1024.0);
  }
  return buf;
}

std::string MixLabel(const Mix& m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g/%g", m.read_pct, 100 - m.read_pct);
  return buf;
}

std::string CellName(const Mix& m, uint64_t bytes) {
  return "rw=" + MixLabel(m) + " bs=" + BlockLabel(bytes);
}

PhaseResult MergePhases(const std::vector<const PhaseResult*>& phases) {
  PhaseResult m;
  for (const PhaseResult* p : phases) {
    for (int d = 0; d < kDirections; ++d) m.dirs[d].Merge(p->dirs[d]);
    m.measured_ns += p->measured_ns;
    m.io_errors += p->io_errors;
    m.cpu_user_s += p->cpu_user_s;
    m.cpu_sys_s += p->cpu_sys_s;
  }
  if (!phases.empty()) {
    m.counters_name = phases.back()->counters_name;
    m.counters = phases.back()->counters;
  }
  return m;
}

json PhaseMetrics(const PhaseResult& r, const std::vector<double>& pcts) {
  return results::ToJson(results::MetricsOf(r, pcts));
}

Runner::Runner(TestEnv& env) : env_(env), started_s_(static_cast<double>(MonotonicNs()) / 1e9) {
  auto rounds = env_.store.LoadRounds(env_.test_id);
  if (rounds.ok()) {
    for (const StoredRound& r : rounds.value()) stored_[r.round] = true;
  } else {
    stored_status_ = rounds.status();
  }
}

uint64_t Runner::default_range_end() const {
  const uint64_t align = kMiB;
  return static_cast<uint64_t>(static_cast<double>(capacity()) * options().active_range_pct /
                               100.0) /
         align * align;
}

WorkloadSpec Runner::Spec(bool sequential, double read_pct, uint64_t bs, uint32_t threads,
                          uint32_t qd, uint64_t runtime_ns, uint64_t range_end,
                          uint64_t salt) const {
  WorkloadSpec s;
  s.pattern = sequential ? Pattern::kSequential : Pattern::kRandom;
  s.read_pct = read_pct;
  s.block_sizes = {BlockShare{bs, 100}};
  s.jobs = std::max<uint32_t>(threads, 1);
  s.queue_depth = std::max<uint32_t>(qd, 1);
  s.runtime_ns = runtime_ns;
  s.range_begin_bytes = 0;
  s.range_end_bytes = range_end;
  // Every phase gets its own seed: the same seed each round would rewrite the same offsets.
  s.seed = Mix64(options().seed ^ Mix64(static_cast<uint64_t>(env_.test_seq) << 40 ^ salt));
  s.interval_ns = 0;
  return s;
}

void Runner::Report(ProgressEvent e) {
  if (!env_.progress) return;
  e.test = env_.test_name;
  if (e.eta_test_s >= 0 && env_.battery_eta_extra_s >= 0)
    e.eta_battery_s = e.eta_test_s + env_.battery_eta_extra_s;
  env_.progress->OnEvent(e);
}

Result<PhaseResult> Runner::Phase(const WorkloadSpec& spec, const std::string& cell) {
  // Checked before each phase, not only before each step: a step of many short phases (the
  // cells of a round) ends at the next phase, whatever the backend's own check inside a phase
  // sees (the simulator's comes every few thousand events, which a short phase never reaches).
  if (stopped())
    return Status::Error(Code::kInterrupted, "interrupted before " + env_.test_name + " " + cell);
  RunControl control;
  control.stop = env_.stop;
  auto r = env_.backend.RunPhase(spec, control);
  if (!r.ok()) return r.status().WithContext(env_.test_name + " " + cell);
  if (r->interrupted)
    return Status::Error(Code::kInterrupted, "interrupted during " + env_.test_name + " " + cell);
  if (r->io_errors) {
    return Status::Io(env_.test_name + " " + cell + ": " + std::to_string(r->io_errors) +
                      " I/O errors, first: " + r->errors.front());
  }
  SSDLAB_RETURN_IF_ERROR(
      CheckCompletedIo(r.value(), env_.test_name + " " + cell,
                       "a longer --time (pts: --round) or a lower --time-scale"));
  return r;
}

Status Runner::Idle(uint64_t ns) {
  if (stopped()) return Status::Error(Code::kInterrupted, "interrupted");
  RunControl control;
  control.stop = env_.stop;
  return env_.backend.Idle(ns, control);
}

namespace {

// The replay of a stored step must give what was stored (the simulator is deterministic).
Status CheckReplay(const std::vector<StoredPhase>& stored, const std::vector<StoredPhase>& got,
                   const std::string& test, int step) {
  auto diverged = [&](const std::string& what) {
    return Status::Error(Code::kInternal, test + " step " + std::to_string(step) +
                                              ": replay on resume differs from the stored round (" +
                                              what + ")");
  };
  if (stored.size() != got.size()) return diverged("phase count");
  for (size_t i = 0; i < got.size(); ++i) {
    for (int d = 0; d < kDirections; ++d) {
      const DirectionStats& a = stored[i].result.dirs[d];
      const DirectionStats& b = got[i].result.dirs[d];
      if (a.ios != b.ios || a.bytes != b.bytes || a.latency.max() != b.latency.max() ||
          a.latency.sum() != b.latency.sum()) {
        return diverged(got[i].cell);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<StoredPhase>> Runner::Step(
    int index, const Body& body,
    const std::function<json(const std::vector<StoredPhase>&)>& tracking) {
  SSDLAB_RETURN_IF_ERROR(stored_status_);
  if (stored_.count(index)) {
    SSDLAB_ASSIGN_OR_RETURN(std::vector<StoredPhase> stored,
                            env_.store.LoadPhases(env_.test_id, index));
    if (env_.backend.persistent_state()) return stored;
    SSDLAB_ASSIGN_OR_RETURN(std::vector<StoredPhase> replayed, body());
    SSDLAB_RETURN_IF_ERROR(CheckReplay(stored, replayed, env_.test_name, index));
    return stored;
  }
  if (stopped()) return Status::Error(Code::kInterrupted, "interrupted");
  SSDLAB_ASSIGN_OR_RETURN(std::vector<StoredPhase> phases, body());
  for (auto& p : phases) p.round = index;
  SSDLAB_RETURN_IF_ERROR(env_.store.CommitRound(env_.test_id, index, phases,
                                                tracking ? tracking(phases) : json::object()));
  stored_[index] = true;
  return phases;
}

Result<std::string> Runner::PurgeAndPrecondition(int index, uint64_t range_end, bool wipc) {
  std::string method;
  auto body = [&]() -> Result<std::vector<StoredPhase>> {
    Report({.stage = "purge", .message = "purge (" + options().purge + ")"});
    RunControl control;
    control.stop = env_.stop;
    SSDLAB_ASSIGN_OR_RETURN(method, env_.backend.Purge(options().purge, control));
    std::vector<StoredPhase> out;
    if (wipc) {
      const PtsOptions& o = options();
      uint32_t threads = o.spec == PtsSpec::kPtsC ? 2 : 4;
      uint32_t qd = o.spec == PtsSpec::kPtsC ? 16 : 32;
      WorkloadSpec s = Spec(true, 0, 128 * kKiB, threads, qd, 0, range_end, 0x3a11 + index);
      s.io_bytes = static_cast<uint64_t>(o.wipc_multiple * static_cast<double>(range_end));
      s.io_bytes = std::max<uint64_t>(s.io_bytes / (128 * kKiB) * (128 * kKiB), 128 * kKiB);
      s.interval_ns = 0;
      Report({.stage = "wipc",
              .message = "preconditioning: SEQ 128KiB write of " + FormatBytes(s.io_bytes)});
      SSDLAB_ASSIGN_OR_RETURN(PhaseResult r, Phase(s, "wipc"));
      out.push_back({index, "wipc", json{{"description", DescribeWorkload(s)}}, std::move(r)});
    }
    return out;
  };
  SSDLAB_ASSIGN_OR_RETURN(auto phases, Step(index, body, [&](const std::vector<StoredPhase>&) {
                            return json{{"purge_method", method}};
                          }));
  if (method.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(auto rounds, env_.store.LoadRounds(env_.test_id));
    for (const StoredRound& r : rounds) {
      if (r.round == index) method = r.tracking.value("purge_method", "");
    }
  }
  return method;
}

double CellValue(const std::vector<StoredPhase>& round, const std::string& cell,
                 const std::string& what) {
  for (const StoredPhase& p : round) {
    if (p.cell != cell) continue;
    const PhaseResult& r = p.result;
    if (what == "iops") return r.Iops(r.Total());
    if (what == "read_iops") return r.Iops(r.dirs[0]);
    if (what == "write_iops") return r.Iops(r.dirs[1]);
    if (what == "bw") return r.BytesPerS(r.Total());
    if (what == "mean_ns") return r.Total().latency.Mean();
  }
  return 0;
}

results::TestSteadyState SteadyStateOf(const RoundsResult& rr) {
  results::TestSteadyState s;
  s.required = true;
  s.reached = rr.all_reached;
  s.end = rr.all_reached ? results::TestEnd::kSteadyState : results::TestEnd::kRoundLimit;
  s.tracking = rr.variables;
  for (const auto& name : rr.variables) s.variables[name] = rr.verdicts.at(name);
  if (!rr.variables.empty()) s.headline = rr.verdicts.at(rr.variables[0]);
  return s;
}

std::vector<results::TrackedRound> TrackedRounds(const RoundsResult& rr) {
  std::vector<results::TrackedRound> out(rr.rounds.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].round = i + 1;
    for (const auto& name : rr.variables) out[i].tracking[name] = rr.series.at(name)[i];
  }
  return out;
}

std::vector<results::CellResult> WindowResults(const RoundsResult& rr, uint32_t window,
                                               const std::vector<double>& pcts) {
  std::vector<results::CellResult> cells;
  if (rr.rounds.empty()) return cells;
  size_t first = rr.rounds.size() > window ? rr.rounds.size() - window : 0;
  for (const StoredPhase& last : rr.rounds.back()) {
    std::vector<const PhaseResult*> phases;
    for (size_t r = first; r < rr.rounds.size(); ++r) {
      for (const StoredPhase& p : rr.rounds[r]) {
        if (p.cell == last.cell) phases.push_back(&p.result);
      }
    }
    results::CellResult c{last.cell, {}, results::MetricsOf(MergePhases(phases), pcts)};
    const json& wl = last.workload;
    if (auto d = wl.find("description"); d != wl.end() && d->is_string())
      c.workload.description = d->get<std::string>();
    if (uint64_t seed = 0; wl.contains("seed") && results::IdFromJson(wl["seed"], seed))
      c.workload.seed = seed;
    cells.push_back(std::move(c));
  }
  return cells;
}

Result<RoundsResult> RunRounds(Runner& r, int first_step, uint32_t max_rounds,
                               const std::function<std::vector<Cell>(int)>& cells_of,
                               const TrackFn& track, bool stop_when_steady,
                               const RoundsPredicate& done, const RoundsPredicate& preconditioned) {
  RoundsResult rr;
  if (!preconditioned) rr.first_judged = 0;
  const PtsOptions& o = r.options();
  double t0 = static_cast<double>(MonotonicNs()) / 1e9;
  for (uint32_t round = 0; round < max_rounds; ++round) {
    int step = first_step + static_cast<int>(round);
    std::vector<Cell> cells = cells_of(static_cast<int>(round));
    auto body = [&]() -> Result<std::vector<StoredPhase>> {
      std::vector<StoredPhase> out;
      for (size_t i = 0; i < cells.size(); ++i) {
        SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(cells[i].spec, cells[i].name));
        const DirectionStats t = res.Total();
        double elapsed = static_cast<double>(MonotonicNs()) / 1e9 - t0;
        double per_round = round ? elapsed / round : -1;
        r.Report({.stage = "round",
                  .round = round + 1,
                  .max_rounds = max_rounds,
                  .cell = cells[i].name,
                  .iops = res.Iops(t),
                  .mean_ns = t.latency.Mean(),
                  .p99_ns = t.latency.Percentile(99),
                  .eta_test_s = per_round > 0 ? per_round * (max_rounds - round) : -1});
        out.push_back({step, cells[i].name,
                       json{{"description", DescribeWorkload(cells[i].spec)},
                            {"seed", results::IdJson(cells[i].spec.seed)}},
                       std::move(res)});
      }
      return out;
    };
    auto tracking = [&](const std::vector<StoredPhase>& phases) {
      json t = json::object();
      for (const auto& [k, v] : track(phases)) t[k] = v;
      return t;
    };
    SSDLAB_ASSIGN_OR_RETURN(std::vector<StoredPhase> phases, r.Step(step, body, tracking));
    auto values = track(phases);
    if (rr.variables.empty()) {
      for (const auto& [k, v] : values) rr.variables.push_back(k);
    }
    for (const auto& [k, v] : values) rr.series[k].push_back(v);
    rr.rounds.push_back(std::move(phases));
    // The round that completes the preconditioning is not wholly after it: the next one is.
    if (!rr.first_judged && preconditioned(rr)) rr.first_judged = rr.rounds.size();
    rr.all_reached = !rr.variables.empty();
    double distance = 0;
    for (const auto& name : rr.variables) {
      SteadyStateVerdict v =
          JudgeSteadyState(rr.series[name], o.steady, rr.first_judged.value_or(rr.rounds.size()));
      rr.verdicts[name] = v;
      rr.all_reached &= v.reached;
      if (o.steady.rule == SteadyStateRule::kSnia) {
        distance = std::max({distance, v.range_pct - o.steady.max_range_pct,
                             v.slope_excursion_pct - o.steady.max_slope_pct});
      } else {
        distance = std::max(distance, v.band_excursion_pct - o.steady.band_pct);
      }
    }
    r.Report({.stage = "round",
              .round = round + 1,
              .max_rounds = max_rounds,
              .steady_distance_pct = std::max(0.0, distance),
              .message = rr.all_reached ? "steady state reached" : ""});
    if (done && done(rr)) break;
    if (stop_when_steady && rr.all_reached) break;
  }
  rr.next_step = first_step + static_cast<int>(rr.rounds.size());
  return rr;
}

}  // namespace ssdlab::pts
