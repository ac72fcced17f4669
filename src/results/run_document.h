// The documents of one measured phase: `ssdlab run --json` (RunDocument) and `ssdlab replay
// --json` (ReplayDocument), and their parts, which other documents hold too: the platform, the
// target, the workload, the engine's context and a phase's results. Each type is written and read
// by one field table (results/fields.h) in run_document.cc: ToJson and its FromJson. They follow
// docs/architecture.md's rule for machine output: schema_version, fixed keys, numbers as numbers,
// every field always present (the optional ones where this header says so).
// docs/schema/results.schema.json's "run" describes the result.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "results/mix.h"
#include "results/phase_metrics.h"
#include "stats/phase_result.h"

namespace ssdlab::results {

inline constexpr int kRunSchemaVersion = 1;

// The machine a document was made on; its keys stand in the context object itself.
struct Platform {
  std::string tool = "ssdlab", tool_version, git_revision, host, os, kernel, arch, cpu_model;
  int64_t cpus = 0;
  uint64_t memory_bytes = 0;
};

// The target as opened (base/target_info.h): "details" an object of texts.
struct TargetDoc {
  std::string path, kind;
  uint64_t size_bytes = 0;
  uint32_t logical_block_bytes = 0, physical_block_bytes = 0;
  std::string model, serial, firmware;
  std::map<std::string, std::string> details;
};

// The resolved workload (workload/spec.h) with its description, in the words of the flags.
struct WorkloadDoc {
  struct Data {
    std::string kind;  // "random", "zero", "compressible", "dedupe"
    double pct = 0;
  };
  std::string description;
  std::string pattern;  // "random", "sequential"
  double read_pct = 0;
  bool trim = false;
  std::vector<MixBlock> block_sizes;
  uint32_t queue_depth = 0, jobs = 0;
  uint64_t runtime_ns = 0, io_bytes = 0, ramp_ns = 0, ramp_bytes = 0;
  uint64_t range_begin_bytes = 0, range_end_bytes = 0;
  MixDistribution distribution;
  double rate_iops = 0;
  Data data;
  uint64_t seed = 0;  // written as an id (a decimal string)
  bool verify = false;
  uint64_t interval_ns = 0;
};

// A setting of the engine that is a number, or a word in its place ("adaptive", "auto", "all",
// a CPU list), or null (neither).
struct EngineSetting {
  std::optional<int64_t> number;
  std::string word;
};

// context.engine of the `run` document: the engine's name and, on a real target, what was
// asked for and what the kernel granted (io_uring's own keys only on io_uring).
struct EngineContext {
  struct Requested {
    EngineSetting batch_submit, batch_complete_min, batch_complete_max;
    bool sqpoll = false;
    EngineSetting sqpoll_cpu;
    bool hipri = false, register_ring_fd = false;
    std::string force_async, pin_workers;
    EngineSetting cpus_allowed;
  };
  struct Uring {
    std::string features;
    bool single_issuer = false, defer_taskrun = false, sqpoll = false;
    EngineSetting sqpoll_cpu;
    bool hipri = false, registered_ring_fd = false, fixed_buffers = false, fixed_files = false;
    bool nowait_target = false, force_async = false;
    EngineSetting async_workers;
    EngineSetting pin_workers;  // the jobs' CPUs, each with its ring's io-wq workers; null: none
    bool iowq_affinity = false;
  };
  struct Granted {
    uint32_t batch_submit = 0;
    EngineSetting batch_complete_min, batch_complete_max, cpus;
    std::string cpus_source;
    EngineSetting numa_node;
    std::optional<Uring> uring;  // its keys beside the others (read back: always set)
  };
  std::string name;  // "io_uring", "libaio", "psync", "sim"
  std::optional<Requested> requested;
  std::optional<Granted> granted;
};

// One interval of the phase's time series, per direction.
struct IntervalDoc {
  struct Direction {
    uint64_t ios = 0, bytes = 0;
    double iops = 0, bw_bytes_per_s = 0, lat_mean_ns = 0;
    uint64_t lat_max_ns = 0;
  };
  uint64_t t_begin_ns = 0, t_end_ns = 0;
  Direction read, write, trim;
};

// A phase's results (the body of the `run` document): per direction DirectionMetrics with the
// bytes, the latency's standard deviation, percentiles 50 to 99.999 and the histogram.
struct PhaseDoc {
  struct Results {
    DirectionMetrics read, write, trim, total;
  };
  struct Cpu {
    double user_s = 0, sys_s = 0, us_per_io = 0;
  };
  struct Verify {
    uint64_t failures = 0;
    std::vector<VerifyRecord> records;
  };
  Results results;
  uint64_t measured_ns = 0;
  EdgeStats edge;
  std::vector<IntervalDoc> intervals;
  Cpu cpu;
  uint64_t io_errors = 0;
  std::vector<std::string> errors;
  Verify verify;
  bool interrupted = false;
  std::vector<std::string> notes;
  std::string counters_name;               // "" = none; "sim": the counters under that key
  std::map<std::string, double> counters;  // the backend's counters, by name
};

// A stored `run` or `replay` test's results: the phase and its workload.
struct StoredPhaseDoc {
  PhaseDoc phase;
  WorkloadDoc workload;
};

// The context of both documents but the engine: the platform's keys, the command line, the
// target, the device's identity (null on a simulated drive and in a replay), the workload, the
// O_DIRECT flag, the seed and the times (unset in a stored run's context, which has none yet).
struct PhaseContext {
  Platform platform;
  std::vector<std::string> command_line;
  TargetDoc target;
  nlohmann::json device;  // device/device_json.h IdentityJson, or null
  WorkloadDoc workload;
  bool direct = true;
  uint64_t seed = 0;
  std::optional<std::string> start_time, end_time;
};

struct RunContextDoc {
  PhaseContext phase;
  EngineContext engine;
};

// `ssdlab run --json`.
struct RunDocument {
  int schema_version = kRunSchemaVersion;
  RunContextDoc context;
  PhaseDoc phase;                     // its keys beside the others
  nlohmann::json health;              // temperature and SMART around the phase (usecase/health)
  std::optional<nlohmann::json> mpi;  // a multi-client load's (usecase/mpi_clients.h)
};

struct ReplayContextDoc {
  PhaseContext phase;
  std::string engine;  // the engine's name alone
};

// The `replay` object of the replay document and of its stored test: the trace and how it was
// read, the timing, the submission lag of a timed replay, the trace's recorded latencies against
// the replayed ones (when the trace records them) and the replayed total. The optional parts are
// written as null when unset.
struct ReplayInfo {
  struct Trace {
    std::string path;
    std::vector<std::string> files;
    std::string format, event, device_id;
    uint64_t records = 0, requests = 0, bytes = 0, skipped = 0, filtered = 0, split = 0;
    uint64_t reordered = 0, remapped = 0, passes = 0, span_ns = 0;
  };
  struct Timing {
    std::string mode;
    double speedup = 1;
    uint32_t qd = 0, jobs = 0;
  };
  struct Lag {
    uint64_t count = 0;
    double mean = 0, p50 = 0, p99 = 0;
    uint64_t max = 0, limit = 0;
  };
  struct LagPoint {  // one interval of the phase's series
    uint64_t t_begin_ns = 0, t_end_ns = 0, ios = 0;
    double lag_mean_ns = 0;
    uint64_t lag_max_ns = 0;
  };
  struct Latency {
    uint64_t ios = 0;
    double mean = 0, p50 = 0, p90 = 0, p99 = 0, p99_9 = 0;
    uint64_t max = 0;
  };
  struct Compared {
    Latency recorded, replayed;
  };
  Trace trace;
  Timing timing;
  std::string remap;
  std::pair<uint64_t, uint64_t> range;  // the target's bytes [begin, end)
  uint64_t loop = 1;
  uint64_t max_io_bytes = 0;
  std::optional<Lag> lag_ns;
  std::optional<bool> kept_up;
  std::optional<std::vector<LagPoint>> lag_series;
  std::optional<std::map<std::string, Compared>> latency_compare;  // by direction, "total"
  DirectionMetrics replayed_total;                                 // without its histogram
};

// `ssdlab replay --json`: a run document whose context names the engine alone, with no health
// (null) and the `replay` object (the trace, its timing, the lag, the latencies compared).
struct ReplayDocument {
  int schema_version = kRunSchemaVersion;
  ReplayContextDoc context;
  PhaseDoc phase;
  nlohmann::json health;  // null
  ReplayInfo replay;
};

nlohmann::json ToJson(const Platform& v);
nlohmann::json ToJson(const TargetDoc& v);
nlohmann::json ToJson(const WorkloadDoc& v);
nlohmann::json ToJson(const EngineContext& v);
nlohmann::json ToJson(const PhaseDoc& v);
nlohmann::json ToJson(const StoredPhaseDoc& v);
nlohmann::json ToJson(const RunContextDoc& v);
nlohmann::json ToJson(const RunDocument& v);
nlohmann::json ToJson(const ReplayInfo& v);
nlohmann::json ToJson(const ReplayDocument& v);

// `where` names the object in errors; the wording of results/fields.h.
Result<Platform> PlatformFromJson(const nlohmann::json& j, const std::string& where);
Result<TargetDoc> TargetDocFromJson(const nlohmann::json& j, const std::string& where);
Result<WorkloadDoc> WorkloadDocFromJson(const nlohmann::json& j, const std::string& where);
Result<EngineContext> EngineContextFromJson(const nlohmann::json& j, const std::string& where);
Result<PhaseDoc> PhaseDocFromJson(const nlohmann::json& j, const std::string& where);
Result<StoredPhaseDoc> StoredPhaseDocFromJson(const nlohmann::json& j, const std::string& where);
Result<RunContextDoc> RunContextDocFromJson(const nlohmann::json& j, const std::string& where);
Result<RunDocument> RunDocumentFromJson(const nlohmann::json& j, const std::string& where);
Result<ReplayInfo> ReplayInfoFromJson(const nlohmann::json& j, const std::string& where);
Result<ReplayDocument> ReplayDocumentFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
