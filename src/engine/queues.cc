#include "engine/queues.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ssdlab {

int SyncTrim(int fd, bool block_device, uint64_t offset, uint64_t len) {
  if (block_device) {
    uint64_t range[2] = {offset, len};
    return ioctl(fd, BLKDISCARD, range) == 0 ? 0 : -errno;
  }
  return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                   static_cast<off_t>(len)) == 0
             ? 0
             : -errno;
}

// ---- io_uring ----

UringQueue::~UringQueue() {
  if (ready_) io_uring_queue_exit(&ring_);
}

Status UringQueue::Init(const QueueSetup& s) {
  setup_ = s;
  fd_ = s.fd;
  buffers_ = s.buffers;
  buffer_bytes_ = s.buffer_bytes;
  reap_max_ = s.reap_max;
  static const EngineOptions kDefaults;
  const EngineOptions& o = s.options ? *s.options : kDefaults;
  io_uring_params p{};
  unsigned extra = o.hipri ? IORING_SETUP_IOPOLL : 0;
  features_ = "io_uring";
  int rc;
  if (o.sqpoll) {
    // A kernel thread submits; the task-run flags are for the submitting task and the kernel
    // refuses them with SQPOLL.
    p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER | extra;
    p.sq_thread_idle = o.sqpoll_idle_ms;
    if (o.sqpoll_cpu >= 0) {
      p.flags |= IORING_SETUP_SQ_AFF;
      p.sq_thread_cpu = static_cast<uint32_t>(o.sqpoll_cpu);
    }
    rc = io_uring_queue_init_params(s.depth, &ring_, &p);
    if (rc == -EINVAL) {
      p = io_uring_params{};
      p.flags = IORING_SETUP_SQPOLL | extra | (o.sqpoll_cpu >= 0 ? IORING_SETUP_SQ_AFF : 0);
      p.sq_thread_idle = o.sqpoll_idle_ms;
      p.sq_thread_cpu = o.sqpoll_cpu >= 0 ? static_cast<uint32_t>(o.sqpoll_cpu) : 0;
      rc = io_uring_queue_init_params(s.depth, &ring_, &p);
    }
    if (rc < 0) {
      return Status::Error(
          Code::kUnsupported,
          std::string("--sqpoll: the kernel refused an SQPOLL ring (") + std::strerror(-rc) + ")");
    }
    grant_.sqpoll = true;
    grant_.sqpoll_cpu = o.sqpoll_cpu;
    grant_.single_issuer = (p.flags & IORING_SETUP_SINGLE_ISSUER) != 0;
    features_ += "+sqpoll";
  } else {
    // One submitter thread per ring, completions run when we wait (kernel >= 6.1); fall back.
    p.flags =
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN | extra;
    rc = io_uring_queue_init_params(s.depth, &ring_, &p);
    if (rc == -EINVAL) {
      io_uring_params q{};
      q.flags = extra;
      rc = io_uring_queue_init_params(s.depth, &ring_, &q);
    } else if (rc == 0) {
      grant_.single_issuer = grant_.defer_taskrun = grant_.coop_taskrun = true;
      features_ += "+defer_taskrun";
    }
  }
  if (rc < 0) {
    if (o.hipri) {
      return Status::Error(Code::kUnsupported,
                           std::string("--hipri: the kernel refused a polled (IOPOLL) ring (") +
                               std::strerror(-rc) + ")");
    }
    return Status::Error(Code::kUnsupported, std::string("io_uring unavailable (") +
                                                 std::strerror(-rc) +
                                                 "); use --engine libaio or psync");
  }
  ready_ = true;
  grant_.hipri = o.hipri;
  if (o.hipri) features_ += "+iopoll";
  if (o.register_ring_fd && io_uring_register_ring_fd(&ring_) == 1) {
    grant_.registered_ring_fd = true;
    features_ += "+ring_fd";
  }
  std::vector<iovec> iov(s.depth);
  for (uint32_t i = 0; i < s.depth; ++i) {
    iov[i].iov_base = s.buffers + i * s.buffer_bytes;
    iov[i].iov_len = s.buffer_bytes;
  }
  fixed_buffers_ = io_uring_register_buffers(&ring_, iov.data(), s.depth) == 0;
  if (fixed_buffers_) features_ += "+fixed_buffers";
  fixed_file_ = s.nfiles > 1 ? io_uring_register_files(&ring_, s.fds, s.nfiles) == 0
                             : io_uring_register_files(&ring_, &fd_, 1) == 0;
  if (fixed_file_) features_ += "+fixed_file";
  grant_.fixed_buffers = fixed_buffers_;
  grant_.fixed_files = fixed_file_;
  force_async_ = grant_.force_async = s.force_async;
  if (s.force_async && s.async_workers) {
    unsigned workers[2] = {s.async_workers, s.async_workers};  // bounded, unbounded
    if (io_uring_register_iowq_max_workers(&ring_, workers) == 0)
      grant_.async_workers = s.async_workers;
  }
  if (force_async_) features_ += "+async";
  if (!s.iowq_cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (uint32_t c : s.iowq_cpus) CPU_SET(c, &set);
    if (io_uring_register_iowq_aff(&ring_, sizeof(set), &set) == 0) {
      grant_.iowq_cpus = s.iowq_cpus;
      features_ += "+iowq_aff";
    }
  }
  return Status::Ok();
}

