// The profiles' registry, options and the run of a profile over its fill levels; the bodies
// of the kinds are in profile_review.cc and profile_load.cc.
#include "suite/profile.h"

#include <algorithm>
#include <cstdio>

#include "base/units.h"
#include "results/ids.h"
#include "suite/profile_internal.h"
#include "suite/runner.h"

namespace ssdlab {
namespace profile_internal {

using nlohmann::json;

WorkloadSpec Ctx::Spec(bool seq, double read_pct, std::vector<BlockShare> bs, uint32_t jobs,
                       uint32_t qd, uint64_t begin, uint64_t end, uint64_t runtime_ns,
                       uint64_t io_bytes) {
  WorkloadSpec s = r.Spec(seq, read_pct, bs.front().bytes, jobs, qd, runtime_ns, end, ++salt);
  s.block_sizes = std::move(bs);
  s.range_begin_bytes = begin;
  s.io_bytes = io_bytes;
  return s;
}

Result<std::vector<StoredPhase>> Ctx::Step(const std::vector<PhaseItem>& items, bool purge,
                                           std::string* purge_method) {
  std::string method;
  auto body = [&]() -> Result<std::vector<StoredPhase>> {
    if (purge) {
      r.Report({.stage = "purge", .message = "purge (" + o.purge + ")"});
      RunControl control;
      control.stop = r.env().stop;
      SSDLAB_ASSIGN_OR_RETURN(method, r.env().backend.Purge(o.purge, control));
    }
    std::vector<StoredPhase> out;
    for (const PhaseItem& it : items) {
      if (it.idle_before_ns) SSDLAB_RETURN_IF_ERROR(r.Idle(it.idle_before_ns));
      SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(it.spec, it.cell));
      const DirectionStats t = res.Total();
      r.Report({.stage = "phase",
                .cell = it.cell,
                .iops = res.Iops(t),
                .mean_ns = t.latency.Mean(),
                .p99_ns = t.latency.Percentile(99)});
      out.push_back({0, it.cell,
                     json{{"description", DescribeWorkload(it.spec)},
                          {"seed", results::IdJson(it.spec.seed)}},
                     std::move(res)});
    }
    return out;
  };
  auto tracking = [&](const std::vector<StoredPhase>& phases) {
    json t = json::object();
    for (const StoredPhase& p : phases) t[p.cell + " iops"] = p.result.Iops(p.result.Total());
    if (purge) t["purge_method"] = method;
    return t;
  };
  int index = step++;
  auto phases = r.Step(index, body, tracking);
  if (phases.ok() && purge && purge_method) {
    *purge_method = method;
    if (method.empty()) {
      auto rounds = r.env().store.LoadRounds(r.env().test_id);
      if (!rounds.ok()) return Result<std::vector<StoredPhase>>(rounds.status());
      for (const StoredRound& sr : rounds.value()) {
        if (sr.round == index) *purge_method = sr.tracking.value("purge_method", "");
      }
    }
  }
  return phases;
}

const PhaseResult& Find(const std::vector<StoredPhase>& phases, const std::string& cell) {
  for (const StoredPhase& p : phases) {
    if (p.cell == cell) return p.result;
  }
  static const PhaseResult kEmpty;
  return kEmpty;
}

WorkloadSpec SeqFill(Ctx& c, uint64_t begin, uint64_t end) {
  uint64_t bs = std::min<uint64_t>(kMiB, AlignDown(end - begin, c.lbs()));
  return c.Spec(true, 0, {{bs, 100}}, 1, 8, begin, end, 0, AlignDown(end - begin, bs));
}

Status NeedRoom(Ctx& c, uint64_t begin, uint64_t bytes, const std::string& what) {
  if (begin + bytes > c.capacity()) {
    return Status::Invalid(c.def.name + ": " + what + " of " + FormatBytes(bytes) +
                           " does not fit in the " +
                           FormatBytes(c.capacity() - std::min(begin, c.capacity())) +
                           " left on the target after the fill; give a smaller --size");
  }
  return Status::Ok();
}

uint64_t RoomFor(Ctx& c, uint64_t begin, uint64_t default_bytes, const std::string& what) {
  if (c.o.size_bytes) return c.o.size_bytes;
  const uint64_t left = c.capacity() - std::min(begin, c.capacity());
  if (default_bytes <= left || left < kMinRoom) return default_bytes;
  const uint64_t size = left / kMiB * kMiB;
  c.notes.push_back(what + " shrunk from " + FormatBytes(default_bytes) + " to " +
                    FormatBytes(size) + ", the room left after the fill");
  return size;
}

}  // namespace profile_internal

