// I/O queues of the three engines, one per job thread. Not thread-safe.
//
// Protocol, per loop turn of the job: Prep() requests into free slots, then SubmitAndWait()
// hands all prepared requests to the kernel and blocks until at least `wait_min` have
// completed (or `timeout_ns` passed, if non-zero), then Reap() calls fn(slot, result) for
// every completion available (at most QueueSetup::reap_max, if non-zero), without blocking.
// `result` is bytes transferred (0 for a trim) or -errno. Queues whose kAsyncTrim is false never
// get trims: the job issues those synchronously with SyncTrim(), as it does for every trim on a
// block device (this liburing has no asynchronous discard).
#pragma once

#include <libaio.h>
#include <liburing.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/options.h"
#include "workload/spec.h"

namespace ssdlab {

struct QueueSetup {
  int fd = -1;
  bool block_device = false;  // trims use BLKDISCARD instead of punching a hole
  uint32_t depth = 1;
  uint8_t* buffers = nullptr;  // depth buffers of buffer_bytes each, contiguous
  uint64_t buffer_bytes = 0;
  // A set of files addressed as one range (file i holds [i*file_bytes, (i+1)*file_bytes));
  // `fd` is then fds[0]. nfiles <= 1: the single file or device `fd`.
  const int* fds = nullptr;
  uint32_t nfiles = 1;
  uint64_t file_bytes = 0;
  uint32_t reap_max = 0;  // completions reaped per turn at most; 0 = all available
  // io_uring features asked for (sqpoll, hipri, registered ring fd); null = the defaults.
  const EngineOptions* options = nullptr;
  // io_uring: every request with IOSQE_ASYNC, at most `async_workers` io-wq workers (0: the
  // kernel's limit). Decided per phase by the engine (EngineOptions::force_async).
  bool force_async = false;
  uint32_t async_workers = 0;
  // io_uring: the CPUs of the ring's io-wq workers (io_uring_register_iowq_aff); empty: the
  // kernel's choice (every CPU the process may use).
  std::vector<uint32_t> iowq_cpus;
};

// Maps an offset of a multi-file range to (file index, offset in the file).
inline uint32_t MapFileOffset(const QueueSetup& s, uint64_t& offset) {
  if (s.nfiles <= 1) return 0;
  auto i = static_cast<uint32_t>(offset / s.file_bytes);
  offset -= uint64_t{i} * s.file_bytes;
  return i;
}

// Synchronous trim (discard) of [offset, offset+len): BLKDISCARD on a device, punch hole on
// a file. Returns 0 or -errno.
int SyncTrim(int fd, bool block_device, uint64_t offset, uint64_t len);

class UringQueue {
 public:
  static constexpr uint32_t kMaxDepth = kMaxUringDepth;
  static constexpr bool kAsyncTrim = true;  // punch hole via IORING_OP_FALLOCATE
  ~UringQueue();
  Status Init(const QueueSetup& setup);
  void Prep(uint32_t slot, Direction dir, uint64_t offset, uint32_t bytes);
  int SubmitAndWait(uint32_t wait_min, uint64_t timeout_ns);
  template <typename F>
  uint32_t Reap(F&& fn) {
    io_uring_cqe* cqe;
    unsigned head, n = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      fn(static_cast<uint32_t>(cqe->user_data), cqe->res);
      if (++n == reap_max_) break;
    }
    io_uring_cq_advance(&ring_, n);
    return n;
  }
  std::string features() const { return features_; }
  const EngineGrant& grant() const { return grant_; }

 private:
  io_uring ring_{};
  QueueSetup setup_;
  EngineGrant grant_;
  uint32_t reap_max_ = 0;  // 0: never equal to a count >= 1, so no limit
  bool ready_ = false;
  bool fixed_buffers_ = false;
  bool fixed_file_ = false;
  bool force_async_ = false;
  int fd_ = -1;
  uint8_t* buffers_ = nullptr;
  uint64_t buffer_bytes_ = 0;
  std::string features_;
};

class AioQueue {
 public:
  static constexpr uint32_t kMaxDepth = 65536;
  static constexpr bool kAsyncTrim = false;
  ~AioQueue();
  Status Init(const QueueSetup& setup);
  void Prep(uint32_t slot, Direction dir, uint64_t offset, uint32_t bytes);
  int SubmitAndWait(uint32_t wait_min, uint64_t timeout_ns);
  template <typename F>
  uint32_t Reap(F&& fn) {
    uint32_t n = 0;
    for (auto [slot, res] : done_) fn(slot, res), ++n;
    done_.clear();
    for (int i = 0; i < nevents_; ++i) {
      fn(SlotOf(events_[i].obj), static_cast<int>(static_cast<long>(events_[i].res)));
      ++n;
    }
    nevents_ = 0;
    return n;
  }
  std::string features() const { return "libaio"; }
  const EngineGrant& grant() const { return grant_; }

 private:
  // The slot of an I/O is the index of its iocb (Prep fills iocbs_[slot]), which a completion
  // names (io_event::obj).
  uint32_t SlotOf(const iocb* cb) const { return static_cast<uint32_t>(cb - iocbs_.data()); }
  io_context_t ctx_ = nullptr;
  QueueSetup setup_;
  std::vector<iocb> iocbs_;
  std::vector<iocb*> pending_;
  std::vector<io_event> events_;
  int nevents_ = 0;
  std::vector<std::pair<uint32_t, int>> done_;  // failed submissions, reported as completions
  EngineGrant grant_;
};

// One I/O at a time with pread/pwrite (depth is always 1).
class PsyncQueue {
 public:
  static constexpr uint32_t kMaxDepth = 1;
  static constexpr bool kAsyncTrim = false;
  Status Init(const QueueSetup& setup);
  void Prep(uint32_t slot, Direction dir, uint64_t offset, uint32_t bytes);
  int SubmitAndWait(uint32_t wait_min, uint64_t timeout_ns);
  template <typename F>
  uint32_t Reap(F&& fn) {
    if (!has_done_) return 0;
    has_done_ = false;
    fn(done_slot_, done_res_);
    return 1;
  }
  std::string features() const { return "psync"; }
  const EngineGrant& grant() const { return grant_; }

 private:
  QueueSetup setup_;
  bool has_pending_ = false, has_done_ = false;
  uint32_t slot_ = 0, done_slot_ = 0;
  Direction dir_ = Direction::kRead;
  uint64_t offset_ = 0;
  uint32_t bytes_ = 0;
  int done_res_ = 0;
  EngineGrant grant_;
};

}  // namespace ssdlab
