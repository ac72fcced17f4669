// Runs on a digital twin (a simulated drive, usually a `sim fit` preset file) for
// `sim compare --exact` and `report --twin`: the stored run's own tests re-run through the
// suite (RunPts with the run's stored options), and the what-if runs (the OP advisor profile,
// WSAT to 4 capacities, RAID 10 and RAID 5 arrays of four twins beside one twin). Each runs in
// a temporary results database (under the system's temporary directory, removed afterwards);
// the run documents are what the report and twin/figures.h read. The `stop` flag given (the
// CLI's SIGINT/SIGTERM flag) stops them: the call returns Interrupted.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/pts_options.h"
#include "twin/figures.h"
#include "twin/fit.h"

namespace ssdlab::usecase {

// "sim:FILE.toml" or "FILE.toml" or any sim: target, as one target string with every key of the
// resolved parameters and the scale multiplied by `scale_factor` (coarser: state changes take
// that many times fewer I/Os; throughput stays the full drive's). Invalid as ParseSimTarget.
Result<std::string> TwinTarget(const std::string& target, uint32_t scale_factor);

// True when the run document holds the options of an ssdlab PTS battery (not an import).
bool HasPtsOptions(const nlohmann::json& run_doc);

// True when RerunOnTwin can re-run the run: it holds PTS options, or it is an import
// (twin/import.h) with cells of iops, tp, lat or wsat.
bool CanRerun(const nlohmann::json& run_doc);

// The run's finished iops, tp, lat, lvi, wsat and hir tests re-run with the run's own options on
// `target` (the suite's code path: purge, preconditioning, rounds to steady state), at the run's
// scale when it was made with --time-scale (options.time_scale > 1); the tests run side by side,
// one battery each, as many as the machine has cores (each purges first and keeps its seed, so
// the figures are those of one battery; with --purge none, one battery in order).
// An imported run holds no options: its iops, tp, lat and wsat tests are run as the review
// spec's (ImportedBattery), their block sizes and mixes added to the spec's.
// Invalid naming the run when it holds neither PTS options nor imported cells of those tests.
Result<nlohmann::json> RerunOnTwin(const nlohmann::json& run_doc, const std::string& target,
                                   const std::atomic<bool>* stop);

// The battery that re-measures an imported run's figures on `target` (a sim: target): the
// review spec (purge, preconditioning, rounds to steady state; IOPS and WSAT at 16 x QD 8, TP at
// 8 x QD 16, LAT at QD 1) with the tests the run imported of iops, tp, lat and wsat, each test's
// block sizes and mixes the spec's and the imported cells', IOPS, WSAT and TP at the imported
// IOPS and WSAT cells' load when they all have one, at `--time-scale auto` (the spec's 60 s
// rounds on the full drive as rounds of 60 s / N on a drive of 1/N its size, N = 6 or the
// preset's scale when smaller); *at is the target at that scale. Invalid when the run imported
// none of these tests.
Result<results::PtsOptions> ImportedBattery(const nlohmann::json& run_doc,
                                            const std::string& target, std::string* at);

// Per measured figure, the value of the simulated figure of the same name (twin::Figure::Name),
// else, for an imported figure (its role set) of a deep load (threads x QD >= 32), of the one
// cell of the same test, pattern, mix, block size, position and metric at another deep load
// (both keep the drive busy: e.g. a review's sequential reads at 1 x QD 128 and the spec's
// 8 x QD 16); 0 when none matches.
std::vector<double> MatchFigures(const std::vector<twin::Figure>& measured,
                                 const std::vector<twin::Figure>& simulated);

// Measured figures against the twin's: `twin_doc` a rerun's document (exact: figures matched
// by MatchFigures; a figure the twin's run does not have is simulated 0) or null (the cheap
// evaluator, twin/simulate.h, on `target`).
Result<std::vector<twin::FigureFit>> CompareOnTwin(const nlohmann::json& run_doc,
                                                   const std::string& target,
                                                   const nlohmann::json& twin_doc);

struct WhatIfRun {
  std::string label;  // e.g. "twin: OP advisor", "4 x twin, RAID 5"
  std::string role;   // "op", "wsat", "single", "raid10", "raid5"
  nlohmann::json doc;
};

struct WhatIfOptions {
  std::vector<double> op_pcts = {0, 7, 15, 28, 50};
  double op_capacities = 2.5;  // written per OP point (at the fresh drive's 4 KiB write rate)
  uint64_t round_ns = 2'000'000'000;  // array cells and WSAT rounds
  uint32_t threads = 16, qd = 8;
  const std::atomic<bool>* stop = nullptr;  // set: the runs stop (Interrupted)
};

// The what-if runs on `target` (a TwinTarget): the OP advisor profile at `op_pcts`, WSAT to 4
// capacities, and 4 KiB random read / 70/30 / write (IOPS) and 128 KiB sequential (TP) on one
// twin, on a RAID 10 and on a RAID 5 (64 KiB chunks) of four.
Result<std::vector<WhatIfRun>> WhatIfRuns(const std::string& target, const WhatIfOptions& o);

}  // namespace ssdlab::usecase