namespace {

using namespace profile_internal;
using nlohmann::json;
using pts::Runner;

std::string PctText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool UsesFreeSpace(const std::string& kind) {
  return kind == "cdm" || kind == "cdm-nvme" || kind == "atto" || kind == "as-ssd" ||
         kind == "fileio";
}

template <class T>
Result<results::ProfileKindResults> AsKind(Result<T> r) {
  if (!r.ok()) return r.status();
  return results::ProfileKindResults(std::move(r).value());
}

Result<results::ProfileKindResults> RunKind(Ctx& c, uint64_t base, bool filled, Summary& sum) {
  const std::string& k = c.def.kind;
  if (k == "cdm" || k == "cdm-nvme") return AsKind(Cdm(c, base, sum));
  if (k == "atto") return AsKind(Atto(c, base, sum));
  if (k == "as-ssd") return AsKind(AsSsd(c, base, sum));
  if (k == "surface") return AsKind(Surface(c, sum));
  if (k == "curve") return AsKind(Curve(c, filled, sum));
  if (k == "op-advisor") return AsKind(OpAdvisor(c, sum));
  if (k == "fill") return AsKind(Fill(c, sum));
  if (k == "fileio") return AsKind(FileIo(c, base, sum));
  if (k == "user") return AsKind(User(c, sum));
  return Status::Invalid("unknown profile kind '" + k + "'");
}

// Each summary figure of the first level at every level (those all levels have), with its
// change from the first level to the last.
std::vector<results::ProfileDifference> Differences(const std::vector<results::ProfileLevel>& ls) {
  std::vector<results::ProfileDifference> out;
  if (ls.size() < 2) return out;
  for (const results::SummaryFigure& first : ls.front().summary) {
    const std::string& k = first.metric;
    const double v0 = first.value;
    results::ProfileDifference d{k, {}, 0};
    for (const results::ProfileLevel& l : ls) {
      auto it = std::find_if(l.summary.begin(), l.summary.end(),
                             [&](const results::SummaryFigure& f) { return f.metric == k; });
      if (it == l.summary.end()) break;
      d.values.push_back(it->value);
    }
    if (d.values.size() != ls.size()) continue;
    d.change_pct = v0 != 0 ? (d.values.back() / v0 - 1) * 100 : 0.0;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& ProfileNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v = {"cdm",     "cdm-nvme", "atto", "as-ssd",
                                  "surface", "fileio",   "fill", "op-advisor"};
    for (const CurveMix& m : BuiltinCurveMixes()) v.push_back(m.name);
    return v;
  }();
  return kNames;
}

Result<ProfileDef> BuiltinProfile(const std::string& name) {
  ProfileDef d;
  d.name = name;
  for (const CurveMix& m : BuiltinCurveMixes()) {
    if (m.name == name) {
      d.kind = "curve";
      d.curve = m;
      d.description = "vdbench-style curve (the DC450R review): " + m.source;
      return d;
    }
  }
  static const std::vector<std::pair<std::string, std::string>> kOthers = {
      {"cdm",
       "CrystalDiskMark-style: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1; best of 5 passes"},
      {"cdm-nvme", "CrystalDiskMark NVMe set: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1"},
      {"atto",
       "ATTO-style: sequential read and write, 512 B .. 64 MiB doubling, QD 4, 256 MiB span"},
      {"as-ssd", "AS SSD-style: Seq 16 MiB over 1 GiB, 4K QD1, 4K 64 threads, access time, score"},
      {"surface", "AIDA64-style full-surface linear write then read, MB/s against position"},
      {"fileio",
       "sysbench fileio-style: files on a filesystem, O_DIRECT, rndrd/rndwr/rndrw, 192 threads"},
      {"fill", "sequential fill of the first --percent of the target"},
      {"op-advisor",
       "over-provisioning advisor (the DC500M over-provisioning study): sustained 4 KiB random "
       "write per OP, "
       "recommendation"}};
  for (const auto& [n, desc] : kOthers) {
    if (n == name) {
      d.kind = n;
      d.description = desc;
      return d;
    }
  }
  std::string known;
  for (const std::string& n : ProfileNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::Invalid("unknown profile '" + name + "' (" + known +
                         ", or a profile file ./NAME.toml)");
}

Status ValidateProfileOptions(const ProfileDef& def, const ProfileOptions& o) {
  for (double f : o.fill_pcts) {
    if (f < 0 || f >= 100) return Status::Invalid("--fill: " + PctText(f) + "% is outside 0..99%");
  }
  if (!o.fill_pcts.empty() && (def.kind == "op-advisor" || def.kind == "fill")) {
    return Status::Invalid(
        "--fill does not apply to " + def.kind +
        (def.kind == "fill" ? " (use --percent)" : " (it purges before each OP point)"));
  }
  for (double op : o.op_pcts) {
    if (op < 0 || op > 90) return Status::Invalid("--op: " + PctText(op) + "% is outside 0..90%");
  }
  if (o.fill_percent <= 0 || o.fill_percent > 100)
    return Status::Invalid("--percent must lie in (0, 100]");
  if (o.section_pct <= 0 || o.section_pct > 100)
    return Status::Invalid("--section must lie in (0, 100]");
  if (o.curve_fill_pct < 0 || o.curve_fill_pct > 100)
    return Status::Invalid("--curve-fill must lie in 0..100");
  for (double p : o.curve_pcts) {
    if (p <= 0 || p > 1000)
      return Status::Invalid("--points: " + PctText(p) + "% is outside (0, 1000]");
  }
  for (auto [flag, bs] : {std::pair{"--min-bs", o.min_bs}, std::pair{"--max-bs", o.max_bs}}) {
    if (bs && (bs < kMinAttoBlock || bs % kMinAttoBlock || bs > kMaxAttoBlock))
      return Status::Invalid(std::string(flag) + " " + FormatBytes(bs) +
                             ": a block size must be a multiple of 512 B from 512 B to 1 GiB");
  }
  const uint64_t min_bs = o.min_bs ? o.min_bs : kMinAttoBlock;
  const uint64_t max_bs = o.max_bs ? o.max_bs : 64 * kMiB;
  if (min_bs > max_bs)
    return Status::Invalid("--min-bs " + FormatBytes(min_bs) + " is larger than --max-bs " +
                           FormatBytes(max_bs));
  if (o.passes > kMaxPasses)
    return Status::Invalid("--passes " + std::to_string(o.passes) + " is above the most, " +
                           std::to_string(kMaxPasses));
  if (o.segments > kMaxSegments)
    return Status::Invalid("--segments " + std::to_string(o.segments) + " is above the most, " +
                           std::to_string(kMaxSegments));
  if (o.op_pcts.size() > kMaxOpPoints)
    return Status::Invalid("--op gives " + std::to_string(o.op_pcts.size()) +
                           " OP points, above the most, " + std::to_string(kMaxOpPoints));
  if (def.kind == "op-advisor") {
    // As OpAdvisor sets them (the defaults give 600 intervals a phase at every time scale).
    const uint32_t scale = std::max<uint32_t>(1, o.time_scale);
    const uint64_t phase_ns = o.time_ns ? o.time_ns : DefaultPhaseNs(def.kind) / scale;
    const uint64_t interval_ns =
        o.interval_ns ? o.interval_ns : std::max<uint64_t>(1, kNsPerS / scale);
    if (phase_ns / interval_ns > kMaxIntervalsPerPhase)
      return Status::Invalid("--interval " + FormatNs(static_cast<double>(interval_ns)) +
                             " makes " + std::to_string(phase_ns / interval_ns) +
                             " intervals of a " + FormatNs(static_cast<double>(phase_ns)) +
                             " phase, above the most, " + std::to_string(kMaxIntervalsPerPhase) +
                             "; give a longer --interval");
  }
  if (o.cliff_ratio <= 0 || o.cliff_ratio >= 1)
    return Status::Invalid("--cliff-ratio must lie in (0, 1)");
  for (const std::string& m : o.fileio_modes) {
    if (m != "rndrd" && m != "rndwr" && m != "rndrw" && m != "seqrd" && m != "seqwr") {
      return Status::Invalid("--mode: unknown mode '" + m +
                             "' (rndrd, rndwr, rndrw, seqrd, seqwr)");
    }
  }
  return Status::Ok();
}

Status CheckProfileTarget(const ProfileDef& def, const ProfileOptions& o,
                          const TargetInfo& target) {
  const uint64_t cap = target.size_bytes;
  double top = 0;
  for (double f : o.fill_pcts) top = std::max(top, f);
  const uint64_t base =
      UsesFreeSpace(def.kind)
          ? AlignDown(static_cast<uint64_t>(static_cast<double>(cap) * top / 100), kAlign)
          : 0;
  uint64_t need = 0;
  std::string what = "the test file";
  // Without --size the default file shrinks to the room left (RoomFor), down to kMinRoom.
  if (def.kind == "cdm" || def.kind == "cdm-nvme" || def.kind == "as-ssd")
    need = o.size_bytes ? o.size_bytes : std::min(kGiB, kMinRoom);
  if (def.kind == "atto")
    need = o.size_bytes ? o.size_bytes : std::min(256 * kMiB, kMinRoom), what = "the span";
  if (need && base + need > cap) {
    return Status::Invalid(def.name + ": " + what + " of " + FormatBytes(need) +
                           " does not fit in the " + FormatBytes(cap - std::min(base, cap)) +
                           " of " + target.path + (top > 0 ? " left after the fill" : "") +
                           "; give a smaller --size");
  }
  if (def.kind == "atto") {
    const uint64_t lo = o.min_bs ? o.min_bs : kMinAttoBlock, hi = o.max_bs ? o.max_bs : 64 * kMiB;
    const uint64_t lbs = std::max<uint32_t>(1, target.logical_block_bytes);
    bool any = false;
    for (uint64_t bs = lo; bs <= hi && !any; bs *= 2) any = bs % lbs == 0;
    if (!any)
      return Status::Invalid("atto: no block size from --min-bs " + FormatBytes(lo) +
                             " to --max-bs " + FormatBytes(hi) + " is a multiple of " +
                             target.path + "'s " + std::to_string(lbs) + "-byte logical block");
  }
  if (def.kind == "surface") {
    uint64_t bs = o.bs ? o.bs : kMiB;
    uint32_t segments = o.segments ? o.segments : 100;
    if (cap / segments < bs)
      return Status::Invalid("surface: " + target.path + " is smaller than --segments x --bs (" +
                             std::to_string(segments) + " x " + FormatBytes(bs) + ")");
  }
  if (def.kind == "fileio" && base >= cap)
    return Status::Invalid("fileio: no room left after the fill");
  return Status::Ok();
}

uint64_t DefaultPhaseNs(const std::string& kind) {
  if (kind == "cdm" || kind == "cdm-nvme" || kind == "as-ssd") return 5 * kNsPerS;
  if (kind == "curve") return 60 * kNsPerS;
  if (kind == "op-advisor") return 600 * kNsPerS;
  if (kind == "fileio") return 120 * kNsPerS;
  return 0;
}

json ProfileOptionsJson(const ProfileOptions& o) {
  auto opt = [](uint64_t v) { return v == UINT64_MAX ? json(nullptr) : json(v); };
  return {{"fill_pcts", o.fill_pcts},
          {"purge", o.purge},
          {"seed", results::IdJson(o.seed)},
          {"percentiles", o.percentiles},
          {"size_bytes", o.size_bytes},
          {"time_ns", o.time_ns},
          {"ramp_ns", opt(o.ramp_ns)},
          {"passes", o.passes},
          {"pause_ns", opt(o.pause_ns)},
          {"qd", o.qd},
          {"threads", o.threads},
          {"min_bs", o.min_bs},
          {"max_bs", o.max_bs},
          {"bs", o.bs},
          {"segments", o.segments},
          {"cliff_ratio", o.cliff_ratio},
          {"section_pct", o.section_pct},
          {"curve_fill_pct", o.curve_fill_pct},
          {"curve_pcts", o.curve_pcts},
          {"max_jobs", o.max_jobs},
          {"op_pcts", o.op_pcts},
          {"interval_ns", o.interval_ns},
          {"fill_percent", o.fill_percent},
          {"fileio_modes", o.fileio_modes},
          {"fileio_rw_ratio", o.fileio_rw_ratio},
          {"time_scale", o.time_scale}};
}

Status RunProfile(Backend& backend, RunJournal& store, int64_t run_id, int seq,
                  const ProfileDef& def, const ProfileOptions& o, ProgressSink* progress,
                  const std::atomic<bool>* stop, TestHooks* hooks) {
  SSDLAB_RETURN_IF_ERROR(ValidateProfileOptions(def, o));
  json params = {{"profile", def.name},
                 {"kind", def.kind},
                 {"description", def.description},
                 {"file", def.file}};
  if (def.kind == "curve") params["mix"] = ToJson(CurveMixRecordOf(def.curve));
  SSDLAB_ASSIGN_OR_RETURN(int64_t test_id, store.BeginTest(run_id, seq, def.name, params));
  PtsOptions po;
  po.seed = o.seed;
  po.purge = o.purge;
  po.percentiles = o.percentiles;
  pts::TestEnv env{backend, store, po, progress, stop, seq, def.name, test_id};
  Runner runner(env);
  Ctx c{runner, def, o};
  if (hooks) hooks->OnTestStart(def.name);
  std::vector<double> levels = o.fill_pcts;
  if (levels.empty()) levels = {-1};
  results::ProfileResults out{def.name, def.kind, def.description, o.fill_pcts, {}, {}};
  Status failed;
  for (double level : levels) {
    results::ProfileLevel l;
    if (level >= 0) {
      uint64_t fill =
          AlignDown(static_cast<uint64_t>(static_cast<double>(c.capacity()) * level / 100), kAlign);
      runner.Report({.stage = "fill",
                     .message = "fill level " + FormatBytes(fill) + " (" +
                                std::to_string(static_cast<int>(level)) + "%)"});
      std::vector<PhaseItem> items;
      if (fill) items.push_back({"fill", SeqFill(c, 0, fill)});
      std::string method;
      auto st = c.Step(items, true, &method);
      if (!st.ok()) {
        failed = st.status();
        break;
      }
      l.fill_pct = level;
      l.preparation = results::FillPreparation{
          method, fill, fill ? MBps(st->at(0).result, st->at(0).result.dirs[1]) : 0.0};
      l.workspace_begin_bytes = UsesFreeSpace(def.kind) ? fill : 0;
    }
    c.notes.clear();
    auto res = RunKind(c, l.workspace_begin_bytes, level >= 0, l.summary);
    if (!res.ok()) {
      failed = res.status();
      break;
    }
    if (l.summary.empty()) {  // every kind gives figures; none means nothing was measured
      failed = Status::Io(def.name + ": no results" +
                          (level >= 0 ? " at fill level " + PctText(level) + "%" : ""));
      break;
    }
    l.notes = c.notes;
    l.results = std::move(res).value();
    out.levels.push_back(std::move(l));
  }
  json health = hooks ? hooks->OnTestEnd(def.name) : json(nullptr);
  if (!failed.ok()) return failed;
  out.differences = Differences(out.levels);
  json results = ToJson(out);
  results["health"] = health;
  return store.FinishTest(test_id, json::object(), results);
}

}  // namespace ssdlab
