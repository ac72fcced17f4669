// Saved states of simulated drives (`sim:PRESET?state=PATH`): a drive's whole state written to a
// file at the end of a command and read back at the start of the next, so that a drive
// preconditioned by one command is measured by another, as with a real drive.
//
// File format (version kStateVersion; docs/sim.md "Saved states"):
//   "SSDLABST" (8 bytes) | u32 version | u32 header length H | H bytes of header text |
//   u64 XXH3-64 of everything before it |
//   body: one zstd frame (the raw arrays and scalars, in the order of Ftl/SimDevice::VisitState) |
//   trailer: u64 body length | u64 XXH3-64 of header, header checksum and body.
// The header text holds "[params]" (the drive parameters as key=value lines in the order of the
// parameter table, preset first; mem_limit and state excluded: they do not change the drive),
// "[geometry]" (derived sizes, a check against model changes) and "[summary]" (fill, counters,
// wear and clock, for `ssdlab info` without reading the body). Integers are little endian (the
// only byte order the simulator runs on). The mapping table is delta-coded before compression
// (a sequentially written drive compresses to almost nothing); the reverse map is not stored
// but rebuilt from it after a load (only its entries of valid pages are ever read).
//
// Guarantees: a save goes to a temporary file beside PATH (beside the file a symlink PATH points
// to), fsynced and renamed over it, so PATH always holds a whole state (the previous one after a
// crash). One command at a time uses a state: sim/state_lock.h. A load checks magic, version, the
// header checksum, the parameters, the trailer, the body checksum and the ranges of every index
// before the state is used: a damaged, truncated or foreign file is an error, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sim/params.h"

namespace ssdlab::sim {

class SimDevice;

inline constexpr uint32_t kStateVersion = 1;

// Figures from a state's header (what `ssdlab info` shows).
struct StateSummary {
  uint64_t user_pages = 0;
  uint64_t mapped_pages = 0;
  uint64_t host_pages = 0;  // since the last purge
  uint64_t nand_pages = 0;
  uint64_t gc_copies = 0;
  uint64_t erases = 0;
  uint64_t free_blocks = 0;
  uint64_t blocks = 0;
  double erase_count_mean = 0;  // per block, since manufacture (purges keep wear)
  uint64_t erase_count_max = 0;
  uint64_t virtual_time_ns = 0;
  double fill_pct() const {
    return user_pages ? 100.0 * static_cast<double>(mapped_pages) / static_cast<double>(user_pages)
                      : 0.0;
  }
  double write_amplification() const {
    return host_pages ? static_cast<double>(nand_pages) / static_cast<double>(host_pages) : 0.0;
  }
};

// What a save or a load did (for benchmarks).
struct StateIoStats {
  uint64_t raw_bytes = 0;   // serialized body before compression
  uint64_t file_bytes = 0;  // on disk
  double seconds = 0;       // wall time of the whole save or load
};

// The parameter lines a state is fingerprinted by: preset, then ParamPairs(p) without mem_limit.
std::vector<std::pair<std::string, std::string>> StateParams(const SimParams& p);

// Knobs of saving (tests and benchmarks; defaults are what ssdlab uses).
struct StateSaveOptions {
  int zstd_level = -3;    // zstd fast mode: random mappings barely compress, speed matters
  int zstd_workers = -1;  // -1: one per online CPU (at most 4); 0: single-threaded
};

// Writes `dev` and the backend clock `now_ns` to `path` atomically: beside the file `path`
// resolves to (sim/state_lock.h ResolveStatePath) and renamed over it, so a symlink stays a link
// and its target gets the state. Errors: Io/NoSpace naming the path (the previous file, if any,
// is unchanged). The caller holds the state's lock (sim/state_lock.h).
Status SaveState(const std::string& path, const SimDevice& dev, uint64_t now_ns,
                 const StateSaveOptions& o = {}, StateIoStats* stats = nullptr);

// Replaces the state of `dev` (constructed from the same parameters) with the one in `path` and
// sets *now_ns to its clock. Errors (Invalid, one line naming the path): not an ssdlab simulator
// state, a newer format version, damaged or truncated, made for other parameters (naming the
// first that differs, with both values). On error `dev` may hold a partial state: discard it.
// `damaged`, when given, is set to true when the error is damage of a file that is ssdlab's (it
// starts with the magic, or a prefix of it, or is empty: damaged or truncated), which a purge
// may replace; it is left alone for every other error (foreign file, newer version, other
// parameters, unreadable).
Status LoadState(const std::string& path, SimDevice* dev, uint64_t* now_ns,
                 StateIoStats* stats = nullptr, bool* damaged = nullptr);

// Reads and checks only the header of `path` against parameters `p` (as LoadState does, without
// the body): the same errors except damage inside the body, and the same `damaged`.
Result<StateSummary> ReadStateHeader(const std::string& path, const SimParams& p,
                                     bool* damaged = nullptr);

}  // namespace ssdlab::sim
