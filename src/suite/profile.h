// Review-lab profiles (docs/methodology.md, sections 6-8): the workloads reviewers' readers
// know (CrystalDiskMark, ATTO, AS SSD, AIDA64 linear write, sysbench fileio, vdbench curves
// of database and VDI mixes, fill levels, the over-provisioning advisor) and user profiles
// from TOML files, each a sequence of phases run through the Backend seam.
//
// A profile run is stored like a PTS run (Store: a run of kind "profile", one test per
// profile, each group of phases a stored step), so Store::RunJson() and the report read it.
// Profiles never know which backend they drive.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "results/profile_kinds.h"
#include "suite/journal.h"
#include "suite/pts.h"
#include "workload/parse.h"
#include "workload/spec.h"

namespace ssdlab {

// What one vdbench-style curve sends (the DC450R review). The built-in definitions, with their
// sources and reasoning, are in profile_mixes.cc (BuiltinCurveMixes); a profile file can
// override every field.
struct CurveMix {
  std::string name;
  bool sequential = false;
  double read_pct = 100;
  std::vector<BlockShare> block_sizes = {BlockShare{}};
  Distribution dist;
  uint32_t threads = 1;  // outstanding I/Os (vdbench threads)
  std::string source;    // where the figures come from and why
};
const std::vector<CurveMix>& BuiltinCurveMixes();
// The mix as stored (the test's parameters, the curve's results).
results::CurveMixRecord CurveMixRecordOf(const CurveMix& m);

// One phase of a user profile: the options of `ssdlab run`, resolved against the target.
struct UserPhase {
  std::string name;
  WorkloadArgs args;
  uint64_t idle_after_ns = 0;  // idle time after the phase (background GC on drives)
};

struct ProfileDef {
  std::string name;  // test name in the store
  // "cdm", "cdm-nvme", "atto", "as-ssd", "surface", "fileio", "curve", "fill",
  // "op-advisor", "user"
  std::string kind;
  CurveMix curve;                 // kind "curve"
  std::vector<UserPhase> phases;  // kind "user"
  std::string description;
  std::string file;  // the profile file it came from, if any
};

// Every built-in profile name, in a stable order.
const std::vector<std::string>& ProfileNames();
// kInvalidArgument naming the known profiles when `name` is not one.
Result<ProfileDef> BuiltinProfile(const std::string& name);
// A TOML profile file: either a list of phases ([[phase]] tables with `run` options) or a
// curve ([curve], optionally `base = "sql"` to start from a built-in mix). Unknown keys,
// wrong types and bad values are rejected with the key and its line.
Result<ProfileDef> LoadProfileFile(const std::string& path);

// Options of a profile run. Zero / empty means "the profile's default" (documented per
// field). Durations are virtual on the simulator.
struct ProfileOptions {
  std::vector<double> fill_pcts;  // --fill 0,90: run at each fill level (purge, fill); empty: as is
  std::string purge = "auto";     // purge method before each fill level and OP point
  uint64_t seed = 1;
  std::vector<double> percentiles = {50, 99, 99.9, 99.99};

  uint64_t size_bytes = 0;  // cdm / as-ssd test file (1 GiB); atto span (256 MiB); fileio total
  uint64_t time_ns = 0;     // measured time of each timed phase: cdm pass 5s, as-ssd 5s,
                            // curve point 60s, op-advisor point 600s, fileio 120s
  uint64_t ramp_ns = UINT64_MAX;          // curve and fileio warm-up (curve 10s, fileio 0)
  uint32_t passes = 0;                    // cdm: 5
  uint64_t pause_ns = UINT64_MAX;         // cdm: 5s between passes
  uint32_t qd = 0;                        // atto 4; surface 4; op-advisor 32 per thread
  uint32_t threads = 0;                   // curve: the mix's; fileio 192; op-advisor 4
  uint64_t min_bs = 0, max_bs = 0;        // atto: 512 B .. 64 MiB
  uint64_t bs = 0;                        // surface 1 MiB; fileio 4 KiB
  uint32_t segments = 0;                  // surface: 100
  double cliff_ratio = 0.6;               // surface: a segment below this x the median before it
  double section_pct = 25;                // curve: working section (the DC450R review)
  double curve_fill_pct = 100;            // curve: fill before the curves (unless --fill)
  std::vector<double> curve_pcts;         // curve: 10,20,...,120 (% of the uncapped maximum)
  uint32_t max_jobs = 4;                  // curve: threads are spread over at most this many jobs
  std::vector<double> op_pcts;            // op-advisor: 0,5,...,30
  uint64_t interval_ns = 0;               // op-advisor time series: 1s
  double fill_percent = 90;               // fill profile
  std::vector<std::string> fileio_modes;  // rndrd, rndwr, rndrw, seqrd, seqwr (default first three)
  double fileio_rw_ratio = 1.5;           // rndrw: reads per write (sysbench's default)
  // A simulated drive at scale=N run as the full drive (--time-scale N): every default duration
  // (phase time, warm-up, pause, time-series interval; a user profile's runtimes and idle times)
  // divided by N, so that each phase writes the share of the drive it writes on the full one;
  // durations given as options, sizes and counts stay.
  uint32_t time_scale = 1;
};

// The measured time of each timed phase a profile kind runs by default, before --time-scale:
// cdm and as-ssd 5 s, curve 60 s, op-advisor 600 s, fileio 120 s; 0 for kinds without timed
// phases (atto, surface and fill run by size; a user profile's phases carry their own).
uint64_t DefaultPhaseNs(const std::string& kind);

// Upper bounds on the counts a profile's options multiply its work and memory by (checked by
// ValidateProfileOptions): cdm passes (CrystalDiskMark offers 1 to 9), surface segments, OP
// points of the op-advisor, and time-series intervals in one op-advisor phase.
inline constexpr uint32_t kMaxPasses = 100;
inline constexpr uint32_t kMaxSegments = 1000;
inline constexpr size_t kMaxOpPoints = 100;
inline constexpr uint64_t kMaxIntervalsPerPhase = 100000;
// ATTO's block sizes: at least 512 B, multiples of 512 B, at most 1 GiB.
inline constexpr uint64_t kMinAttoBlock = 512;
inline constexpr uint64_t kMaxAttoBlock = uint64_t{1} << 30;

// Checks option ranges (OP within 0..90%, fill levels within 0..100, the bounds above, ...).
Status ValidateProfileOptions(const ProfileDef& def, const ProfileOptions& o);
nlohmann::json ProfileOptionsJson(const ProfileOptions& o);
// Checks, before anything runs, that the profile's test area fits on `target` at every fill
// level (cdm / as-ssd test file, atto span, surface segments).
Status CheckProfileTarget(const ProfileDef& def, const ProfileOptions& o, const TargetInfo& target);

// Runs `def` as test `seq` of run `run_id`, storing each step as it ends; the test's results
// hold one entry per fill level and, with two or more, the differences. A fill level that
// produced no figure is an error (the test is not finished), never a stored empty result.
Status RunProfile(Backend& backend, RunJournal& store, int64_t run_id, int seq,
                  const ProfileDef& def, const ProfileOptions& options, ProgressSink* progress,
                  const std::atomic<bool>* stop, TestHooks* hooks = nullptr);

}  // namespace ssdlab
