// The SNIA Solid State Storage Performance Test Specification battery (PTS-E 1.1, PTS 2.0.x)
// and the reviewers' variant (docs/methodology.md, section 4), on any Backend.
//
// Every test is a sequence of phases run through the Backend seam; groups of phases
// ("rounds") are committed to the Store as they end. Tests never know which backend they
// drive: real targets run in wall-clock time, the simulator in virtual time.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "results/pts_options.h"
#include "results/pts_tests.h"
#include "stats/steady_state.h"
#include "suite/journal.h"

namespace ssdlab {

// The battery's options are results/ types, so that the report reads a stored run's options
// with the same declaration (results/pts_options.h).
using results::Mix;
using results::ParsePtsSpec;
using results::PtsOptions;
using results::PtsSpec;
using results::PtsSpecName;

// Every test name `--tests` accepts, in the order a battery runs them (the catalogue,
// results/pts_tests.h), and the defaults of a spec with every test of the battery.
using results::PtsTestNames;
using results::SpecDefaults;
// Checks test names and cross-field limits (window <= max rounds, ...).
Status ValidatePtsOptions(const PtsOptions& o);
// Checks, before anything is written, that the target can do every block size of every
// selected test (its logical block divides them); Invalid naming the test, the size and the
// flag that changes it.
Status CheckPtsTarget(const PtsOptions& o, const TargetInfo& target);
// The resolved options as stored in a run's configuration, and back (results/pts_options.h),
// a missing `tests` key meaning every test of the battery.
using results::DivideDurations;
using results::PtsOptionsFromJson;
using results::PtsOptionsJson;

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
  // False leaves the test out of this pass (neither run nor stored); the others keep the seeds
  // of their places in options.tests, and each test purges first, so a battery split into
  // passes (e.g. one test each, side by side) gives every test the figures it has in one pass.
  virtual bool Runs(const std::string& /*test*/) { return true; }
};

// Hooks that run the named tests only (Runs) and store no health.
class OnlyTests : public TestHooks {
 public:
  explicit OnlyTests(std::vector<std::string> tests) : tests_(std::move(tests)) {}
  void OnTestStart(const std::string&) override {}
  nlohmann::json OnTestEnd(const std::string&) override { return nullptr; }
  bool Runs(const std::string& test) override {
    return std::find(tests_.begin(), tests_.end(), test) != tests_.end();
  }

 private:
  std::vector<std::string> tests_;
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
