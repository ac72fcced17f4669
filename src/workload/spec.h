// The typed description of one phase of load: what to issue, where, how much, how fast.
// Plain data, no I/O. Built by ParseWorkload() (workload/parse.h) or directly by suites.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ssdlab {

class RequestSource;  // workload/request_source.h

enum class Direction : uint8_t { kRead = 0, kWrite = 1, kTrim = 2 };
inline constexpr int kDirections = 3;
const char* DirectionName(Direction d);  // "read", "write", "trim"

enum class Pattern : uint8_t { kSequential, kRandom };

enum class DistKind : uint8_t { kUniform, kZipf, kPareto, kZoned };
struct Zone {
  double access_pct = 0;  // share of I/Os sent to this zone
  double range_pct = 0;   // share of the active range this zone covers (zones are contiguous)
};
struct Distribution {
  DistKind kind = DistKind::kUniform;
  double param = 0;         // zipf exponent (> 0, != 1) or pareto h in (0, 1)
  std::vector<Zone> zones;  // kZoned only; access and range shares each sum to 100
};

struct BlockShare {
  uint64_t bytes = 4096;
  double pct = 100;  // percent of I/Os
};

enum class DataKind : uint8_t { kRandom, kZero, kCompressible, kDedupe };
struct DataPattern {
  DataKind kind = DataKind::kRandom;
  double pct = 0;  // compressible: percent of each 4 KiB that is zeros; dedupe: percent of
                   // written blocks that repeat an earlier block's content
};

struct WorkloadSpec {
  Pattern pattern = Pattern::kRandom;
  double read_pct = 100;  // share of I/Os that read; the rest write (or trim if `trim`)
  bool trim = false;      // non-read I/Os are trims (discard) instead of writes
  std::vector<BlockShare> block_sizes = {BlockShare{}};
  uint32_t queue_depth = 1;  // in-flight I/Os per job
  uint32_t jobs = 1;         // independent submitters (threads on real targets)

  // The measured part ends at whichever limit is reached first; at least one is non-zero.
  uint64_t runtime_ns = 0;  // 0 = unlimited
  uint64_t io_bytes = 0;    // total over all jobs; 0 = unlimited
  // Excluded from statistics, before the measured part: time or amount (or both: first wins).
  uint64_t ramp_ns = 0;
  uint64_t ramp_bytes = 0;

  uint64_t range_begin_bytes = 0;  // active range [begin, end) of the target, absolute
  uint64_t range_end_bytes = 0;
  Distribution dist;

  double rate_iops = 0;  // total over all jobs; 0 = closed loop (as fast as possible)
  DataPattern data;
  uint64_t seed = 1;
  bool verify = false;                // writes carry verify headers; reads check them
  uint64_t verify_unit_bytes = 0;     // bytes per verify header; 0 = min(4 KiB, MinBlockBytes())
  uint64_t interval_ns = 1000000000;  // time-series resolution; 0 = no time series
  // Not owned. When set, requests come from it instead of the generators (trace replay):
  // pattern, read_pct, dist, rate_iops and the block-size shares are then ignored (block_sizes
  // still bounds the request size), and the phase ends when the source is exhausted.
  RequestSource* source = nullptr;

  uint64_t MinBlockBytes() const;
  uint64_t MaxBlockBytes() const;
  bool HasWrites() const { return read_pct < 100; }
  bool HasReads() const { return read_pct > 0; }
};

// The one sequential pass that writes `spec`'s active range before it is measured (--prefill,
// and a new file's first reads): one job, QD 16, blocks of up to 1 MiB that are a multiple of
// the verify unit (so that --verify reads find headers), the same data pattern and seed, no
// ramp, no rate, no time series.
WorkloadSpec PrefillOf(const WorkloadSpec& spec);

// One request produced by a generator.
struct IoRequest {
  uint64_t offset = 0;
  uint32_t bytes = 0;
  Direction dir = Direction::kRead;
};

}  // namespace ssdlab
