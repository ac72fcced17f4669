#include "engine/engine.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <latch>
#include <mutex>
#include <optional>
#include <thread>

#include "backend/phase_recorder.h"
#include "base/clock.h"
#include "base/thread.h"
#include "base/units.h"
#include "engine/file_facts.h"
#include "engine/queues.h"
#include "engine/thread_sched.h"
#include "workload/data.h"
#include "workload/generator.h"
#include "workload/request_source.h"

namespace ssdlab {
namespace {

constexpr size_t kMaxErrorMessages = 10;
constexpr uint64_t kJobSliceUs = 300;  // RequestSlice for jobs beside forced-async workers
constexpr size_t kMaxVerifyRecords = 100;
constexpr uint64_t kPollNs = 100 * kNsPerMs;  // stop-flag latency bound while idle

struct AlignedBuffer {
  uint8_t* data = nullptr;
  explicit AlignedBuffer(size_t bytes) {
    data = static_cast<uint8_t*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

double TimevalS(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; }

// What one job thread hands back.
struct JobOutput {
  std::optional<PhaseRecorder> rec;       // set once the job runs
  Histogram submit_lag;                   // timed request source only
  std::mutex intervals_mu;                // guards `intervals` against the progress reader
  std::vector<IntervalSample> intervals;  // the closed intervals, for progress only
  uint64_t io_errors = 0;
  std::vector<std::string> errors;
  uint64_t verify_failures = 0;
  std::vector<VerifyFailure> verify;
  double cpu_user_s = 0, cpu_sys_s = 0;
  EngineGrant grant;
  std::string features;
  Status status;
  bool interrupted = false;
  std::atomic<bool> done{false};
};

struct PhaseShared {
  const WorkloadSpec& spec;
  const DataFiller& filler;
  int fd;
  bool block_device;
  const std::vector<int>& fds;  // a multi-file target's files (size 1 otherwise)
  uint64_t file_bytes;          // bytes per file of a multi-file target
  const RunControl& control;
  const EngineOptions& options;
  const std::vector<uint32_t>& cpus;  // the job threads' CPUs; empty = not pinned
  bool force_async;                   // io_uring: IOSQE_ASYNC, at most async_workers per ring
  uint32_t async_workers;
  std::latch ready;
  // Job j and its ring's io-wq workers on pair_cpus[j % n]; empty: the threads as `cpus` says.
  std::vector<uint32_t> pair_cpus = {};
  bool requests_in_iowq = false;  // io_uring: forced async, or the target refuses RWF_NOWAIT
  std::latch go{1};
  std::atomic<bool> abort{false};
  uint64_t t0_ns = 0;
};

// Splits `total` over `jobs`, the remainder to the first jobs; 0 stays 0 (unlimited).
uint64_t Share(uint64_t total, uint32_t jobs, uint32_t job) {
  if (total == 0) return 0;
  uint64_t s = total / jobs + (job < total % jobs ? 1 : 0);
  return std::max<uint64_t>(s, 1);
}

// A job whose requests are due at scheduled times: rate-limited, or a timed request source.
bool Rated(const WorkloadSpec& spec) {
  return spec.rate_iops > 0 || (spec.source && spec.source->timed());
}

template <class Q>
void RunJob(PhaseShared& sh, uint32_t job, JobOutput& out) {
  const WorkloadSpec& spec = sh.spec;
  const EngineOptions& opt = sh.options;
  const uint32_t depth = std::min<uint32_t>(spec.queue_depth, Q::kMaxDepth);
  const uint64_t buf_bytes = (spec.MaxBlockBytes() + 4095) / 4096 * 4096;
  // Pin first, then allocate and touch the buffers: their pages come from the pinned CPUs' node.
  std::vector<uint32_t> job_cpus = sh.cpus, iowq_cpus;
  if (!sh.pair_cpus.empty()) {
    const uint32_t n = static_cast<uint32_t>(sh.pair_cpus.size());
    job_cpus = {sh.pair_cpus[job % n]};
    iowq_cpus = job_cpus;
  }
  PinThisThread(job_cpus);
  // A job and its io-wq worker on one CPU take turns: as SCHED_BATCH (both, the worker by
  // inheritance) a completion does not switch the CPU from the worker to the job thread per
  // I/O; the job reaps when its worker has run out of requests or blocks (docs/engine.md).
  bool batch = !iowq_cpus.empty() && sh.requests_in_iowq && TakeBatchPolicy();
  // A job whose requests run in forced-async workers on the CPUs it shares with them: woken by
  // a completion, it should reap now, not once a worker's slice (0.75-3 ms) has run out. A
  // short slice, the workers' too, lets it preempt them (docs/engine.md "Devices that block").
  const bool short_slice = iowq_cpus.empty() && sh.force_async && RequestSlice(kJobSliceUs);
  AlignedBuffer buffers(depth * buf_bytes);
  Q q;
  if (buffers.data == nullptr) {
    out.status = Status::Error(Code::kNoSpace, "cannot allocate I/O buffers");
  } else {
    for (uint32_t i = 0; i < depth; ++i) sh.filler.Prepare(buffers.data + i * buf_bytes, buf_bytes);
    QueueSetup setup{sh.fd,
                     sh.block_device,
                     depth,
                     buffers.data,
                     buf_bytes,
                     sh.fds.data(),
                     static_cast<uint32_t>(sh.fds.size()),
                     sh.file_bytes};
    setup.reap_max = opt.batch_complete_max;
    setup.options = &opt;
    setup.force_async = sh.force_async;
    setup.async_workers = sh.async_workers;
    setup.iowq_cpus = iowq_cpus;
    out.status = q.Init(setup);
    out.grant = q.grant();
    out.features = q.features();
    if (out.status.ok() && !iowq_cpus.empty() && out.grant.iowq_cpus.empty()) {
      // The kernel kept the workers anywhere: a job thread alone on one CPU would only lose
      // the other CPUs, so it goes back to the jobs' shared set.
      PinThisThread(sh.cpus.empty() ? AllowedCpus() : sh.cpus);
      if (batch) RestoreNormalPolicy();
      batch = false;
    }
    if (batch) out.features += "+sched_batch";
    if (short_slice) out.features += "+slice_" + std::to_string(kJobSliceUs) + "us";
  }
  sh.ready.count_down();
  sh.go.wait();
  if (!out.status.ok() || sh.abort.load()) {
    out.done = true;
    return;
  }

  struct Slot {
    uint64_t submit_ns = 0;
    uint64_t offset = 0;
    uint32_t bytes = 0;
    Direction dir = Direction::kRead;
    bool measured = false;
    bool dirty = false;   // holds read data: re-prepare before the next write
    bool fill = false;    // one of the fill's I/Os (PhaseRecorder::Issued)
    uint64_t lag_ns = 0;  // timed source: submitted this long after submit_ns (its due time)
  };
  std::vector<Slot> slots(depth);
  std::vector<uint32_t> free_slots(depth);
  for (uint32_t i = 0; i < depth; ++i) free_slots[i] = depth - 1 - i;
  std::vector<uint32_t> prepared;
  prepared.reserve(depth);

  JobGenerator gen(spec, job);
  Rng data_rng(gen.data_seed());
  uint64_t write_seq = 0;
  const bool sync_trims = sh.block_device || !Q::kAsyncTrim;
  // A request source (trace replay) replaces the generator; a timed one schedules each request.
  RequestSource* const src = spec.source;
  const bool src_timed = src && src->timed();
  constexpr size_t kSrcBatch = 32;
  SourcedRequest src_buf[kSrcBatch];
  size_t src_pos = 0, src_n = 0;
  const bool rated = Rated(spec);
  // Scheduled I/O: sleep until the due time without the default 50 us timer slack.
  if (rated) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  const uint64_t rate_step_ns =
      spec.rate_iops > 0 ? static_cast<uint64_t>(1e9 * spec.jobs / spec.rate_iops) : 0;
  const uint64_t t0 = sh.t0_ns;
  uint64_t next_sched = t0;

  std::function<void(const IntervalSample&)> publish;
  if (sh.control.on_interval) {
    publish = [&out](const IntervalSample& iv) {
      std::lock_guard<std::mutex> lock(out.intervals_mu);
      out.intervals.push_back(iv);
    };
  }
  PhaseRecorder& rec = out.rec.emplace(
      t0,
      PhaseWindow{spec.ramp_ns, Share(spec.ramp_bytes, spec.jobs, job), spec.runtime_ns,
                  Share(spec.io_bytes, spec.jobs, job), FillIos(spec, depth)},
      spec.interval_ns, sh.control.io_log, std::move(publish));

  auto record_error = [&](const Slot& s, int res) {
    ++out.io_errors;
    if (out.errors.size() >= kMaxErrorMessages) return;
    std::string what = res < 0 ? std::strerror(-res)
                               : "short transfer of " + std::to_string(res) + " of " +
                                     std::to_string(s.bytes) + " bytes";
    out.errors.push_back(std::string(DirectionName(s.dir)) + " of " + std::to_string(s.bytes) +
                         " bytes at offset " + std::to_string(s.offset) + ": " + what);
  };

  auto complete = [&](uint32_t idx, int res, uint64_t now) {
    Slot& s = slots[idx];
    free_slots.push_back(idx);
    if (s.fill) rec.FillCompleted(now);
    int expected = s.dir == Direction::kTrim ? 0 : static_cast<int>(s.bytes);
    if (res != expected) {
      record_error(s, res);
      return;
    }
    if (s.dir == Direction::kRead && spec.verify) {
      uint32_t f = sh.filler.Check(buffers.data + idx * buf_bytes, s.bytes, s.offset, &out.verify,
                                   kMaxVerifyRecords);
      out.verify_failures += f;
    }
    if (s.measured) {
      rec.Record(s.dir, s.offset, s.bytes, s.submit_ns, now, s.lag_ns);
    } else {
      rec.RampCompleted(s.dir, s.offset, s.bytes, s.submit_ns, now);
    }
  };

  // Submission/completion policy (options.h): refill once `submit_batch` slots are free, wait
  // for CompletionWait completions per enter.
  const uint32_t submit_batch = std::clamp<uint32_t>(opt.batch_submit, 1, depth);
  uint64_t now = MonotonicNs();
  bool issuing = true;
  uint32_t in_flight = 0;
  while (true) {
    if (sh.control.stop && sh.control.stop->load(std::memory_order_relaxed) && issuing) {
      issuing = false;
      out.interrupted = true;
    }
    if (issuing && rec.Open(now) == PhaseRecorder::Admit::kStop) issuing = false;

    const bool refill = in_flight == 0 || free_slots.size() >= submit_batch;
    while (issuing && refill && !free_slots.empty()) {
      const PhaseRecorder::Admit admit = rec.Open(now);
      if (admit == PhaseRecorder::Admit::kStop) {
        issuing = false;
        break;
      }
      const bool measured = admit == PhaseRecorder::Admit::kMeasure;
      uint64_t sched = 0;
      IoRequest r;
      if (src) {
        if (src_pos == src_n) {
          src_n = src->Fill(src_buf, kSrcBatch);
          src_pos = 0;
          if (src_n == 0) {
            issuing = false;
            break;
          }
        }
        if (src_timed) {
          next_sched = t0 + src_buf[src_pos].sched_ns;
          if (next_sched > now) break;
          sched = next_sched;
        }
        r = src_buf[src_pos++].req;
      } else {
        if (rated) {
          if (next_sched > now) break;
          sched = next_sched;
          next_sched += rate_step_ns;
        }
        r = gen.Next();
      }
      uint32_t idx = free_slots.back();
      free_slots.pop_back();
      Slot& s = slots[idx];
      s = Slot{sched, r.offset, r.bytes, r.dir, measured, s.dirty, false};
      uint8_t* buf = buffers.data + idx * buf_bytes;
      if (r.dir == Direction::kWrite) {
        if (s.dirty) sh.filler.Prepare(buf, buf_bytes);
        s.dirty = false;
        sh.filler.Fill(buf, r.bytes, r.offset, (uint64_t{job} << 48) | write_seq++, data_rng);
      } else if (r.dir == Direction::kRead) {
        s.dirty = true;
      }
      s.fill = rec.Issued(r.bytes, measured);
      if (r.dir == Direction::kTrim && sync_trims) {
        uint64_t start = rated ? sched : MonotonicNs();
        s.submit_ns = start;
        uint64_t trim_off = r.offset;
        int trim_fd = sh.fds.size() > 1 ? sh.fds[trim_off / sh.file_bytes] : sh.fd;
        if (sh.fds.size() > 1) trim_off %= sh.file_bytes;
        int res = SyncTrim(trim_fd, sh.block_device, trim_off, r.bytes);
        now = MonotonicNs();
        complete(idx, res, now);
        break;  // back to the outer loop, which checks time, ramp and stop
      }
      q.Prep(idx, r.dir, r.offset, r.bytes);
      prepared.push_back(idx);
      ++in_flight;
    }
    if (!prepared.empty() && !rated) {
      uint64_t stamp = MonotonicNs();
      for (uint32_t idx : prepared) slots[idx].submit_ns = stamp;
    }
    if (!prepared.empty() && src_timed) {
      uint64_t stamp = MonotonicNs();
      for (uint32_t idx : prepared) {
        const uint64_t due = slots[idx].submit_ns;
        slots[idx].lag_ns = stamp > due ? stamp - due : 0;
        if (slots[idx].measured) out.submit_lag.Record(slots[idx].lag_ns);
      }
    }
    prepared.clear();

    if (in_flight == 0) {
      if (!issuing) break;
      if (rated && next_sched > now) {
        // Idle until the next scheduled I/O (in bounded steps, to notice a stop).
        uint64_t until = std::min(next_sched, now + kPollNs);
        timespec ts{static_cast<time_t>(until / kNsPerS), static_cast<long>(until % kNsPerS)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
      }
      now = MonotonicNs();
      rec.AdvanceTo(now);
      continue;
    }
    uint64_t timeout = 0;
    if (rated && issuing && !free_slots.empty()) {
      timeout = next_sched > now ? std::min(next_sched - now, kPollNs) : 1;
    }
    uint32_t wait = CompletionWait(opt.batch_complete_min, depth, in_flight, rated);
    if (issuing && free_slots.size() < submit_batch) {
      // Not refilled this turn: wait until the next turn can (fio's iodepth_low watermark).
      wait = std::max<uint32_t>(
          wait,
          std::min<uint32_t>(in_flight, submit_batch - static_cast<uint32_t>(free_slots.size())));
    }
    int rc = q.SubmitAndWait(wait, timeout);
    now = MonotonicNs();
    if (rc < 0) {
      out.status = Status::Io(std::string("I/O submission failed: ") + std::strerror(-rc));
      break;
    }
    rec.AdvanceTo(now);
    bool unpolled = false;
    in_flight -= q.Reap([&](uint32_t idx, int res) {
      if (opt.hipri && res == -EOPNOTSUPP) unpolled = true;
      complete(idx, res, now);
    });
    if (unpolled) {
      out.status = Status::Error(
          Code::kUnsupported,
          "--hipri: the target does not support polled I/O (EOPNOTSUPP); run without --hipri");
      break;
    }
  }
  // The loop above issues nothing after the window's end and reaps every I/O still in flight
  // (the kernel owns their buffers until then); the recorder counts those done within its
  // edge bound (PhaseRecorder::kEdgeWaitNs), and the measured part runs to MeasuredEnd().
  rec.Finish(rec.MeasuredEnd());
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  out.cpu_user_s = TimevalS(ru.ru_utime);
  out.cpu_sys_s = TimevalS(ru.ru_stime);
  out.done = true;
}

class RealBackend : public Backend {
 public:
  // `own_from_bytes`: the file's bytes from there to its end were allocated by this process
  // (a new file: 0; an extended one: its old size), so filling them destroys nothing;
  // UINT64_MAX: nothing is ours.
  RealBackend(std::vector<int> fds, TargetInfo info, bool block_device, const RealTargetOptions& o,
              uint64_t own_from_bytes = UINT64_MAX)
      : fd_(fds.front()),
        fds_(std::move(fds)),
        info_(std::move(info)),
        block_device_(block_device),
        engine_(o.engine),
        own_from_bytes_(own_from_bytes) {
    file_bytes_ = info_.size_bytes / fds_.size();
    const EngineOptions& eo = o.engine_options;
    report_.kind = o.engine;
    report_.requested = eo;
    report_.batch_submit = std::max<uint32_t>(eo.batch_submit, 1);
    report_.batch_complete_min = eo.batch_complete_min;
    report_.batch_complete_max = eo.batch_complete_max;
    report_.numa_node = DeviceNumaNode(BlockSysDir(o.files.empty() ? o.path : o.files.front()));
    if (o.engine == EngineKind::kIoUring) report_.nowait_target = IssuesWithoutBlocking(fd_);
    if (!eo.cpus_allowed.empty()) {
      report_.cpus = eo.cpus_allowed;
      report_.cpus_source = "cpus_allowed";
    } else if (report_.numa_node < 0) {
      report_.cpus_source = "none (sysfs names no NUMA node for the device)";
    } else {
      // Only the node's CPUs this process may use; none: leave the threads where they are.
      std::vector<uint32_t> allowed = AllowedCpus(), mine;
      for (uint32_t c : NodeCpus(report_.numa_node)) {
        if (std::binary_search(allowed.begin(), allowed.end(), c)) mine.push_back(c);
      }
      report_.cpus = mine;
      report_.cpus_source = mine.empty() ? "none (no CPU of NUMA node " +
                                               std::to_string(report_.numa_node) + " is available)"
                                         : "numa_node " + std::to_string(report_.numa_node);
    }
  }
  const EngineReport& report() const { return report_; }
  ~RealBackend() override {
    for (int fd : fds_) close(fd);
  }

  const TargetInfo& info() const override { return info_; }

  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl& control) override {
    std::vector<std::string> notes;
    if (fds_.size() > 1) {
      for (const BlockShare& b : spec.block_sizes) {
        if (file_bytes_ % b.bytes ||
            (spec.pattern == Pattern::kSequential && spec.block_sizes.size() > 1)) {
          return Status::Invalid(
              "a multi-file target needs block sizes that divide its file size (" +
              FormatBytes(file_bytes_) + ") and one block size for sequential access");
        }
      }
    }
    if (spec.HasReads() && !block_device_) {
      SSDLAB_RETURN_IF_ERROR(FillOwnUnwritten(spec, control, notes));
      NoteUnwritten(spec, notes);
    }
    auto r = Dispatch(spec, control);
    if (r.ok()) r->notes.insert(r->notes.begin(), notes.begin(), notes.end());
    return r;
  }

  bool persistent_state() const override { return true; }
  int fd() const { return fd_; }
  uint64_t own_from_bytes() const { return own_from_bytes_; }

  Result<std::string> Purge(const std::string& method, const RunControl&) override {
    if (method == "none") return std::string("none");
    if (method != "auto" && method != "discard") {
      return Status::Error(Code::kUnsupported, "purge method '" + method +
                                                   "' is not available for " + info_.path +
                                                   " here (supported: auto, discard, none)");
    }
    int rc = 0;
    for (int fd : fds_) {
      if (rc == 0)
        rc = SyncTrim(fd, block_device_, 0, fds_.size() > 1 ? file_bytes_ : info_.size_bytes);
    }
    if (rc < 0) {
      return Status::Error(rc == -EOPNOTSUPP ? Code::kUnsupported : Code::kIoError,
                           std::string(block_device_ ? "discard (BLKDISCARD)" : "punch hole") +
                               " of " + info_.path + " failed: " + std::strerror(-rc));
    }
    return std::string(block_device_ ? "discard (BLKDISCARD of the whole device)"
                                     : "punch hole (the file's blocks deallocated)");
  }

  Status Idle(uint64_t ns, const RunControl& control) override {
    uint64_t end = MonotonicNs() + ns;
    while (MonotonicNs() < end) {
      if (control.stop && control.stop->load())
        return Status::Error(Code::kInterrupted, "interrupted");
      uint64_t step = std::min(end - MonotonicNs(), kPollNs);
      timespec ts{static_cast<time_t>(step / kNsPerS), static_cast<long>(step % kNsPerS)};
      nanosleep(&ts, nullptr);
    }
    return Status::Ok();
  }

 private:
  // UnwrittenBytes over the files a range spans.
  Result<uint64_t> RangeUnwritten(uint64_t begin, uint64_t end) const {
    if (fds_.size() == 1) return UnwrittenBytes(fd_, begin, end);
    uint64_t total = 0;
    for (uint64_t pos = begin; pos < end;) {
      uint64_t file = pos / file_bytes_, file_end = std::min(end, (file + 1) * file_bytes_);
      SSDLAB_ASSIGN_OR_RETURN(uint64_t u, UnwrittenBytes(fds_[file], pos - file * file_bytes_,
                                                         file_end - file * file_bytes_));
      total += u;
      pos = file_end;
    }
    return total;
  }

  // Before the first reads of a file this process allocated: its unwritten part of the range
  // is written once, sequentially (what is ours holds nothing to lose). Never touches bytes
  // that were the user's.
  Status FillOwnUnwritten(const WorkloadSpec& spec, const RunControl& control,
                          std::vector<std::string>& notes) {
    const uint64_t unit = std::min<uint64_t>(4096, spec.MinBlockBytes());
    WorkloadSpec own = spec;
    if (own_from_bytes_ > spec.range_begin_bytes) {  // round up: never below what is ours
      if (own_from_bytes_ >= spec.range_end_bytes) return Status::Ok();
      own.range_begin_bytes = (own_from_bytes_ + unit - 1) / unit * unit;
      if (own.range_begin_bytes >= spec.range_end_bytes) return Status::Ok();
    }
    auto unwritten = RangeUnwritten(own.range_begin_bytes, own.range_end_bytes);
    if (unwritten.ok() && unwritten.value() == 0) return Status::Ok();
    WorkloadSpec fill = PrefillOf(own);
    fill.queue_depth = std::min<uint32_t>(fill.queue_depth, UringQueue::kMaxDepth);
    RunControl quiet{control.stop, nullptr, nullptr};
    auto filled = Dispatch(fill, quiet);
    if (!filled.ok()) return filled.status().WithContext("filling the new file before reading");
    if (filled->interrupted)
      return Status::Error(Code::kInterrupted,
                           "interrupted while filling the new file before reading");
    if (filled->io_errors)
      return Status::Io("filling the new file before reading: " + filled->errors.front());
    for (int fd : fds_) {
      if (fdatasync(fd) != 0) return Status::Io(std::string("fdatasync: ") + std::strerror(errno));
    }
    notes.push_back("filled " + FormatBytes(fill.io_bytes) +
                    " of the new file with data before reading (it had unwritten extents)");
    return Status::Ok();
  }

  // Says how much of the range reads would find empty (the user's holes, never filled).
  void NoteUnwritten(const WorkloadSpec& spec, std::vector<std::string>& notes) const {
    auto unwritten = RangeUnwritten(spec.range_begin_bytes, spec.range_end_bytes);
    const uint64_t span = spec.range_end_bytes - spec.range_begin_bytes;
    if (!unwritten.ok()) {
      notes.push_back("cannot tell whether the range holds data (" + unwritten.status().message() +
                      "); reads of never-written parts return zeros without reaching the device");
    } else if (unwritten.value() > 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%",
                    100.0 * static_cast<double>(unwritten.value()) / static_cast<double>(span));
      notes.push_back(std::string(pct) + " of the range (" + FormatBytes(unwritten.value()) +
                      ") is unwritten (holes or preallocated extents): reads of it return zeros "
                      "without reaching the device; --prefill writes the range first");
    }
  }

  Result<PhaseResult> Dispatch(const WorkloadSpec& spec, const RunControl& control) {
    switch (engine_) {
      case EngineKind::kIoUring:
        return Run<UringQueue>(spec, control);
      case EngineKind::kLibaio:
        return Run<AioQueue>(spec, control);
      case EngineKind::kPsync:
        return Run<PsyncQueue>(spec, control);
    }
    return Status::Error(Code::kInternal, "unknown engine");
  }

  template <class Q>
  Result<PhaseResult> Run(const WorkloadSpec& spec, const RunControl& control) {
    DataFiller filler(spec);
    // Forced async requests where the kernel would run them in one io-wq worker per ring and
    // either a job has CPUs for more workers or its waits reap batches (EngineOptions).
    const ForceAsync fa = report_.requested.force_async;
    const uint32_t workers =
        AsyncWorkers(report_.cpus.empty() ? AllowedCpus().size() : report_.cpus.size(), spec.jobs);
    const bool force =
        engine_ == EngineKind::kIoUring &&
        (fa == ForceAsync::kOn ||
         (fa == ForceAsync::kAuto && !report_.nowait_target &&
          (workers > 1 ||
           WaitsForBatches(report_.requested.batch_complete_min,
                           std::min<uint32_t>(spec.queue_depth, Q::kMaxDepth), Rated(spec)))));
    PhaseShared sh{spec,         filler,      fd_,     block_device_,
                   fds_,         file_bytes_, control, report_.requested,
                   report_.cpus, force,       workers, std::latch(spec.jobs)};
    // A job and the io-wq worker that runs its requests on one CPU (EngineOptions::pin_workers).
    const PinWorkers pin = report_.requested.pin_workers;
    if (engine_ == EngineKind::kIoUring &&
        (pin == PinWorkers::kOn ||
         (pin == PinWorkers::kAuto && !report_.nowait_target && workers <= 1))) {
      sh.pair_cpus = report_.cpus.empty() ? AllowedCpus() : report_.cpus;
    }
    report_.job_cpus = sh.pair_cpus;
    sh.requests_in_iowq = engine_ == EngineKind::kIoUring && (force || !report_.nowait_target);
    std::vector<std::unique_ptr<JobOutput>> outs;
    std::vector<std::thread> threads;
    threads.reserve(spec.jobs);
    for (uint32_t j = 0; j < spec.jobs; ++j) outs.push_back(std::make_unique<JobOutput>());
    for (uint32_t j = 0; j < spec.jobs; ++j) {
      auto t = StartThread(
          [&sh, j, &outs] { RunJob<Q>(sh, j, *outs[j]); },
          "job thread " + std::to_string(j + 1) + " of --jobs " + std::to_string(spec.jobs));
      if (!t.ok()) {
        // The jobs started wait for `go`; they see `abort` and end without any I/O.
        sh.abort = true;
        sh.go.count_down();
        for (auto& started : threads) started.join();
        return t.status();
      }
      threads.push_back(std::move(t).value());
    }
    sh.ready.wait();
    Status init;
    for (auto& o : outs) {
      if (!o->status.ok()) init = o->status;
    }
    if (!init.ok()) sh.abort = true;
    sh.t0_ns = MonotonicNs();
    sh.go.count_down();

    // Progress: hand each interval to the caller once every job has closed it.
    size_t delivered = 0;
    auto deliver = [&](bool final) {
      size_t ready = SIZE_MAX;
      for (auto& o : outs) {
        std::lock_guard<std::mutex> lock(o->intervals_mu);
        ready = std::min(ready, o->intervals.size());
      }
      for (; delivered < ready; ++delivered) {
        IntervalSample merged;
        for (auto& o : outs) {
          std::lock_guard<std::mutex> lock(o->intervals_mu);
          PhaseRecorder::MergeInterval(merged, o->intervals[delivered]);
        }
        if (control.on_interval && !final) control.on_interval(merged);
      }
    };
    if (control.on_interval && spec.interval_ns) {
      for (;;) {
        bool all_done = true;
        for (auto& o : outs) all_done &= o->done.load();
        if (all_done) break;
        timespec ts{0, 20 * 1000 * 1000};
        nanosleep(&ts, nullptr);
        deliver(false);
      }
    }
    for (auto& t : threads) t.join();
    if (!init.ok()) return init;
    report_.granted = outs.front()->grant;
    if (report_.granted.iowq_cpus.empty()) report_.job_cpus.clear();  // unpinned again
    report_.features = outs.front()->features;
    const uint32_t depth = std::min<uint32_t>(spec.queue_depth, Q::kMaxDepth);
    report_.batch_submit = std::clamp<uint32_t>(report_.requested.batch_submit, 1, depth);
    const uint32_t asked = report_.requested.batch_complete_min;
    report_.batch_complete_min = asked == 0 || asked == kBatchCompleteAuto
                                     ? kBatchCompleteAuto
                                     : std::clamp<uint32_t>(asked, 1, depth);
    report_.ran = true;

    PhaseResult r;
    std::vector<const PhaseRecorder*> recs;
    for (auto& o : outs) {
      if (!o->status.ok()) return o->status;
      recs.push_back(&*o->rec);
      r.submit_lag.Merge(o->submit_lag);
      r.io_errors += o->io_errors;
      for (auto& e : o->errors) {
        if (r.errors.size() < kMaxErrorMessages) r.errors.push_back(e);
      }
      r.verify_failures += o->verify_failures;
      for (auto& v : o->verify) {
        if (r.verify_records.size() < kMaxVerifyRecords) {
          r.verify_records.push_back(
              {v.offset, VerifyOutcomeName(v.outcome), v.found_offset, v.generation});
        }
      }
      r.cpu_user_s += o->cpu_user_s;
      r.cpu_sys_s += o->cpu_sys_s;
      r.interrupted |= o->interrupted;
    }
    PhaseRecorder::MergeJobs(recs, r);
    std::sort(r.verify_records.begin(), r.verify_records.end(),
              [](const VerifyRecord& a, const VerifyRecord& b) { return a.offset < b.offset; });
    if (engine_ == EngineKind::kPsync && spec.queue_depth > 1) {
      r.notes.push_back("psync runs one I/O at a time per job; --qd " +
                        std::to_string(spec.queue_depth) + " was treated as 1");
    }
    return r;
  }

  int fd_;
  std::vector<int> fds_;
  uint64_t file_bytes_ = 0;
  TargetInfo info_;
  bool block_device_;
  EngineKind engine_;
  uint64_t own_from_bytes_;
  EngineReport report_;
};

}  // namespace

Result<EngineKind> ParseEngineKind(const std::string& name) {
  if (name == "io_uring") return EngineKind::kIoUring;
  if (name == "libaio") return EngineKind::kLibaio;
  if (name == "psync") return EngineKind::kPsync;
  return Status::Invalid("--engine: unknown engine '" + name + "' (io_uring, libaio, psync)");
}

const char* EngineKindName(EngineKind k) {
  switch (k) {
    case EngineKind::kIoUring:
      return "io_uring";
    case EngineKind::kLibaio:
      return "libaio";
    case EngineKind::kPsync:
      return "psync";
  }
  return "?";
}

namespace {

// The engine options' refusals that need no open target (RealTargetOptions::engine_options).
Status CheckEngineOptions(const RealTargetOptions& o) {
  const EngineOptions& e = o.engine_options;
  if (o.engine != EngineKind::kIoUring) {
    const char* flag = e.sqpoll                           ? "--sqpoll"
                       : e.hipri                          ? "--hipri"
                       : e.force_async == ForceAsync::kOn ? "--force-async on"
                       : e.pin_workers == PinWorkers::kOn ? "--pin-workers on"
                                                          : nullptr;
    if (flag)
      return Status::Invalid(std::string(flag) + " needs --engine io_uring (not " +
                             EngineKindName(o.engine) + ")");
  }
  if (e.sqpoll_cpu >= 0) {
    if (!e.sqpoll) return Status::Invalid("--sqpoll-cpu needs --sqpoll");
    SSDLAB_RETURN_IF_ERROR(CheckCpus("--sqpoll-cpu", {static_cast<uint32_t>(e.sqpoll_cpu)}));
  }
  if (!e.cpus_allowed.empty()) SSDLAB_RETURN_IF_ERROR(CheckCpus("--cpus-allowed", e.cpus_allowed));
  if (e.batch_complete_max && e.batch_complete_min > e.batch_complete_max) {
    return Status::Invalid("--batch-complete: MIN is larger than MAX");
  }
  if (e.hipri) {
    if (!o.direct)
      return Status::Invalid(
          "--hipri needs O_DIRECT (polled completions bypass the page cache); drop --buffered");
    std::string where = o.files.empty() ? o.path : o.files.front();
    struct stat st;
    if (stat(where.c_str(), &st) != 0) where = std::filesystem::path(where).parent_path().string();
    if (where.empty()) where = ".";
    std::string dir = BlockSysDir(where);
    if (dir.empty()) {
      return Status::Error(
          Code::kUnsupported,
          "--hipri: " + where + " is not on a block device (polled completions need one)");
    }
    if (DevicePollQueues(dir) == 0) {
      return Status::Error(
          Code::kUnsupported,
          "--hipri: the device of " + where + " has no poll queues (" + dir +
              "/queue/io_poll is 0; NVMe needs nvme.poll_queues=N); run without --hipri");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<TargetInfo> ProbeRealTarget(const RealTargetOptions& o) {
  namespace fs = std::filesystem;
  SSDLAB_RETURN_IF_ERROR(CheckEngineOptions(o));
  TargetInfo info;
  info.path = o.path;
  struct stat st;
  if (stat(o.path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Status::Io(o.path + ": " + std::strerror(errno));
    if (o.path.rfind("/dev/", 0) == 0)
      return Status::NotFound("block device " + o.path + " does not exist");
    fs::path parent = fs::path(o.path).parent_path();
    if (parent.empty()) parent = ".";
    struct stat pst;
    if (stat(parent.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode)) {
      return Status::NotFound("directory " + parent.string() + " does not exist");
    }
    if (o.size_bytes == 0)
      return Status::Invalid(o.path + " does not exist; give --size to create it");
    if (access(parent.c_str(), W_OK) != 0) {
      return Status::Refused("cannot create " + o.path + ": " + std::strerror(errno));
    }
    struct statvfs vfs;
    if (statvfs(parent.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
      return Status::Refused("cannot create " + o.path + ": read-only filesystem");
    }
    if (statvfs(parent.c_str(), &vfs) == 0) {
      uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
      if (o.size_bytes > free_bytes) {
        return Status::Error(Code::kNoSpace, "--size " + FormatBytes(o.size_bytes) +
                                                 " does not fit: the filesystem of " +
                                                 parent.string() + " has " +
                                                 FormatBytes(free_bytes) + " free");
      }
    }
    info.kind = "file";
    info.size_bytes = o.size_bytes;
    info.logical_block_bytes = o.direct ? FileDirectIoAlign(pst.st_dev) : 1;
    info.physical_block_bytes = static_cast<uint32_t>(pst.st_blksize);
    return info;
  }
  if (S_ISBLK(st.st_mode)) {
    int fd = open(o.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Io(o.path + ": " + std::strerror(errno));
    uint64_t bytes = 0;
    int lbs = 512, ro = 0;
    unsigned pbs = 4096;
    int rc = ioctl(fd, BLKGETSIZE64, &bytes);
    int e = errno;
    ioctl(fd, BLKSSZGET, &lbs);
    ioctl(fd, BLKPBSZGET, &pbs);
    ioctl(fd, BLKROGET, &ro);
    close(fd);
    if (rc != 0) return Status::Io(o.path + ": BLKGETSIZE64: " + std::strerror(e));
    if (o.writable && ro)
      return Status::Refused(o.path + " is a read-only block device; the workload needs to write");
    if (o.size_bytes > bytes) {
      return Status::Invalid("--size " + std::to_string(o.size_bytes) + " is larger than " +
                             o.path + " (" + std::to_string(bytes) + " bytes)");
    }
    info.kind = "block";
    info.size_bytes = o.size_bytes ? o.size_bytes : bytes;
    info.logical_block_bytes = static_cast<uint32_t>(lbs);
    info.physical_block_bytes = pbs;
    std::string dir = SysBlockDir(st.st_rdev);
    info.model = ReadSysfs(dir + "/device/model");
    info.serial = ReadSysfs(dir + "/device/serial");
    if (info.serial.empty()) info.serial = ReadSysfs(dir + "/serial");
    info.firmware = ReadSysfs(dir + "/device/firmware_rev");
    return info;
  }
  if (!S_ISREG(st.st_mode))
    return Status::Invalid(o.path + " is neither a regular file nor a block device");
  if (o.writable && access(o.path.c_str(), W_OK) != 0) {
    return Status::Refused(o.path + " is read-only (" + std::strerror(errno) +
                           "); the workload needs to write");
  }
  struct statvfs vfs;
  if (o.writable && statvfs(o.path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
    return Status::Refused(o.path + " is on a read-only filesystem; the workload needs to write");
  }
  uint64_t cur = static_cast<uint64_t>(st.st_size);
  uint64_t want = o.size_bytes ? o.size_bytes : cur;
  if (want == 0) return Status::Invalid(o.path + " is empty; give --size");
  if (want > cur) {
    uint64_t allocated = static_cast<uint64_t>(st.st_blocks) * 512;
    if (statvfs(o.path.c_str(), &vfs) == 0) {
      uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
      if (want > allocated + free_bytes) {
        return Status::Error(Code::kNoSpace, "--size " + FormatBytes(want) +
                                                 " does not fit: the filesystem of " + o.path +
                                                 " has " + FormatBytes(free_bytes) + " free");
      }
    }
  }
  info.kind = "file";
  info.size_bytes = want;
  info.logical_block_bytes = o.direct ? FileDirectIoAlign(st.st_dev) : 1;
  info.physical_block_bytes = static_cast<uint32_t>(st.st_blksize);
  return info;
}

namespace {

// A set of files as one range: each member is opened (created) through the single-file path.
Result<std::unique_ptr<Backend>> OpenFileSet(const RealTargetOptions& o) {
  const uint64_t n = o.files.size();
  if (o.size_bytes == 0 || o.size_bytes % n || (o.size_bytes / n) % kMiB) {
    return Status::Invalid(o.path + ": the size of a set of " + std::to_string(n) +
                           " files must be a multiple of " + std::to_string(n) + " MiB");
  }
  std::vector<int> fds;
  TargetInfo info;
  bool all_new = true;  // every file created here: the whole set is ours to fill
  auto close_all = [&] {
    for (int fd : fds) close(fd);
  };
  for (const std::string& f : o.files) {
    RealTargetOptions one = o;
    one.files.clear();
    one.path = f;
    one.size_bytes = o.size_bytes / n;
    auto member = ProbeRealTarget(one);
    if (!member.ok() || member->kind != "file") {
      close_all();
      return member.ok() ? Status::Invalid(f + " is not a regular file") : member.status();
    }
    auto opened = OpenRealBackend(one);
    if (!opened.ok()) {
      close_all();
      return opened.status();
    }
    // Take the descriptor over: dup it, the single-file backend closes its own.
    all_new &= static_cast<RealBackend&>(**opened).own_from_bytes() == 0;
    int fd = dup(static_cast<RealBackend&>(**opened).fd());
    if (fd < 0) {
      close_all();
      return Status::Io(f + ": dup: " + std::strerror(errno));
    }
    fds.push_back(fd);
    info = member.value();
  }
  info.path = o.path;
  info.kind = "files";
  info.size_bytes = o.size_bytes;
  info.details.emplace_back("files", std::to_string(n));
  info.details.emplace_back("file_bytes", std::to_string(o.size_bytes / n));
  return std::unique_ptr<Backend>(std::make_unique<RealBackend>(
      std::move(fds), std::move(info), false, o, all_new ? 0 : UINT64_MAX));
}

// open(2) without access-time updates (O_NOATIME, as fio opens its files): a read would
// otherwise check, and under strictatime write, the inode's atime on every request (about 1% of
// the CPU of a 4 KiB random read on a RAM block device). O_NOATIME needs the file's owner or
// CAP_FOWNER; without them (EPERM) the file is opened as asked.
int OpenNoAtime(const std::string& path, int flags, mode_t mode = 0) {
  const int fd = open(path.c_str(), flags | O_NOATIME, mode);
  return fd >= 0 || errno != EPERM ? fd : open(path.c_str(), flags, mode);
}

}  // namespace

Result<std::unique_ptr<Backend>> OpenRealBackend(const RealTargetOptions& o) {
  if (!o.files.empty()) return OpenFileSet(o);
  SSDLAB_ASSIGN_OR_RETURN(TargetInfo info, ProbeRealTarget(o));
  bool block = info.kind == "block";
  struct stat st;
  bool exists = stat(o.path.c_str(), &st) == 0;
  int base = O_CLOEXEC | (o.direct ? O_DIRECT : 0);
  int fd = -1;
  if (block) {
    fd = OpenNoAtime(o.path, base | (o.writable ? O_RDWR : O_RDONLY));
  } else if (exists && (!o.writable && static_cast<uint64_t>(st.st_size) >= info.size_bytes)) {
    // A workload that only reads opens an existing file read-only: nothing can write it.
    fd = OpenNoAtime(o.path, base | O_RDONLY);
  } else {
    fd = OpenNoAtime(o.path, base | O_RDWR | O_CREAT, 0644);
  }
  if (fd < 0) {
    int e = errno;
    if (e == EINVAL && o.direct) {
      if (!exists) unlink(o.path.c_str());
      return Status::Invalid(o.path + ": the filesystem does not support O_DIRECT; use --buffered");
    }
    if (e == EROFS || e == EACCES || e == EPERM) {
      return Status::Refused(
          o.path + " is read-only (" + std::strerror(e) + ")" +
          (exists && !o.writable ? "; a read-only file cannot be extended to --size" : ""));
    }
    return Status::Io(o.path + ": " + std::strerror(e));
  }
  // What this process allocates is its own: a new file, or the part beyond an existing end.
  uint64_t own_from = UINT64_MAX;
  if (!block && fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) < info.size_bytes) {
    own_from = exists ? static_cast<uint64_t>(st.st_size) : 0;
    if (fallocate(fd, 0, 0, static_cast<off_t>(info.size_bytes)) != 0) {
      int e = errno;
      if (e == EOPNOTSUPP && ftruncate(fd, static_cast<off_t>(info.size_bytes)) == 0) {
        // a filesystem without preallocation: holes are filled before reads
      } else {
        close(fd);
        if (!exists) unlink(o.path.c_str());
        return Status::Error(
            e == ENOSPC ? Code::kNoSpace : Code::kIoError,
            o.path + ": allocating " + FormatBytes(info.size_bytes) + ": " + std::strerror(e));
      }
    }
  }
  return std::unique_ptr<Backend>(
      std::make_unique<RealBackend>(std::vector<int>{fd}, std::move(info), block, o, own_from));
}

}  // namespace ssdlab

namespace ssdlab {

const EngineReport* EngineReportOf(const Backend& backend) {
  auto* real = dynamic_cast<const RealBackend*>(&backend);
  return real ? &real->report() : nullptr;
}

}  // namespace ssdlab
