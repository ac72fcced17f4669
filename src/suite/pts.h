// The SNIA Solid State Storage Performance Test Specification battery (PTS-E 1.1, PTS 2.0.x)
// and the reviewers' variant (docs/methodology.md, section 4), on any Backend.
//
// Every test is a sequence of phases run through the Backend seam; groups of phases
// ("rounds") are committed to the Store as they end. Tests never know which backend they
// drive: real targets run in wall-clock time, the simulator in virtual time.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "stats/steady_state.h"
#include "suite/journal.h"

namespace ssdlab {

enum class PtsSpec { kPtsE, kPtsC, kReview };

// Every test name `--tests` accepts, in the order a battery runs them.
const std::vector<std::string>& PtsTestNames();

// A read/write mix cell: percent reads.
struct Mix {
  double read_pct = 100;
};

// Resolved options of a battery. Defaults come from the spec (SpecDefaults()); every field
// can be overridden. Durations are virtual on the simulator.
struct PtsOptions {
  PtsSpec spec = PtsSpec::kPtsE;
  std::vector<std::string> tests;      // subset of PtsTestNames(), in battery order
  uint64_t round_ns = 60'000'000'000;  // duration of one cell of a round
  uint32_t max_rounds = 25;
  SteadyStateCriteria steady;  // window, rule and limits
  std::string purge = "auto";
  double wipc_multiple = 2.0;    // sequential 128 KiB preconditioning, times the range
  uint32_t threads = 0, qd = 0;  // 0 = the spec's per-test default
  std::vector<double> op_pcts = {15, 30, 50};  // OP study: share of capacity left unused
  double active_range_pct = 100;               // PTS-C: 75
  uint64_t seed = 1;
  std::vector<double> percentiles = {99, 99.9, 99.99, 99.999};

  // Per-test parameters (spec defaults).
  std::vector<uint64_t> iops_block_bytes;  // IOPS matrix, inner loop
  std::vector<Mix> iops_mixes;             // IOPS matrix, outer loop
  std::vector<uint64_t> tp_block_bytes;    // TP
  std::vector<uint64_t> lat_block_bytes;   // LAT
  std::vector<Mix> lat_mixes;
  std::vector<uint32_t> lvi_threads = {1, 2, 4};
  std::vector<uint32_t> lvi_qds = {1, 2, 4, 8, 16, 32};
  std::vector<uint64_t> lvi_block_bytes;
  std::vector<Mix> lvi_mixes;
  uint64_t lvi_warmup_ns = 5'000'000'000;
  uint64_t lvi_measure_ns = 30'000'000'000;
  double wsat_capacity_multiple = 4;  // WSAT ends after this many capacities written...
  uint32_t wsat_max_rounds = 1200;    // ...or this many rounds
  uint64_t wsat_round_ns = 60'000'000'000;
  std::vector<uint64_t> hir_wait_ns = {5'000'000'000, 10'000'000'000, 15'000'000'000,
                                       25'000'000'000, 50'000'000'000};
  uint32_t hir_cycles = 360;
  uint64_t hir_write_ns = 5'000'000'000;
  uint64_t hir_baseline_ns = 1'800'000'000'000;
  std::vector<uint64_t> xsr_ns = {8ull * 3600'000'000'000, 6ull * 3600'000'000'000,
                                  8ull * 3600'000'000'000};
  std::vector<uint32_t> dirth_threads = {32, 16, 8, 6, 4, 2, 1};
  std::vector<uint32_t> dirth_qds = {32, 16, 8, 6, 4, 2, 1};
  uint64_t dirth_max_mean_ns = 5'000'000;         // the max-IOPS point's mean latency limit
  uint64_t dirth_histogram_ns = 600'000'000'000;  // measurement of the selected points
};

// The defaults of a spec (PTS-E 1.1, PTS-C / PTS 2.0.x client, or the reviewers' variant).
PtsOptions SpecDefaults(PtsSpec spec);
Result<PtsSpec> ParsePtsSpec(const std::string& name);
const char* PtsSpecName(PtsSpec spec);
// Checks test names and cross-field limits (window <= max rounds, ...).
Status ValidatePtsOptions(const PtsOptions& o);
// Checks, before anything is written, that the target can do every block size of every
// selected test (its logical block divides them); Invalid naming the test, the size and the
// flag that changes it.
Status CheckPtsTarget(const PtsOptions& o, const TargetInfo& target);
// The resolved options as stored in a run's configuration ("options"), and back: the keys and
// members are listed once (pts.cc PtsFields). A key missing from an older document keeps the
// spec's default; a value of the wrong type or a bad value is Invalid naming the key.
nlohmann::json PtsOptionsJson(const PtsOptions& o);
Result<PtsOptions> PtsOptionsFromJson(const nlohmann::json& stored);

struct ProgressEvent {
  std::string test;
  std::string stage;  // "purge", "wipc", "round", "point", "cycle", "done"
  uint32_t round = 0, max_rounds = 0;
  std::string cell;
  double iops = 0, mean_ns = 0, p99_ns = 0;
  double steady_distance_pct = -1;  // how far the window is from the criteria; <0 unknown
  double eta_test_s = -1, eta_battery_s = -1;
  std::string message;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void OnEvent(const ProgressEvent& event) = 0;
};

// Called around each test that runs (not for tests skipped as done); what OnTestEnd returns
// is stored in the test's results as "health" (temperature, SMART deltas).
class TestHooks {
 public:
  virtual ~TestHooks() = default;
  virtual void OnTestStart(const std::string& test) = 0;
  virtual nlohmann::json OnTestEnd(const std::string& test) = 0;
};

// Runs (or, with `resume`, continues) the battery of run `run_id` in `store`. Each test's
// rounds are committed as they end; a test already "done" in the store is skipped. On a
// persistent target a resumed test continues after its last stored round; on the simulator
// the stored rounds are replayed (deterministically) to rebuild the drive's state, and the
// replayed results are checked against the stored ones.
// Returns kInterrupted when stopped (what was committed stays).
Status RunPts(Backend& backend, RunJournal& store, int64_t run_id, const PtsOptions& options,
              ProgressSink* progress, const std::atomic<bool>* stop, TestHooks* hooks = nullptr);

}  // namespace ssdlab