void UringQueue::Prep(uint32_t slot, Direction dir, uint64_t offset, uint32_t bytes) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  // The ring holds at least `depth` entries and at most `depth` requests are in flight.
  int fd = fixed_file_ ? 0 : fd_;
  if (setup_.nfiles > 1) {
    uint32_t file = MapFileOffset(setup_, offset);
    fd = fixed_file_ ? static_cast<int>(file) : setup_.fds[file];
  }
  uint8_t* buf = buffers_ + slot * buffer_bytes_;
  switch (dir) {
    case Direction::kRead:
      if (fixed_buffers_) {
        io_uring_prep_read_fixed(sqe, fd, buf, bytes, offset, static_cast<int>(slot));
      } else {
        io_uring_prep_read(sqe, fd, buf, bytes, offset);
      }
      break;
    case Direction::kWrite:
      if (fixed_buffers_) {
        io_uring_prep_write_fixed(sqe, fd, buf, bytes, offset, static_cast<int>(slot));
      } else {
        io_uring_prep_write(sqe, fd, buf, bytes, offset);
      }
      break;
    case Direction::kTrim:  // files only: device trims are synchronous (see kAsyncTrim)
      io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                              static_cast<off_t>(offset), bytes);
      break;
  }
  if (fixed_file_) sqe->flags |= IOSQE_FIXED_FILE;
  if (force_async_) sqe->flags |= IOSQE_ASYNC;
  io_uring_sqe_set_data64(sqe, slot);
}

int UringQueue::SubmitAndWait(uint32_t wait_min, uint64_t timeout_ns) {
  int rc;
  if (timeout_ns == 0 || wait_min == 0) {
    rc = io_uring_submit_and_wait(&ring_, wait_min);
  } else {
    __kernel_timespec ts{static_cast<long long>(timeout_ns / 1000000000),
                         static_cast<long long>(timeout_ns % 1000000000)};
    io_uring_cqe* cqe = nullptr;
    rc = io_uring_submit_and_wait_timeout(&ring_, &cqe, wait_min, &ts, nullptr);
    if (rc == -ETIME) rc = 0;
  }
  return rc == -EINTR ? 0 : rc;
}

// ---- libaio ----

AioQueue::~AioQueue() {
  if (ctx_) io_destroy(ctx_);
}

