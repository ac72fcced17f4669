#include "store/copy.h"

namespace ssdlab {
namespace {

// A run of `from` as read so far, written into `to` (as run `as`) as it is read: everything but
// the commit. `damaged` is set when a read of `from` failed.
Status CopyInto(Store& from, Store& to, const RunRecord& run, const std::string& as,
                bool* damaged) {
  auto read = [&](const Status& s) {
    if (!s.ok()) *damaged = true;
    return s.WithContext("--from");
  };
  auto target = from.LoadTarget(run.id);
  if (!target.ok()) return read(target.status());
  auto tests = from.ListTests(run.id);
  if (!tests.ok()) return read(tests.status());
  SSDLAB_ASSIGN_OR_RETURN(int64_t id, to.CreateRun(as, run.kind, run.config, run.context, *target));
  if (!run.fleet.empty()) SSDLAB_RETURN_IF_ERROR(to.SetRunFleet(id, run.fleet));
  for (const TestRecord& t : *tests) {
    SSDLAB_ASSIGN_OR_RETURN(int64_t test_id, to.BeginTest(id, t.seq, t.name, t.params));
    auto rounds = from.LoadRounds(t.id);
    if (!rounds.ok()) return read(rounds.status());
    for (const StoredRound& r : *rounds) {
      auto phases = from.LoadPhases(t.id, r.round);
      if (!phases.ok()) return read(phases.status());
      SSDLAB_RETURN_IF_ERROR(to.CommitRound(test_id, r.round, *phases, r.tracking));
    }
    if (t.status == "done")
      SSDLAB_RETURN_IF_ERROR(to.FinishTest(test_id, t.steady_state, t.results));
  }
  SSDLAB_RETURN_IF_ERROR(to.SetRunStatus(id, run.status));
  return to.SetRunTimes(id, run.created_at, run.finished_at);
}

}  // namespace

CopyResult CopyRun(Store& from, Store& to, const std::string& name, const std::string& as) {
  CopyResult out;
  auto run = from.FindRun(name);
  if (!run.ok()) {
    out.damaged = run.status().code() == Code::kIoError;
    out.status = run.status().WithContext("--from");
    return out;
  }
  // Only a run that no process is writing (a killed run's lock is gone with its process); no
  // resume starts while it is copied.
  auto held = from.LockRun(run->id, run->name);
  if (!held.ok()) {
    out.status = held.status();
    return out;
  }
  const std::string& to_name = as.empty() ? name : as;
  if (to.FindRun(to_name).ok()) {
    out.status = Status::Invalid("--to already has a run named '" + to_name +
                                 "'; copy it under another name with --as NAME");
    return out;
  }
  auto tx = Store::Transaction::Begin(to);
  if (!tx.ok()) {
    out.status = tx.status();
    return out;
  }
  out.status = CopyInto(from, to, *run, to_name, &out.damaged);
  if (out.status.ok()) out.status = tx->Commit();
  return out;  // not committed: rolled back by tx
}

}  // namespace ssdlab
