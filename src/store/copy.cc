#include "store/copy.h"

namespace ssdlab {

Status CopyRun(Store& from, Store& to, const std::string& name) {
  SSDLAB_ASSIGN_OR_RETURN(RunRecord run, from.FindRun(name));
  {
    // Only a run that no process is writing (a killed run's lock is gone with its process).
    SSDLAB_ASSIGN_OR_RETURN(RunLock held, from.LockRun(run.id, run.name));
  }
  SSDLAB_ASSIGN_OR_RETURN(TargetInfo target, from.LoadTarget(run.id));
  SSDLAB_ASSIGN_OR_RETURN(std::vector<TestRecord> tests, from.ListTests(run.id));
  SSDLAB_ASSIGN_OR_RETURN(int64_t id,
                          to.CreateRun(run.name, run.kind, run.config, run.context, target));
  SSDLAB_ASSIGN_OR_RETURN(RunLock lock, to.LockRun(id, run.name));
  if (!run.fleet.empty()) SSDLAB_RETURN_IF_ERROR(to.SetRunFleet(id, run.fleet));
  for (const TestRecord& t : tests) {
    SSDLAB_ASSIGN_OR_RETURN(int64_t test_id, to.BeginTest(id, t.seq, t.name, t.params));
    SSDLAB_ASSIGN_OR_RETURN(std::vector<StoredRound> rounds, from.LoadRounds(t.id));
    for (const StoredRound& r : rounds) {
      SSDLAB_ASSIGN_OR_RETURN(std::vector<StoredPhase> phases, from.LoadPhases(t.id, r.round));
      SSDLAB_RETURN_IF_ERROR(to.CommitRound(test_id, r.round, phases, r.tracking));
    }
    if (t.status == "done")
      SSDLAB_RETURN_IF_ERROR(to.FinishTest(test_id, t.steady_state, t.results));
  }
  return to.SetRunStatus(id, run.status);
}

}  // namespace ssdlab
