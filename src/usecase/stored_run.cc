#include "usecase/stored_run.h"

#include "usecase/documents.h"
#include "usecase/runs.h"

namespace ssdlab::usecase {

using nlohmann::json;

Result<StoredPhaseRun> StoredPhaseRun::Open(const std::string& db, const std::string& run,
                                            const std::string& prefix) {
  StoredPhaseRun s;
  SSDLAB_ASSIGN_OR_RETURN(s.store_, Store::Open(db, Store::Mode::kCreate));
  if (!run.empty()) {
    if (s.store_->FindRun(run).ok())
      return Status::Invalid("--run '" + run + "' already exists in " + db +
                             "; give another name (nothing was measured)");
    s.name_ = run;
    return s;
  }
  const std::string base = DefaultRunName(prefix);
  s.name_ = base;
  for (int i = 2; s.store_->FindRun(s.name_).ok(); ++i) s.name_ = base + "-" + std::to_string(i);
  return s;
}

Status StoredPhaseRun::Begin(const std::string& kind, const json& config, const json& context,
                             const TargetInfo& target) {
  kind_ = kind;
  SSDLAB_ASSIGN_OR_RETURN(run_id_, store_->CreateRun(name_, kind, config, context, target));
  auto t = store_->BeginTest(run_id_, 0, kind, config);
  if (!t.ok()) return Status::Io(t.status().message());
  test_id_ = t.value();
  return Status::Ok();
}

Status StoredPhaseRun::Finish(const WorkloadSpec& spec, const PhaseResult& result,
                              const json& extra) {
  SSDLAB_RETURN_IF_ERROR(store_->CommitRound(
      test_id_, 0, {StoredPhase{0, kind_, WorkloadJson(spec), result}}, json::object()));
  json results = PhaseRunResults(spec, result);
  for (const auto& [k, v] : extra.items()) results[k] = v;
  SSDLAB_RETURN_IF_ERROR(store_->FinishTest(test_id_, json::object(), results));
  return store_->SetRunStatus(run_id_, result.interrupted ? "interrupted" : "done");
}

void StoredPhaseRun::Fail() {
  if (run_id_) (void)store_->SetRunStatus(run_id_, "failed");
}

}  // namespace ssdlab::usecase
