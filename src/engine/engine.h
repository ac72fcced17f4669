// The real-time Backend: drives a regular file or a block device with OS threads, one per
// job, each with its own io_uring (or libaio / psync) queue.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "engine/options.h"

namespace ssdlab {

enum class EngineKind { kIoUring, kLibaio, kPsync };
Result<EngineKind> ParseEngineKind(const std::string& name);
const char* EngineKindName(EngineKind k);

struct RealTargetOptions {
  std::string path;
  uint64_t size_bytes = 0;  // 0 = the existing file's or device's size; required for a new file
  bool writable = false;    // open for writing (the workload writes, trims or fills)
  bool direct = true;       // O_DIRECT
  EngineKind engine = EngineKind::kIoUring;
  // A set of regular files addressed as one range of `size_bytes`: file i holds
  // [i*size/n, (i+1)*size/n) (size_bytes / n must be a multiple of 1 MiB). Each file is created
  // and fully allocated if missing; `path` names the set (e.g. their directory). I/Os must not
  // cross a file boundary: block sizes must divide the file size (checked per phase).
  std::vector<std::string> files;
  // Queue policy, io_uring features and thread placement (engine/options.h). Checked by
  // ProbeRealTarget: io_uring-only features with another engine, --hipri without O_DIRECT or
  // on a device without poll queues, unavailable CPUs are refused (Invalid / Unsupported).
  EngineOptions engine_options;
};

// What a real backend asked for and what it got, for the JSON context.
struct EngineReport {
  EngineKind kind = EngineKind::kIoUring;
  EngineOptions requested;
  EngineGrant granted;        // of the last phase's first job (io_uring only)
  std::string features;       // e.g. "io_uring+defer_taskrun+ring_fd+fixed_buffers+fixed_file"
  uint32_t batch_submit = 1;  // in effect: refill once this many slots are free
  uint32_t batch_complete_min = 0;  // in effect; kBatchCompleteAuto = AdaptiveWaitMin
  uint32_t batch_complete_max = 0;  // 0 = all available
  std::vector<uint32_t> cpus;       // CPUs the job threads were pinned to; empty = not pinned
  std::string cpus_source;          // "cpus_allowed", "numa_node N", or "none (...reason...)"
  int numa_node = -1;               // the target device's node per sysfs; -1 = none named
  bool nowait_target = true;        // io_uring: IssuesWithoutBlocking (engine/options.h)
  // EngineOptions::pin_workers in effect (last phase): job j's thread and its io-wq workers on
  // job_cpus[j % size]; empty = not pinned one job per CPU.
  std::vector<uint32_t> job_cpus;
  bool ran = false;  // a phase ran (granted/features are filled in)
};
// The report of a backend opened by OpenRealBackend; null for any other backend.
const EngineReport* EngineReportOf(const Backend& backend);

// Checks the target without changing anything: existence, kind, size (a new file's size
// against the free space, `size_bytes` against a device), read-only state, I/O alignment.
// Same errors as OpenRealBackend.
Result<TargetInfo> ProbeRealTarget(const RealTargetOptions& options);

// Opens (and for a missing regular file, creates and fully allocates) the target.
// Errors: kNotFound (missing device or directory), kNoSpace (file larger than the free space),
// kInvalidArgument (size beyond a device, O_DIRECT unsupported), kPermission (read-only).
// Block-device safety checks are the caller's job (device/safety.h), before this call.
Result<std::unique_ptr<Backend>> OpenRealBackend(const RealTargetOptions& options);

}  // namespace ssdlab
