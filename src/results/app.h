// The results of an application test (`ssdlab app`, apps/app.h): what the benchmark client
// measured (transactions, latency per transaction, its own per-second report) and what the
// drive under the data directory did meanwhile (block-layer counters per second, temperature).
// One ToJson / FromJson pair; every key is always written (nulls for what was not measured).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab::results {

// One second of the client's own report.
struct AppSecond {
  double t_s = 0;            // end of the interval, seconds since the measured start
  double tps = 0, qps = 0;   // qps: sysbench only (pgbench: 0)
  double lat_ms = 0;         // sysbench: the interval's p99; pgbench: its mean
  double lat_stddev_ms = 0;  // pgbench only
  double errors_per_s = 0;
};

// Latency per transaction, ms: null when unknown (an interrupted sysbench run prints none;
// percentiles need the client's histogram or log).
struct AppLatencyMs {
  std::optional<double> mean, min, p50, p95, p99, p99_9, max;
  uint64_t samples = 0;
};

// One second of the drive's block-layer counters.
struct DeviceSecond {
  double t_s = 0;  // end of the interval, seconds since the sampler started
  double read_iops = 0, write_iops = 0;
  double read_mb_s = 0, write_mb_s = 0;      // MB = 10^6 bytes
  double read_lat_ms = 0, write_lat_ms = 0;  // mean time per completed I/O in the interval
  double util_pct = 0;                       // time the device had I/O in flight
  double flush_per_s = 0;
  std::optional<double> temperature_c;
};

// The means over the sampled seconds (latency weighted by I/Os).
struct DeviceSummary {
  uint64_t seconds = 0;
  double read_iops = 0, write_iops = 0, read_mb_s = 0, write_mb_s = 0, read_lat_ms = 0,
         write_lat_ms = 0, util_pct = 0, peak_util_pct = 0;
};

struct DeviceTemperature {
  std::string source;  // "none" without a sensor
  std::string note;    // why there is none
  std::optional<double> idle_c, peak_c, mean_c;
};

struct AppDevice {
  std::string stat_path;  // /sys/dev/block/MAJ:MIN/stat
  std::vector<DeviceSecond> per_second;
  DeviceSummary summary;
  DeviceTemperature temperature;
};

// The simulated drive under an app run on a served drive (`app --target sim:...`,
// serve/served_fs.h): its counters over the app's run (from just before the server started to
// after the filesystem was synced once it stopped: server start, data load, warm-up and the
// measured run), and the serve's pacing over the whole serve.
struct AppSimulatedDrive {
  std::string target;  // "sim:PRESET[?...]"
  uint64_t capacity_bytes = 0;
  uint64_t host_pages_written = 0, nand_pages_written = 0;  // 4 KiB pages
  double write_amplification = 0;                           // NAND / host pages written
  uint64_t gc_page_copies = 0, erases = 0;
  uint64_t host_read_pages = 0, nand_page_reads = 0;
  bool paced = true;  // the serve's share late stayed under its limit (docs/serve.md)
  double late_share = 0;
  uint64_t transport_round_trip_ns = 0;
};

struct AppResults {
  std::string app;               // "sysbench-oltp", "pgbench"
  std::optional<bool> measured;  // the measured run started (absent in older documents)
  bool complete = false;         // the client printed its final summary
  double tps = 0, qps = 0, duration_s = 0;
  uint64_t transactions = 0, queries = 0, errors = 0;
  AppLatencyMs latency_ms;
  std::vector<AppSecond> per_second;
  std::string per_second_latency;   // what AppSecond::lat_ms is: "p99" or "mean"
  std::optional<AppDevice> device;  // null without a device (--any-dir)
  // Versions, the server's configuration as passed, scale, threads, paths: free-form, as the
  // app wrote them.
  nlohmann::json settings;
  std::optional<std::string> error;  // why the run failed or stopped; null when complete
  // On a served simulated drive only (absent otherwise).
  std::optional<AppSimulatedDrive> simulated_drive;
};

// {"stat_path", "per_second": [...], "summary": {...}, "temperature": {...}}
nlohmann::json ToJson(const AppDevice& d);
Result<AppDevice> AppDeviceFromJson(const nlohmann::json& j, const std::string& where);
// {"app", "measured", "complete", "tps", "qps", "transactions", "queries", "errors",
// "duration_s", "latency_ms": {"mean", "min", "p50", "p95", "p99", "p99_9", "max", "samples"},
// "per_second": [...], "per_second_latency", "device", "settings", "error"}, and on a served
// simulated drive "simulated_drive": {"target", "capacity_bytes", "host_pages_written",
// "nand_pages_written", "write_amplification", "gc_page_copies", "erases", "host_read_pages",
// "nand_page_reads", "paced", "late_share", "transport_round_trip_ns"}
nlohmann::json ToJson(const AppResults& a);
// `where` names the object in errors ("pgbench.results"); Invalid naming a wrongly typed key.
Result<AppResults> AppResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