Status AioQueue::Init(const QueueSetup& s) {
  setup_ = s;
  int rc = io_setup(static_cast<int>(s.depth), &ctx_);
  if (rc < 0) {
    ctx_ = nullptr;
    return Status::Error(Code::kUnsupported,
                         std::string("libaio io_setup failed: ") + std::strerror(-rc));
  }
  iocbs_.resize(s.depth);
  pending_.reserve(s.depth);
  events_.resize(s.reap_max && s.reap_max < s.depth ? s.reap_max : s.depth);
  done_.reserve(s.depth);
  return Status::Ok();
}

void AioQueue::Prep(uint32_t slot, Direction dir, uint64_t offset, uint32_t bytes) {
  iocb* cb = &iocbs_[slot];
  uint8_t* buf = setup_.buffers + slot * setup_.buffer_bytes;
  int fd = setup_.nfiles > 1 ? setup_.fds[MapFileOffset(setup_, offset)] : setup_.fd;
  if (dir == Direction::kRead) {
    io_prep_pread(cb, fd, buf, bytes, static_cast<long long>(offset));
  } else {
    io_prep_pwrite(cb, fd, buf, bytes, static_cast<long long>(offset));
  }
  pending_.push_back(cb);  // its slot is its index in iocbs_ (SlotOf)
}

int AioQueue::SubmitAndWait(uint32_t wait_min, uint64_t timeout_ns) {
  size_t off = 0;
  while (off < pending_.size()) {
    int rc = io_submit(ctx_, static_cast<long>(pending_.size() - off), pending_.data() + off);
    if (rc == -EAGAIN || rc == -EINTR) continue;
    if (rc < 0) {
      for (size_t i = off; i < pending_.size(); ++i) {
        done_.emplace_back(SlotOf(pending_[i]), rc);
      }
      break;
    }
    off += static_cast<size_t>(rc);
  }
  pending_.clear();
  if (!done_.empty()) wait_min = 0;
  timespec ts{static_cast<time_t>(timeout_ns / 1000000000),
              static_cast<long>(timeout_ns % 1000000000)};
  int n = io_getevents(ctx_, wait_min, static_cast<long>(events_.size()), events_.data(),
                       timeout_ns ? &ts : nullptr);
  nevents_ = n > 0 ? n : 0;
  return n < 0 && n != -EINTR ? n : 0;
}

// ---- psync ----

Status PsyncQueue::Init(const QueueSetup& s) {
  setup_ = s;
  return Status::Ok();
}

void PsyncQueue::Prep(uint32_t slot, Direction dir, uint64_t offset, uint32_t bytes) {
  has_pending_ = true;
  slot_ = slot;
  dir_ = dir;
  offset_ = offset;
  bytes_ = bytes;
}

int PsyncQueue::SubmitAndWait(uint32_t, uint64_t timeout_ns) {
  if (!has_pending_) {
    if (timeout_ns) {
      timespec ts{static_cast<time_t>(timeout_ns / 1000000000),
                  static_cast<long>(timeout_ns % 1000000000)};
      nanosleep(&ts, nullptr);
    }
    return 0;
  }
  has_pending_ = false;
  uint8_t* buf = setup_.buffers + slot_ * setup_.buffer_bytes;
  int fd = setup_.nfiles > 1 ? setup_.fds[MapFileOffset(setup_, offset_)] : setup_.fd;
  ssize_t rc;
  do {
    if (dir_ == Direction::kRead) {
      rc = pread(fd, buf, bytes_, static_cast<off_t>(offset_));
    } else if (dir_ == Direction::kWrite) {
      rc = pwrite(fd, buf, bytes_, static_cast<off_t>(offset_));
    } else {
      rc = 0;  // trims never reach a psync queue (kAsyncTrim is false)
    }
  } while (rc < 0 && errno == EINTR);
  done_res_ = rc < 0 ? -errno : static_cast<int>(rc);
  done_slot_ = slot_;
  has_done_ = true;
  return 0;
}

}  // namespace ssdlab
