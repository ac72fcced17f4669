// How the real-time engine drives its queues: the submission/completion policy, the io_uring
// features it asks the kernel for, and where its job threads run. Plain data with in-class
// defaults (the defaults need no tuning), parsers of the `ssdlab run` flag values, and the
// sysfs look-ups (NUMA node, poll queues) the engine uses to place and check a target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

// The kernel's largest io_uring submission ring (IORING_MAX_ENTRIES in io_uring/io_uring.h,
// 32768; the completion ring may be twice that): the deepest --qd per job, and the io_uring
// queue's depth limit (engine/queues.h UringQueue::kMaxDepth).
inline constexpr uint32_t kMaxUringDepth = 32768;

// A setting the engine decides unless the user says on or off.
enum class AutoOnOff : uint8_t { kAuto, kOn, kOff };
using ForceAsync = AutoOnOff;  // --force-async
using PinWorkers = AutoOnOff;  // --pin-workers

struct EngineOptions {
  // Submission: a turn prepares requests only once at least this many slots are free (fio's
  // iodepth_batch_submit; the queue refills when it has drained to depth - N, fio's
  // iodepth_low), then prepares all free slots. 0 = adaptive: every turn refills every free
  // slot (N = 1).
  uint32_t batch_submit = 0;
  // Completion: each io_uring_enter waits for at least `batch_complete_min` completions (fio's
  // iodepth_batch_complete_min; capped by the I/Os in flight) and a turn reaps at most
  // `batch_complete_max` (0 = every completion available). 1: every I/O's interval ends at the
  // first reap after its completion, so nothing but the device and the kernel path lies inside
  // it. 0 (the default) and kBatchCompleteAuto = AdaptiveWaitMin (fewer
  // wake-ups at depth, intervals that can include waiting for later completions of the batch).
  uint32_t batch_complete_min = 0;
  uint32_t batch_complete_max = 0;
  // io_uring features. Each is asked for only when set; what the kernel granted is reported.
  bool sqpoll = false;      // IORING_SETUP_SQPOLL: a kernel thread polls the submission queue
  int32_t sqpoll_cpu = -1;  // IORING_SETUP_SQ_AFF: that thread's CPU (-1: anywhere)
  uint32_t sqpoll_idle_ms = 1000;  // the thread sleeps after this long without submissions
  bool hipri = false;              // IORING_SETUP_IOPOLL: completions are polled, no interrupts
  bool register_ring_fd = true;    // io_uring_register_ring_fd (kernel >= 5.18), where available
  // IOSQE_ASYNC on every request, spread over up to AsyncWorkers() kernel io-wq workers per
  // ring. kAuto: only where the target cannot take a request without blocking (the kernel
  // would hand every request to one io-wq worker per ring anyway, which then runs them one at
  // a time: a RAM disk such as zram, a bio-based device without nowait support), and there
  // either more than one worker per job fits the CPUs or the job's waits reap batches
  // (WaitsForBatches; with a wait of one completion, forcing over a single worker measured
  // slower, docs/engine.md).
  ForceAsync force_async = ForceAsync::kAuto;
  // Job j's thread on one CPU, the j-th (modulo) of the CPUs the jobs may use, and its ring's
  // io-wq workers on that same CPU (io_uring_register_iowq_aff): a job and the worker that runs
  // its requests take turns on one CPU instead of waking each other across CPUs. kAuto: where
  // the target's requests run in io-wq (it cannot take them without blocking) and each job has
  // one CPU or less (no spreading over several workers, AsyncWorkers() == 1), io_uring only.
  PinWorkers pin_workers = PinWorkers::kAuto;
  // CPUs the job threads may run on (shared by all jobs, as fio's cpus_allowed_policy=shared).
  // Empty: the CPUs of the target device's NUMA node where sysfs names one, else unpinned.
  std::vector<uint32_t> cpus_allowed;
};

// What the kernel granted one io_uring of a job (all jobs ask for the same).
struct EngineGrant {
  bool single_issuer = false;
  bool defer_taskrun = false;
  bool coop_taskrun = false;
  bool sqpoll = false;
  int32_t sqpoll_cpu = -1;
  bool hipri = false;  // IOPOLL
  bool registered_ring_fd = false;
  bool fixed_buffers = false;
  bool fixed_files = false;
  bool force_async = false;         // IOSQE_ASYNC on every request
  uint32_t async_workers = 0;       // the io-wq worker limit set for it; 0 = the kernel's
  std::vector<uint32_t> iowq_cpus;  // the io-wq workers' CPUs where set; empty = any
};

