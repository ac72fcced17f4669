#include "suite/pts.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/clock.h"
#include "base/units.h"
#include "suite/runner.h"
#include "suite/tests.h"

namespace ssdlab {

using nlohmann::json;

const std::vector<std::string>& PtsTestNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const pts::TestDef& t : pts::Tests()) out.push_back(t.name);
    return out;
  }();
  return kNames;
}

Result<PtsSpec> ParsePtsSpec(const std::string& name) {
  if (name == "pts-e") return PtsSpec::kPtsE;
  if (name == "pts-c") return PtsSpec::kPtsC;
  if (name == "review") return PtsSpec::kReview;
  return Status::Invalid("--spec: unknown spec '" + name + "' (pts-e, pts-c, review)");
}

const char* PtsSpecName(PtsSpec s) {
  switch (s) {
    case PtsSpec::kPtsE:
      return "pts-e";
    case PtsSpec::kPtsC:
      return "pts-c";
    case PtsSpec::kReview:
      return "review";
  }
  return "?";
}

PtsOptions SpecDefaults(PtsSpec spec) {
  PtsOptions o;
  o.spec = spec;
  o.tests = PtsTestNames();
  const std::vector<Mix> kPtsMixes = {{100}, {95}, {65}, {50}, {35}, {5}, {0}};
  o.iops_mixes = kPtsMixes;
  o.iops_block_bytes = {1024 * kKiB, 128 * kKiB, 64 * kKiB, 32 * kKiB,
                        16 * kKiB,   8 * kKiB,   4 * kKiB,  512};
  o.tp_block_bytes = {1024 * kKiB, 128 * kKiB};
  o.lat_block_bytes = {512, 4 * kKiB, 8 * kKiB};
  o.lat_mixes = {{100}, {65}, {0}};
  o.lvi_block_bytes = {4 * kKiB, 8 * kKiB};
  o.lvi_mixes = {{100}, {65}, {0}};
  o.steady = SteadyStateCriteria{};  // SNIA: window 5, 20% range, 10% slope
  switch (spec) {
    case PtsSpec::kPtsE:
      break;
    case PtsSpec::kPtsC:
      o.active_range_pct = 75;
      o.tp_block_bytes = {1024 * kKiB};
      break;
    case PtsSpec::kReview:
      // docs/methodology.md, section 4: 0.5 KiB dropped, 70/30 for latency, 4-round window
      // with the 90%..110% fit band, percentiles to 99.99.
      o.iops_block_bytes = {1024 * kKiB, 128 * kKiB, 64 * kKiB, 32 * kKiB,
                            16 * kKiB,   8 * kKiB,   4 * kKiB};
      o.lat_block_bytes = {4 * kKiB, 8 * kKiB};
      o.lat_mixes = {{100}, {70}, {0}};
      o.lvi_mixes = {{100}, {70}, {0}};
      o.steady.rule = SteadyStateRule::kReviewBand;
      o.steady.window_rounds = 4;
      o.steady.band_pct = 10;
      o.percentiles = {99, 99.9, 99.99};
      break;
  }
  return o;
}

Status ValidatePtsOptions(const PtsOptions& o) {
  if (o.tests.empty()) return Status::Invalid("--tests: no test selected");
  std::set<std::string> seen;
  for (const auto& t : o.tests) {
    if (!pts::FindTest(t)) {
      std::string names;
      for (const std::string& n : PtsTestNames()) names += (names.empty() ? "" : ", ") + n;
      return Status::Invalid("--tests: unknown test '" + t + "' (" + names + ")");
    }
    if (!seen.insert(t).second) return Status::Invalid("--tests names '" + t + "' twice");
  }
  if (o.steady.window_rounds == 0) return Status::Invalid("--window must be at least 1");
  if (o.max_rounds == 0) return Status::Invalid("--max-rounds must be at least 1");
  if (o.steady.window_rounds > o.max_rounds) {
    return Status::Invalid("--window " + std::to_string(o.steady.window_rounds) +
                           " is larger than --max-rounds " + std::to_string(o.max_rounds) +
                           ": steady state could never be judged");
  }
  if (o.round_ns < kNsPerMs) return Status::Invalid("--round must be at least 1ms");
  if (o.wipc_multiple < 0) return Status::Invalid("--wipc must not be negative");
  for (double op : o.op_pcts) {
    if (op < 0 || op >= 100)
      return Status::Invalid("--op: " + std::to_string(op) + "% is outside 0..99");
  }
  if (o.xsr_ns.size() != 3)
    return Status::Invalid("--xsr needs three durations (seq, random, seq)");
  return Status::Ok();
}

