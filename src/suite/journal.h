// What a suite records as it runs and reads back when a run resumes: tests, rounds and their
// phases. The suite owns this interface; the results store (store/store.h) implements it, and
// tests may implement it in memory. Suites never see the database behind it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "stats/phase_result.h"

namespace ssdlab {

struct TestRecord {
  int64_t id = 0;
  int seq = 0;
  std::string name;
  std::string status;  // "running", "done"
  nlohmann::json params;
  nlohmann::json steady_state;
  nlohmann::json results;
};

struct StoredPhase {
  int round = 0;
  std::string cell;  // which cell of the round's matrix, e.g. "rw=65/35 bs=4KiB"
  nlohmann::json workload;
  PhaseResult result;
};

struct StoredRound {
  int round = 0;
  nlohmann::json tracking;  // tracking variables' values, name -> number
};

class RunJournal {
 public:
  virtual ~RunJournal() = default;
  // Returns the test's id, creating it (status "running") if the run has none of that name.
  virtual Result<int64_t> BeginTest(int64_t run_id, int seq, const std::string& name,
                                    const nlohmann::json& params) = 0;
  virtual Result<std::vector<TestRecord>> ListTests(int64_t run_id) = 0;
  // Stores one round (all its phases and its tracking values) atomically: all or nothing.
  virtual Status CommitRound(int64_t test_id, int round, const std::vector<StoredPhase>& phases,
                             const nlohmann::json& tracking) = 0;
  virtual Status FinishTest(int64_t test_id, const nlohmann::json& steady_state,
                            const nlohmann::json& results) = 0;
  virtual Result<std::vector<StoredRound>> LoadRounds(int64_t test_id) = 0;
  // Phases of a test in round order (all rounds when round < 0).
  virtual Result<std::vector<StoredPhase>> LoadPhases(int64_t test_id, int round = -1) = 0;
};

}  // namespace ssdlab
