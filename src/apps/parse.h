// Reading what the benchmark clients print: sysbench 1.0 (per-second report lines, the latency
// histogram of --histogram=on, the final statistics) and pgbench (per-second --progress lines,
// the final summary, the per-transaction log of --log). Pure functions; tested on captured
// output.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "base/status.h"
#include "stats/histogram.h"

namespace ssdlab {

// One second of a client's own report.
struct ClientSecond {
  double t_s = 0;            // end of the interval, seconds since the measured start
  double tps = 0;            // transactions per second
  double qps = 0;            // queries per second (sysbench; pgbench: 0)
  double lat_ms = 0;         // sysbench: the interval's --percentile (p99); pgbench: mean
  double lat_stddev_ms = 0;  // pgbench only
  double errors_per_s = 0;   // sysbench err/s; pgbench failed transactions in the interval
  uint32_t threads = 0;      // sysbench only
};

// What a client run measured. Latency figures are per transaction.
struct ClientResult {
  uint64_t transactions = 0;
  uint64_t queries = 0;  // sysbench only
  uint64_t errors = 0;   // sysbench ignored errors, pgbench failed transactions
  double duration_s = 0;
  double tps = 0;
  double qps = 0;
  Histogram latency;  // transaction latencies (sysbench: its histogram's bucket values)
  double lat_mean_ms = 0;
  double lat_min_ms = 0;
  double lat_max_ms = 0;
  std::vector<ClientSecond> seconds;
  bool complete = false;  // the final summary was present (false: killed part-way)
};

// sysbench oltp_* output with --report-interval=1 --histogram=on. Tolerates a truncated
// output (an interrupted run): the per-second lines read so far are kept and complete=false.
// Invalid when the text holds no sysbench report at all.
Result<ClientResult> ParseSysbench(std::istream& in);

// pgbench's stderr with --progress=1 (per-second lines) and stdout (the summary) merged in
// one stream, as when both go to one log file.
Result<ClientResult> ParsePgbench(std::istream& in);

// Adds the latencies of one pgbench --log file ("client tx latency_us script epoch_s us ...")
// to `latency`. Returns the number of transactions read; lines of failed transactions
// (latency "failed"/"skipped") are counted in *failed. A malformed line is Invalid, except
// the last one: a client killed part-way leaves it cut short, and it is skipped.
Result<uint64_t> ReadPgbenchLog(std::istream& in, Histogram* latency, uint64_t* failed);

}  // namespace ssdlab
