// Re-simulates a run's figures (twin/figures.h) on a candidate drive, cheaply: each figure's
// workload on a drive brought to the state its test measures, for a short virtual time.
//
//   iops, lat, lvi  purge, sequential fill, 1.5 capacities of 4 KiB random writes (steady),
//                   then every cell in turn (a warm-up of half a cell, then cell_ns; lat
//                   cells 8 x cell_ns; the measured phase continues the warm-up's, so the
//                   I/Os in flight at its start count when they complete, as in PTS rounds);
//                   with RunShape::iops_fresh each iops cell on a drive of its own, purged
//                   and filled only
//   tp              purge, sequential 128 KiB fill, then every cell (4 x cell_ns; write
//                   cells after a warm-up of one capacity written)
//   wsat            purge, 4 KiB random writes in steps of kWsatBin capacities up to the last
//                   bin measured; each bin's IOPS
//   hir             as iops, then per wait: hir_cycles of (write hir_write_ns, idle wait)
// The drive is simulated at the run's scale, or coarser (doubling it) until it holds at most
// max_user_bytes (throughput is the full drive's; state changes take that many times fewer
// I/Os), so that an evaluation of a run at a small scale (`--time-scale 32`: 50 GB of the
// DC400) costs what one at the preset's does. No coarser: a drive of a few hundred blocks
// garbage-collects better than the run's (the DC400 at its preset's scale has 924 blocks at 24% OP:
// at 4x, 235, 1 MiB random writes after a fill and 1.5 capacities of 4 KiB ones came 13% fast
// at 24% OP and 18% at 32%, a slope the fit read as more spare area; at 2x, 465 blocks, 3%
// and 1%; the evaluator's 128 KiB cells: twin_test's CheapDriveHasTheRunsWriteAmplification).
// Deterministic: the same parameters and figures give the same values.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sim/params.h"
#include "twin/figures.h"

namespace ssdlab::twin {

// The target string of parameters: "sim:tiny?key=value&..." with every key of the table
// (values as ParamPairs prints them), `scale` multiplied by scale_factor.
std::string TargetOf(const sim::SimParams& p, uint32_t scale_factor = 1);

struct SimulateOptions {
  uint64_t max_user_bytes = uint64_t{4} << 30;  // user bytes simulated at most (see above)
  uint64_t cell_ns = 500'000'000;               // virtual time of one cell
  uint32_t hir_cycles = 8;                      // at most this many of the run's cycles
  double steady_capacities = 1.5;               // random writes before the steady-state cells
};

// One value per figure, in the figures' units (IOPS, MB/s, us); Invalid when the drive does
// not open (parameters out of range).
Result<std::vector<double>> SimulateFigures(const sim::SimParams& p,
                                            const std::vector<Figure>& figures,
                                            const RunShape& shape, const SimulateOptions& o = {});

}  // namespace ssdlab::twin
