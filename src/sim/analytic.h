// Closed-form figures the simulator is validated against and that `ssdlab sim describe`
// prints. Pure functions, no state.
#pragma once

#include <cstdint>

#include "sim/params.h"

namespace ssdlab::sim {

// Principal branch W0 of the Lambert W function for x in [-1/e, +inf).
double LambertW0(double x);

// Write amplification of greedy GC under uniform random single-page writes, in the limit of
// many pages per block: WA = alpha / (alpha + W0(-alpha e^-alpha)), alpha = physical / user
// pages (Desnoyers 2012, "Analytic modeling of SSD write performance", SYSTOR'12 / ACM TOS
// 2014, eq. for greedy; same result by Xiang & Kurkoski 2012, "An improved analytic expression
// for write amplification in NAND flash"). REQUIRES: alpha > 1.
double GreedyWriteAmplification(double alpha);

// The alpha the formula should see for a simulated drive: blocks held out of the garbage
// collected population (the free pool at its foreground watermark, about half of each of the
// two open frontiers) do not count as spare; `live_fraction` is the share of the user
// capacity that holds live data (1 without TRIM; lower when part of the range is trimmed).
double EffectiveAlpha(const Geometry& g, double live_fraction = 1.0);

// Figures derived from the parameters, for 4 KiB transfers (all rates per second).
struct AnalyticFigures {
  double wa_steady = 0;                 // greedy, uniform random 4 KiB writes, full drive
  double write_iops_fresh = 0;          // 4 KiB random write, WA = 1
  double write_iops_steady = 0;         // 4 KiB random write at wa_steady
  double read_iops = 0;                 // 4 KiB random read of written data, deep queue
  double seq_write_mb_s = 0;            // 128 KiB sequential write, fresh
  double seq_read_mb_s = 0;             // 128 KiB sequential read
  double nand_program_mb_s = 0;         // all dies programming
  const char* write_bound_steady = "";  // which resource limits write_iops_steady
};
// Bottleneck estimate: the smallest of host link, controller, dies and channels, each given
// its per-I/O occupancy at the WA in question.
AnalyticFigures Analyze(const SimParams& p, const Geometry& g);

}  // namespace ssdlab::sim
