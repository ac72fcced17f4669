// Application tests: a real database server whose data lives on the drive under test, driven
// by its usual benchmark client, while the drive's own counters and temperature are sampled.
//   sysbench-oltp: a private MariaDB server + `sysbench oltp_read_write`
//   pgbench:       a private PostgreSQL cluster + `pgbench` (TPC-B-like)
// Servers run from a fresh data directory created under the given directory, on a private
// socket in a private runtime directory and a loopback TCP port; ssdlab starts them and always
// stops them (also on Ctrl-C or failure; the kernel kills them if ssdlab itself dies), and
// deletes the data directory afterwards unless asked to keep it. Never touches system-wide
// data directories or configuration.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apps/parse.h"
#include "base/status.h"
#include "device/identify.h"
#include "results/app.h"

namespace ssdlab {

struct AppOptions {
  std::string name;       // "sysbench-oltp" or "pgbench"
  std::string dir;        // where the data directory is created
  uint16_t port = 0;      // 0: one the kernel reports free
  uint32_t threads = 32;  // sysbench threads / pgbench clients (the DC450R review: 32)
  uint64_t time_ns = 120'000'000'000;
  uint64_t warmup_ns = 30'000'000'000;  // an unmeasured run of the same load first
  // sysbench: tables x rows (the DC450R review: 100 x 10,000,000 with a 24 GB buffer on a 60-vCPU
  // VM; scaled here to ~0.4 GB of data against a 128 MiB buffer pool).
  uint32_t tables = 16;
  uint64_t table_rows = 100'000;
  // pgbench: scale factor (100,000 accounts, ~16 MB each): 50 ~ 0.8 GB.
  uint32_t scale = 50;
  // innodb_buffer_pool_size / shared_buffers: deliberately smaller than the data.
  uint64_t buffer_bytes = 128ull << 20;
  std::string server_bin;  // "" = the packaged one (mariadbd; /usr/lib/postgresql/N/bin/postgres)
  bool keep_data = false;
  uint64_t sample_interval_ns = 1'000'000'000;
};

// The apps and a one-line description of each, for --help and errors.
const std::vector<std::pair<std::string, std::string>>& AppNames();

// Checks names and ranges. Invalid naming the option.
Status ValidateAppOptions(const AppOptions& options);

// Bytes the data directory needs (server files, tables, logs, with a margin).
uint64_t EstimateDataBytes(const AppOptions& options);

// Progress lines for the user ("starting MariaDB 10.11.19 on 127.0.0.1:40123", one per second
// of the measured run "12 s: 2210 tps").
using AppProgress = std::function<void(const std::string&)>;

struct AppOutcome {
  Status status;  // Ok, Interrupted, or why it failed
  // Versions, configuration (the server's settings as passed), scale, threads, paths.
  nlohmann::json settings;
  std::optional<ClientResult> client;        // present once the measured run started
  std::optional<results::AppDevice> device;  // DiskSampler::Record(), none without a device
};

// Everything checkable before anything starts: options, the directory (exists, writable,
// enough free space for the scale), the port when one was given (free), the server's user can
// reach the directory, the programs are installed. One-line errors: Invalid, NotFound,
// NoSpace, Permission, Unsupported.
Status CheckApp(const AppOptions& options);

// The programs alone (the server, its setup tool and the client), for a run whose directory
// does not exist yet (a served drive's filesystem). Unsupported naming what is missing and its
// package.
Status CheckAppPrograms(const AppOptions& options);

// Runs one app in `dir` (already identified; `identity.disk` may be absent with --any-dir).
// CheckApp first (nothing started when it fails). Returns what was measured even when failing or
// interrupted part-way.
AppOutcome RunApp(const AppOptions& options, const DeviceIdentity& identity,
                  const std::atomic<bool>* stop, const AppProgress& progress);

// The results of a run (stored through results::ToJson, every key always present): what the
// client measured (zeros and nulls before the measured run), the device, the settings and the
// outcome's error.
results::AppResults AppResultsOf(const AppOutcome& outcome, const std::string& app);

}  // namespace ssdlab
