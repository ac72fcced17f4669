// Turns the textual workload options (as on `ssdlab run`'s command line or in suite files)
// into a WorkloadSpec. Relative values ("25%", "3x") are resolved against the target, so
// parsing happens in two steps: ParseWorkload() checks syntax without knowing the target,
// ResolveWorkload() fixes absolute numbers once the target's size is known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "workload/spec.h"

namespace ssdlab {

struct WorkloadArgs {
  std::string rw = "randread";  // read|write|randread|randwrite|rw|randrw|trim|randtrim
  std::string rwmix_read;       // percent read for rw/randrw (default 50)
  std::string bs = "4KiB";      // "4KiB" or "4KiB:67,8KiB:10,64KiB:23"
  uint32_t qd = 1;
  uint32_t jobs = 1;
  std::string runtime;            // "10s"
  std::string io_size;            // "8GiB" or "3x" (times the active range)
  std::string ramp;               // "2s" or "2x" or "1GiB"
  std::string range = "0%-100%";  // "0%-25%", "1GiB-2GiB", "0-100%"
  std::string dist = "uniform";   // uniform|zipf:1.2|pareto:0.9|zoned:50/5:30/15:20/80
  std::string rate_iops;          // total over jobs
  std::string data = "random";    // random|zero|compressible:50|dedupe:30
  uint64_t seed = 1;
  bool verify = false;
  std::string interval = "1s";
};

// The highest --rate-iops accepted: 100 M I/Os per second over all jobs (10 ns apart).
inline constexpr double kMaxRateIops = 1e8;

// The finest time series: intervals of at least 10 ms (or none).
inline constexpr uint64_t kMinIntervalNs = 10ull * 1000 * 1000;
// A time-series interval ("1s", "250ms"; "0": none) into ns, the one check of every command's
// --interval: 0 or at least kMinIntervalNs. Errors name --interval.
Result<uint64_t> ParseIntervalNs(const std::string& text);

// Resolves args for a target of `target_bytes` whose I/O must be aligned to `align_bytes`.
Result<WorkloadSpec> ResolveWorkload(const WorkloadArgs& args, uint64_t target_bytes,
                                     uint32_t align_bytes);

// Pieces, exposed for reuse and tests.
Result<std::vector<BlockShare>> ParseBlockSizes(const std::string& text);
Result<Distribution> ParseDistribution(const std::string& text);
// The distributions' names, one table (workload/parse.cc) that parsing, errors and the stored
// documents read: "uniform", "zipf", "pareto", "zoned".
const char* DistKindName(DistKind k);
// The kind named `name` (also "random": uniform, as fio says); false for another name.
bool DistKindFromName(std::string_view name, DistKind* out);
// Every distribution as --dist takes it, joined by `sep`: "uniform, zipf:S, pareto:H,
// zoned:A/R:..." with ", ".
std::string DistSyntaxes(const std::string& sep);
Result<DataPattern> ParseDataPattern(const std::string& text);
// A size or "Nx" (multiple of `unit_bytes`).
Result<uint64_t> ParseAmount(const std::string& text, uint64_t unit_bytes);
// "A-B" where A and B are sizes or percentages of target_bytes.
Result<std::pair<uint64_t, uint64_t>> ParseRange(const std::string& text, uint64_t target_bytes);

// Canonical one-line description of a spec, e.g. "randrw 70/30 bs=4KiB qd=32 jobs=4".
std::string DescribeWorkload(const WorkloadSpec& spec);

}  // namespace ssdlab
