// A measured phase stored as a run (`run --db`, `replay --db`): one run of its kind holding one
// test of one round holding the phase (its histograms and time series in the store's tables),
// and the test's results the phase's figures as the `run` document gives them (documents.h
// PhaseRunResults). `ls`, `show`, `report`, `export` and `db copy` read it like any stored run.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.h"
#include "base/status.h"
#include "stats/phase_result.h"
#include "store/store.h"
#include "workload/spec.h"

namespace ssdlab::usecase {

class StoredPhaseRun {
 public:
  // Opens (creating it if missing) the database `db` and settles the run's name, before anything
  // is measured: `run` as given, refused (Invalid naming it and the database) when a run of that
  // name exists; "" = PREFIX-YYYYMMDD-HHMMSS in UTC, with -2, -3, ... added while that is taken.
  static Result<StoredPhaseRun> Open(const std::string& db, const std::string& run,
                                     const std::string& prefix);

  // Creates the run (kind `kind`, e.g. "run") and its one test named `kind`, status running.
  Status Begin(const std::string& kind, const nlohmann::json& config, const nlohmann::json& context,
               const TargetInfo& target);
  // Stores the phase (round 0, cell `kind`), the test's results (PhaseRunResults of `spec` and
  // `result`, with `extra`'s keys added) and the run's status: "interrupted" when the phase was
  // (Ctrl-C keeps what was measured), else "done".
  Status Finish(const WorkloadSpec& spec, const PhaseResult& result, const nlohmann::json& extra);
  // Marks the run failed (after a failed phase); a failure to do so is ignored.
  void Fail();

  const std::string& name() const { return name_; }

 private:
  std::unique_ptr<Store> store_;
  std::string name_, kind_;
  int64_t run_id_ = 0, test_id_ = 0;
};

}  // namespace ssdlab::usecase
