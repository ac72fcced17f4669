// The machinery under every PTS test: stored steps with resume, phases with stop handling,
// rounds judged for steady state, and metrics merged over a window. Private to suite/.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "results/cells.h"
#include "results/phase_metrics.h"
#include "results/steady_state.h"
#include "suite/journal.h"
#include "suite/pts.h"
#include "workload/parse.h"

namespace ssdlab::pts {

using nlohmann::json;

// "4KiB", "0.5KiB", "1024KiB".
std::string BlockLabel(uint64_t bytes);
// "65/35".
std::string MixLabel(const Mix& m);
std::string CellName(const Mix& m, uint64_t bytes);

struct Cell {
  std::string name;
  WorkloadSpec spec;
};

// Summary figures of one phase (or of several merged), as stored in results.
json PhaseMetrics(const PhaseResult& r, const std::vector<double>& percentiles);
// Merges phases bucket by bucket (counts, bytes, histograms, measured time added).
PhaseResult MergePhases(const std::vector<const PhaseResult*>& phases);

struct TestEnv {
  Backend& backend;
  RunJournal& store;
  const PtsOptions& options;
  ProgressSink* progress;
  const std::atomic<bool>* stop;
  int test_seq;
  std::string test_name;
  int64_t test_id;
  double battery_eta_extra_s = -1;  // estimate for the tests after this one
};

// Executes a test's steps in order. A step is a group of phases stored as one round of the
// test. On resume, stored steps are skipped on persistent targets and replayed (and checked)
// on the simulator.
class Runner {
 public:
  explicit Runner(TestEnv& env);
  TestEnv& env() { return env_; }
  const PtsOptions& options() const { return env_.options; }

  using Body = std::function<Result<std::vector<StoredPhase>>()>;
  // Runs (or skips / replays) step `index` and returns its phases. `tracking` is computed from
  // the phases and stored with them.
  Result<std::vector<StoredPhase>> Step(
      int index, const Body& body,
      const std::function<json(const std::vector<StoredPhase>&)>& tracking);

  // One phase through the backend: kInterrupted when stopped before or during it; IoError on
  // I/O errors and when it completed no I/O (CheckCompletedIo), so no 0 becomes a figure.
  Result<PhaseResult> Phase(const WorkloadSpec& spec, const std::string& cell);
  Status Idle(uint64_t ns);
  // Purge then (if wipc) sequential 128 KiB writes of wipc_multiple x the range; step `index`.
  Result<std::string> PurgeAndPrecondition(int index, uint64_t range_end_bytes, bool wipc);

  // A workload on this target: random unless `sequential`; the range [0, range_end).
  WorkloadSpec Spec(bool sequential, double read_pct, uint64_t bs, uint32_t threads, uint32_t qd,
                    uint64_t runtime_ns, uint64_t range_end_bytes, uint64_t seed_salt) const;
  uint64_t capacity() const { return env_.backend.info().size_bytes; }
  uint64_t default_range_end() const;

  void Report(ProgressEvent e);
  bool stopped() const { return env_.stop && env_.stop->load(); }

 private:
  TestEnv& env_;
  std::map<int, bool> stored_;  // step index -> stored
  Status stored_status_;        // why the stored rounds could not be read (Step returns it)
  double started_s_;
};

// A sequence of rounds until every tracking variable is steady or max_rounds, starting at
// step `first_step`. `cells(round)` gives a round's cells; `track` names and extracts the
// tracking variables from a round's phases. `preconditioned(rr)`, when given, is true once the
// rounds so far complete the preconditioning: steady state is then judged only on windows of
// the rounds after it (none before). Without it every round may be judged.
struct RoundsResult {
  std::vector<std::vector<StoredPhase>> rounds;
  std::vector<std::string> variables;
  std::map<std::string, std::vector<double>> series;
  std::map<std::string, SteadyStateVerdict> verdicts;
  bool all_reached = false;
  // 0-based index of the first round wholly after preconditioning; unset while it goes on.
  std::optional<size_t> first_judged;
  int next_step = 0;
};
using TrackFn =
    std::function<std::vector<std::pair<std::string, double>>(const std::vector<StoredPhase>&)>;
using RoundsPredicate = std::function<bool(const RoundsResult&)>;
Result<RoundsResult> RunRounds(Runner& r, int first_step, uint32_t max_rounds,
                               const std::function<std::vector<Cell>(int round)>& cells,
                               const TrackFn& track, bool stop_when_steady = true,
                               const RoundsPredicate& done = nullptr,
                               const RoundsPredicate& preconditioned = nullptr);

// The rounds' verdict as a test stores it (results/steady_state.h): the first variable's
// figures, reached over all variables, each variable's verdict, and what ended the rounds:
// steady state, else the round limit (a test with its own end sets `end` itself).
results::TestSteadyState SteadyStateOf(const RoundsResult& rr);
inline json SteadyStateJson(const RoundsResult& rr) { return results::ToJson(SteadyStateOf(rr)); }
// Per cell of the last round, in its order: metrics merged over the steady-state window's rounds
// (the last `window` rounds) and the last round's workload.
std::vector<results::CellResult> WindowResults(const RoundsResult& rr, uint32_t window,
                                               const std::vector<double>& pcts);
// The rounds as a test stores them (results/steady_state.h): each round's tracked values.
std::vector<results::TrackedRound> TrackedRounds(const RoundsResult& rr);

// Value of a metric of the phase for `cell` in a round ("iops", "bw", "mean_ns").
double CellValue(const std::vector<StoredPhase>& round, const std::string& cell,
                 const std::string& what);

}  // namespace ssdlab::pts
