// The figures of a stored run that a simulated drive can be fitted to and compared with:
// one number per test cell and metric, with the workload that produced it.
//
// Read from a run document (Store::RunJson, also what `ssdlab import` stores, twin/import.h:
// imported WSAT positions in GiB written are converted with the run's capacity, an empty one
// is the plateau, the last bin before 4 capacities): PTS IOPS, TP,
// LAT (mean, p99, p99.9), WSAT (the curve, binned by capacities written), HIR (mean cycle
// IOPS per wait) and LVI (IOPS and mean latency of every threads x QD point). Other tests are not
// read.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab::twin {

// The PTS tests whose figures are read (the catalogue's names, results/pts_tests.h), in
// battery order: iops, tp, lat, lvi, wsat, hir.
const std::vector<std::string>& FiguresTests();
bool HasFigures(const std::string& test);

struct Figure {
  std::string test;    // "iops", "tp", "lat", "wsat", "hir", "lvi"
  std::string metric;  // "iops", "mb_s", "lat_mean_us", "lat_p99_us", "lat_p99_9_us"
  uint64_t block_bytes = 4096;
  double read_pct = 0;
  uint32_t threads = 1, qd = 1;
  bool sequential = false;
  double x = 0;  // wsat: capacities written (bin centre); hir: wait in seconds; else 0
  double value = 0;
  std::string run;   // the run it comes from
  std::string role;  // imported figures: "calibration" or "predicted"; else empty

  // "lat rw=0/100 bs=4KiB T1 Q1 lat_p99_us" (unique within a run).
  std::string Name() const;
};

// Knobs of the tests that the figures need to be re-simulated (from the run's config).
struct RunShape {
  uint64_t hir_write_ns = 5'000'000'000;
  uint32_t hir_cycles = 30;
  uint64_t capacity_bytes = 0;  // the tested range of the run's target (imports: --capacity)
  // The IOPS cells were measured on a drive fresh from its sequential preconditioning (before
  // its spare pool ran out), not in write steady state: imports with `iops_state` "fresh" in
  // their options, and PTS runs whose IOPS rounds wrote less than kFreshCapacities in all
  // (short cells: `--iops-round`).
  bool iops_fresh = false;
};

// Random writes, in capacities, below which a PTS run's IOPS test counts as measuring a fresh
// drive (below the spare pool of any drive with 7% or more over-provisioning).
inline constexpr double kFreshCapacities = 0.05;

// The metrics a cell of each test yields.
const std::vector<std::string>& MetricsOf(const std::string& test);

// Figures of one run document. Invalid naming the run when it has none of the tests above
// (finished), or when a test's results are not shaped as ssdlab writes them.
Result<std::vector<Figure>> FiguresOfRun(const nlohmann::json& run_doc, RunShape* shape);

// Width of a WSAT bin in capacities written.
inline constexpr double kWsatBin = 0.25;

}  // namespace ssdlab::twin