// Completions the adaptive policy waits for per io_uring_enter at depth `depth` with
// `in_flight` I/Os outstanding: a quarter of the depth, at least 1 and at most 32 (and never
// more than are in flight), so the queue refills in batches once it has drained to 3/4 and
// the thread wakes once per batch instead of once per I/O. Depths below 8 wait for 1, as
// before (QD1 is unchanged). docs/engine.md has the measurements behind the numbers. An I/O's
// interval ends at the reap of the batch it completed in, so it can include waiting for up to
// AdaptiveWaitMin - 1 later completions (README, "What is measured").
inline constexpr uint32_t kAdaptiveWaitMax = 32;
inline constexpr uint32_t kBatchCompleteAuto = 0xffffffffu;  // --batch-complete auto
inline uint32_t AdaptiveWaitMin(uint32_t depth, uint32_t in_flight) {
  uint32_t w = depth / 4;
  if (w < 1) w = 1;
  if (w > kAdaptiveWaitMax) w = kAdaptiveWaitMax;
  return w < in_flight ? w : in_flight;
}

// Completions a job's io_uring_enter waits for with `in_flight` I/Os outstanding at depth
// `depth`: EngineOptions::batch_complete_min (0 or kBatchCompleteAuto: AdaptiveWaitMin), within
// 1..depth and never more than in flight. A rate-limited or timed job (`rated`) waits for one:
// its waits are bounded by the schedule anyway, and an I/O's end should not wait on a later
// scheduled one.
inline uint32_t CompletionWait(uint32_t batch_complete_min, uint32_t depth, uint32_t in_flight,
                               bool rated) {
  if (rated) return in_flight < 1 ? in_flight : 1;
  if (batch_complete_min == 0 || batch_complete_min == kBatchCompleteAuto)
    return AdaptiveWaitMin(depth, in_flight);
  const uint32_t w = batch_complete_min < depth ? batch_complete_min : depth;
  return w < in_flight ? w : in_flight;
}

// Whether a job's waits reap batches (CompletionWait above one at a full queue). Where its
// requests run in io-wq such a job does better with them forced async even over a single
// worker (EngineOptions::force_async).
inline bool WaitsForBatches(uint32_t batch_complete_min, uint32_t depth, bool rated) {
  return CompletionWait(batch_complete_min, depth, depth, rated) > 1;
}

// The first line of a sysfs (or any text) file without trailing blanks; "" when unreadable.
std::string ReadSysfs(const std::string& path);

// "0,2-3,8" into sorted distinct CPU numbers. Invalid on syntax, reversed ranges, or more
// than 4096 CPUs.
Result<std::vector<uint32_t>> ParseCpuList(const std::string& text);
// "N" or "MIN:MAX" (each >= 1, MIN <= MAX) for --batch-complete; MAX 0 when absent.
Status ParseBatchComplete(const std::string& text, uint32_t& min, uint32_t& max);
// The CPUs this process may run on (sched_getaffinity).
std::vector<uint32_t> AllowedCpus();
// Checks `cpus` against AllowedCpus(): Invalid naming `flag` and the first CPU not available.
Status CheckCpus(const std::string& flag, const std::vector<uint32_t>& cpus);

// The sysfs block directory of the device holding `path` (a block device itself, or the disk
// of a regular file's filesystem), e.g. "/sys/dev/block/254:0"; empty if there is none.
std::string BlockSysDir(const std::string& path);
// The NUMA node sysfs names for the device of `sys_dir` (device/numa_node, also its
// parent disk's for a partition), -1 where there is none.
int DeviceNumaNode(const std::string& sys_dir);
// The CPUs of NUMA node `node` (/sys/devices/system/node/nodeN/cpulist); empty if unknown.
std::vector<uint32_t> NodeCpus(int node);
// queue/io_poll of the device of `sys_dir` (also its parent disk's): 1 when it has poll
// queues, 0 when not, -1 when sysfs does not say.
int DevicePollQueues(const std::string& sys_dir);

// "auto", "on" or "off" for `flag` (--force-async, --pin-workers); Invalid naming the flag
// otherwise.
Result<AutoOnOff> ParseAutoOnOff(const char* flag, const std::string& text);
const char* AutoOnOffName(AutoOnOff v);
// io-wq workers per ring when requests are forced async: the CPUs the job threads may use
// shared by the jobs, at least 1.
uint32_t AsyncWorkers(size_t cpus, uint32_t jobs);
// False when the kernel refuses a non-blocking (RWF_NOWAIT) O_DIRECT read of `fd` with
// EOPNOTSUPP: the device cannot take a request without blocking, so io_uring runs each of its
// requests in an io-wq worker. True otherwise (also when the probe read fails otherwise).
bool IssuesWithoutBlocking(int fd);

// "0-3,8" for sorted CPU numbers.
std::string FormatCpuList(const std::vector<uint32_t>& cpus);

}  // namespace ssdlab
