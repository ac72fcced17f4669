// `ssdlab trace stats`: one streaming pass over a trace that characterises it (shares,
// block sizes, sequentiality, arrivals, bursts, working set, skew) in bounded memory, and the
// nearest synthetic workload as `ssdlab run` flags.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stats/histogram.h"
#include "trace/trace.h"

namespace ssdlab::trace {

struct StatsOptions {
  uint64_t unit_bytes = 4096;           // working-set and skew granularity
  uint64_t burst_gap_ns = 1000 * 1000;  // a gap above this ends a burst
  uint32_t seq_streams = 16;            // an I/O starting where one of the device's last N ended
  size_t max_seq_devices = 1024;        // devices with a window of their own; the rest share one
  uint64_t sample_units = 1 << 18;      // most 4 KiB units tracked exactly (memory bound)
  size_t max_block_sizes = 1024;        // distinct sizes kept; others counted apart
};

struct TraceStats {
  uint64_t records = 0;
  std::array<uint64_t, 3> ios{};       // by Direction
  std::array<uint64_t, 3> bytes{};     // by Direction
  uint64_t first_ns = 0, last_ns = 0;  // trace time of the first and last record
  uint64_t duration_ns = 0;            // last - first (records' own times)
  uint64_t max_end_bytes = 0;          // highest offset + bytes
  std::vector<std::pair<uint32_t, uint64_t>> block_sizes;  // (bytes, I/Os), ascending bytes
  uint64_t block_sizes_other = 0;  // I/Os of sizes beyond max_block_sizes distinct ones
  uint64_t sequential = 0;         // I/Os starting where one of the device's last seq_streams ended
  Histogram interarrival;          // ns between consecutive records (0 when out of order)
  uint64_t out_of_order = 0;       // records earlier than their predecessor
  uint64_t bursts = 0;             // runs of records with gaps <= burst_gap_ns
  uint64_t burst_max_ios = 0;
  double burst_mean_ios = 0;
  Histogram iops_per_s;  // I/Os in each whole second of the trace (idle seconds: 0)
  uint64_t peak_iops_1s = 0;
  // Working set: distinct units touched. Exact while at most sample_units are touched;
  // beyond, estimated from a hash-sampled subset of units (rate 1/2^sample_level).
  uint64_t working_set_units = 0;
  bool working_set_exact = true;
  uint32_t sample_level = 0;
  // Share of unit accesses that go to the hottest 1%, 10%, 20% of touched units (computed
  // over the sampled units: exact when working_set_exact).
  double hot_1pct = 0, hot_10pct = 0, hot_20pct = 0;
  std::array<Histogram, 3> recorded;  // recorded response times by direction (where present)
  uint64_t devices = 0;               // distinct devices seen (up to 1024)
  uint64_t unit_bytes = 4096;
};

class StatsBuilder {
 public:
  explicit StatsBuilder(const StatsOptions& o = StatsOptions{});
  void Add(const TraceRecord& r);
  TraceStats Finish();

 private:
  void Touch(uint64_t key);
  void Rehash(size_t capacity);
  StatsOptions o_;
  TraceStats s_;
  uint64_t prev_t_ = 0;
  bool have_prev_ = false;
  uint64_t burst_len_ = 0, burst_sum_ = 0;
  // The end offsets of a device's last seq_streams I/Os (a ring).
  struct SeqWindow {
    std::vector<uint64_t> ends;
    size_t pos = 0;
  };
  // Each device's window (the first max_seq_devices devices; later ones share `shared_seq_`,
  // their ends salted with the device so that they never match another's).
  SeqWindow& SeqWindowOf(uint64_t device);
  std::unordered_map<uint64_t, SeqWindow> seq_windows_;
  SeqWindow shared_seq_;
  uint64_t sec_index_ = 0, sec_count_ = 0;
  std::vector<std::pair<uint32_t, uint64_t>> sizes_;  // unsorted, bounded
  std::vector<uint64_t> devices_;
  // Open addressing: key + 1 (0 = empty) and count.
  std::vector<std::pair<uint64_t, uint64_t>> table_;
  size_t used_ = 0;
};

// The nearest `ssdlab run` workload: --rw, --rwmix-read, --bs mix (sizes covering >= 95% of
// I/Os, at most 6), --dist zoned from the skew, --rate-iops (the mean rate), --qd (Little's
// law from recorded response times, else 1), --range (the working set).
std::string SuggestRunFlags(const TraceStats& s);

}  // namespace ssdlab::trace