Status CheckPtsTarget(const PtsOptions& o, const TargetInfo& target) {
  const uint64_t lbs = target.logical_block_bytes;
  if (lbs <= 1) return Status::Ok();
  for (const std::string& name : o.tests) {
    const pts::TestDef* t = pts::FindTest(name);
    if (!t) continue;  // ValidatePtsOptions names it
    for (uint64_t b : t->block_sizes(o)) {
      if (b % lbs == 0) continue;
      std::string fix = *t->block_sizes_flag
                            ? std::string("; give ") + t->block_sizes_flag + " without it" +
                                  (o.spec == PtsSpec::kReview ? "" : " (or --spec review)")
                            : std::string("; the ") + t->title + " test's mix has blocks of " +
                                  FormatBytes(b) + ", so leave " + name +
                                  " out of --tests on this target";
      return Status::Invalid(name + ": block size " + FormatBytes(b) + " is not a multiple of " +
                             target.path + "'s " + std::to_string(lbs) + "-byte logical block" +
                             fix);
    }
  }
  return Status::Ok();
}

namespace {

// Every stored field of PtsOptions, once: its key in the run's configuration and its member.
// PtsOptionsJson and PtsOptionsFromJson both walk this list.
template <class O, class F>
void PtsFields(O& o, F&& f) {
  f("spec", o.spec);
  f("tests", o.tests);
  f("round_ns", o.round_ns);
  f("max_rounds", o.max_rounds);
  f("steady_state", o.steady);
  f("purge", o.purge);
  f("wipc_multiple", o.wipc_multiple);
  f("threads", o.threads);
  f("qd", o.qd);
  f("op_pcts", o.op_pcts);
  f("active_range_pct", o.active_range_pct);
  f("seed", o.seed);
  f("percentiles", o.percentiles);
  f("iops_block_bytes", o.iops_block_bytes);
  f("iops_read_pcts", o.iops_mixes);
  f("tp_block_bytes", o.tp_block_bytes);
  f("lat_block_bytes", o.lat_block_bytes);
  f("lat_read_pcts", o.lat_mixes);
  f("lvi_threads", o.lvi_threads);
  f("lvi_qds", o.lvi_qds);
  f("lvi_block_bytes", o.lvi_block_bytes);
  f("lvi_read_pcts", o.lvi_mixes);
  f("lvi_warmup_ns", o.lvi_warmup_ns);
  f("lvi_measure_ns", o.lvi_measure_ns);
  f("wsat_capacity_multiple", o.wsat_capacity_multiple);
  f("wsat_max_rounds", o.wsat_max_rounds);
  f("wsat_round_ns", o.wsat_round_ns);
  f("hir_wait_ns", o.hir_wait_ns);
  f("hir_cycles", o.hir_cycles);
  f("hir_write_ns", o.hir_write_ns);
  f("hir_baseline_ns", o.hir_baseline_ns);
  f("xsr_ns", o.xsr_ns);
  f("dirth_threads", o.dirth_threads);
  f("dirth_qds", o.dirth_qds);
  f("dirth_max_mean_ns", o.dirth_max_mean_ns);
  f("dirth_histogram_ns", o.dirth_histogram_ns);
}

json ToJson(PtsSpec s) { return PtsSpecName(s); }
json ToJson(const std::vector<Mix>& v) {
  json a = json::array();
  for (const Mix& m : v) a.push_back(m.read_pct);
  return a;
}
json ToJson(const SteadyStateCriteria& c) {
  return {{"rule", c.rule == SteadyStateRule::kSnia ? "snia" : "review-band"},
          {"window", c.window_rounds},
          {"max_range_pct", c.max_range_pct},
          {"max_slope_pct", c.max_slope_pct},
          {"band_pct", c.band_pct}};
}
template <class T>
json ToJson(const T& v) {
  return json(v);
}

// Decoders of one stored value; false when it has the wrong type or value.
bool FromJson(const json& j, PtsSpec& out) {
  if (!j.is_string()) return false;
  auto s = ParsePtsSpec(j.get<std::string>());
  if (s.ok()) out = s.value();
  return s.ok();
}
bool FromJson(const json& j, std::vector<Mix>& out) {
  if (!j.is_array()) return false;
  out.clear();
  for (const json& x : j) {
    if (!x.is_number()) return false;
    out.push_back(Mix{x.get<double>()});
  }
  return true;
}
bool FromJson(const json& j, SteadyStateCriteria& out) {
  if (!j.is_object()) return false;
  const std::string rule = j.value("rule", "");
  if (rule != "snia" && rule != "review-band") return false;
  out.rule = rule == "snia" ? SteadyStateRule::kSnia : SteadyStateRule::kReviewBand;
  try {
    out.window_rounds = j.value("window", out.window_rounds);
    out.max_range_pct = j.value("max_range_pct", out.max_range_pct);
    out.max_slope_pct = j.value("max_slope_pct", out.max_slope_pct);
    out.band_pct = j.value("band_pct", out.band_pct);
  } catch (const json::exception&) {
    return false;
  }
  return true;
}
template <class T>
bool FromJson(const json& j, T& out) {
  try {
    out = j.get<T>();
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

}  // namespace

json PtsOptionsJson(const PtsOptions& o) {
  json out = json::object();
  PtsFields(o, [&](const char* key, const auto& member) { out[key] = ToJson(member); });
  return out;
}

Result<PtsOptions> PtsOptionsFromJson(const json& j) {
  if (!j.is_object()) return Status::Invalid("the stored options are not an object");
  PtsOptions spec_of;
  if (j.contains("spec") && !FromJson(j["spec"], spec_of.spec))
    return Status::Invalid("the stored options' spec is damaged: " + j["spec"].dump());
  PtsOptions o = SpecDefaults(spec_of.spec);
  std::string bad;
  PtsFields(o, [&](const char* key, auto& member) {
    if (bad.empty() && j.contains(key) && !FromJson(j[key], member)) bad = key;
  });
  if (!bad.empty())
    return Status::Invalid("the stored options' " + bad + " is damaged: " + j[bad].dump());
  return o;
}

Status RunPts(Backend& backend, RunJournal& store, int64_t run_id, const PtsOptions& o,
              ProgressSink* progress, const std::atomic<bool>* stop, TestHooks* hooks) {
  SSDLAB_ASSIGN_OR_RETURN(std::vector<TestRecord> existing, store.ListTests(run_id));
  double battery_start = static_cast<double>(MonotonicNs()) / 1e9;
  int finished_here = 0;
  for (size_t i = 0; i < o.tests.size(); ++i) {
    const std::string& name = o.tests[i];
    bool done = false;
    for (const TestRecord& t : existing) done |= t.name == name && t.status == "done";
    if (done) continue;
    auto id = store.BeginTest(run_id, static_cast<int>(i), name, json::object());
    if (!id.ok()) return id.status();
    double elapsed = static_cast<double>(MonotonicNs()) / 1e9 - battery_start;
    pts::TestEnv env{backend, store, o, progress, stop, static_cast<int>(i), name, id.value()};
    if (finished_here)
      env.battery_eta_extra_s =
          elapsed / finished_here * static_cast<double>(o.tests.size() - i - 1);
    pts::Runner runner(env);
    if (hooks) hooks->OnTestStart(name);
    auto result = pts::FindTest(name)->run(runner);
    json health = hooks ? hooks->OnTestEnd(name) : json(nullptr);
    if (!result.ok()) return result.status();
    result->results["health"] = health;
    SSDLAB_RETURN_IF_ERROR(store.FinishTest(id.value(), result->steady_state, result->results));
    if (progress) {
      ProgressEvent e;
      e.test = name;
      e.stage = "done";
      e.message = result->steady_state.value("reached", false) ? "steady state reached"
                                                               : "STEADY STATE NOT REACHED";
      if (!result->steady_state.contains("variables")) e.message = "done";
      progress->OnEvent(e);
    }
    ++finished_here;
  }
  return Status::Ok();
}

}  // namespace ssdlab
