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

Status ValidatePtsOptions(const PtsOptions& o) {
  if (o.tests.empty()) return Status::Invalid("--tests: no test selected");
  std::set<std::string> seen;
  for (const auto& t : o.tests) {
    if (!pts::FindTest(t)) {
      return Status::Invalid("--tests: unknown test '" + t + "' (" +
                             results::JoinedPtsTestNames(", ") + ")");
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
  if (o.iops_round_ns && o.iops_round_ns < kNsPerMs)
    return Status::Invalid("--iops-round must be at least 1ms");
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
                            : std::string("; the ") + t->title() + " test's mix has blocks of " +
                                  FormatBytes(b) + ", so leave " + name +
                                  " out of --tests on this target";
      return Status::Invalid(name + ": block size " + FormatBytes(b) + " is not a multiple of " +
                             target.path + "'s " + std::to_string(lbs) + "-byte logical block" +
                             fix);
    }
  }
  return Status::Ok();
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
    if (done || (hooks && !hooks->Runs(name))) continue;
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
