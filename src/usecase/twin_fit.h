// The `sim fit` use case: the digital twin of stored runs (twin/fit.h), from the flags' texts to
// the fitted preset file. The CLI parses the flags into a FitRequest, draws the search's progress
// and prints the FitOutcome's table.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "twin/fit.h"
#include "usecase/console.h"

namespace ssdlab::usecase {

struct FitRequest {
  std::vector<std::string> runs;  // the stored runs fitted (the first names the twin)
  std::string db;                 // the results database, read only
  std::string base;               // the starting preset ("" = the first run's simulated drive)
  // The flags as given: --fit keys, --train-tests, --holdout, --fold I/N, --loss, --prior,
  // --correct auto|base|off.
  std::string fit, train_tests, holdout, fold, loss = "squared", prior = "0.01", correct = "auto";
  std::string out;  // -o: the twin's preset file
  uint64_t seed = 1;
  uint32_t max_evals = 0;
  const std::atomic<bool>* stop = nullptr;
  Console* console = nullptr;  // the re-runs' notes; an empty Note ends a progress line (REQUIRED)
  // The search's progress: evaluations done of the budget, the best objective, seconds since
  // the start.
  std::function<void(uint32_t done, uint32_t budget, double best, double secs)> progress;
};

struct FitOutcome {
  twin::FitResult result;
  std::string base_name;  // the starting preset as named
  size_t figures = 0;     // the runs' figures
  double wall_s = 0;      // the whole fit's time
};

// Fits the twin and writes its preset file to `out`. An error names the flag, run or file at
// fault (bad input), or why the fit or the file failed.
Result<FitOutcome> SimFit(const FitRequest& r);

// The `sim compare` use case: a stored run's figures, measured against those of a (twin)
// simulated drive, cell by cell.
struct CompareRequest {
  std::string run, db;  // the stored run and its results database (read only)
  std::string target;   // sim:TWIN.toml or any sim: target (TwinTarget)
  bool exact = false;   // the run's own tests re-run on the target (RerunOnTwin), else the
                        // cheap evaluator
  const std::atomic<bool>* stop = nullptr;  // with `exact`: the re-run stops (Interrupted)
};

// Every figure of the run, measured and simulated (CompareOnTwin). An error names the database,
// run or target at fault, or why the re-run failed.
Result<std::vector<twin::FigureFit>> SimCompare(const CompareRequest& r);

}  // namespace ssdlab::usecase
