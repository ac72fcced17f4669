// The resolved options of a PTS battery and their stored form (a run's context.config.options).
// The suite resolves and runs them (suite/pts.h); the report reads a stored run's through
// PtsOptionsFromJson, so both use one list of keys and members (pts_options.cc PtsFields).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "stats/steady_state.h"

namespace ssdlab::results {

enum class PtsSpec { kPtsE, kPtsC, kReview };

// A read/write mix cell: percent reads.
struct Mix {
  double read_pct = 100;
};

// Resolved options of a battery. Defaults come from the spec (SpecDefaults()); every field
// can be overridden. Durations are virtual on the simulator.
struct PtsOptions {
  PtsSpec spec = PtsSpec::kPtsE;
  std::vector<std::string> tests;      // subset of PtsTestNames() (pts_tests.h), in battery order
  uint64_t round_ns = 60'000'000'000;  // duration of one cell of a round
  // Duration of one cell of an IOPS round; 0: round_ns. A lab that runs the whole IOPS matrix
  // in one minute (rather than a minute per cell) measures a drive still fresh from its
  // sequential preconditioning.
  uint64_t iops_round_ns = 0;
  uint32_t max_rounds = 25;
  SteadyStateCriteria steady;  // window, rule and limits
  std::string purge = "auto";
  double wipc_multiple = 2.0;  // sequential 128 KiB preconditioning, times the range
  // LVI, HIR and OP-study points: their 4 KiB random-write preconditioning writes at least this
  // many times the range before its steady state counts (0: steady state alone, the spec's
  // rule; a large spare pool looks steady while the drive is still fresh).
  double wdpc_capacity_multiple = 0;
  uint32_t threads = 0, qd = 0;                // 0 = the spec's per-test default
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
  // A simulated drive run at scale time_scale with the spec's durations divided by it
  // (DivideDurations): its rounds write the share of the drive that the spec's rounds write on
  // the full drive. 1: durations as the spec gives them.
  uint32_t time_scale = 1;
};

// The duration of one cell of an IOPS round (iops_round_ns, else round_ns).
inline uint64_t IopsCellNs(const PtsOptions& o) {
  return o.iops_round_ns ? o.iops_round_ns : o.round_ns;
}

// Sets o.time_scale = n and divides every duration of `o` by n (rounds, LVI warm-up and
// measurement, WSAT rounds, HIR writes, waits and baseline, XSR phases, DIRTH measurement);
// counts, sizes and latency limits stay. REQUIRES: n >= 1.
void DivideDurations(PtsOptions& o, uint32_t n);

// The defaults of a spec (PTS-E 1.1, PTS-C / PTS 2.0.x client, or the reviewers' variant),
// with `tests` = every test of the catalogue (pts_tests.h), in battery order.
PtsOptions SpecDefaults(PtsSpec spec);
Result<PtsSpec> ParsePtsSpec(const std::string& name);
const char* PtsSpecName(PtsSpec spec);

// The resolved options as stored in a run's configuration ("options"), and back. A key missing
// from an older document keeps the default of the stored spec (SpecDefaults(spec): a
// missing `tests` is every test); a value of the wrong type or a bad value is Invalid naming the
// key.
nlohmann::json PtsOptionsJson(const PtsOptions& o);
Result<PtsOptions> PtsOptionsFromJson(const nlohmann::json& stored);

}  // namespace ssdlab::results
