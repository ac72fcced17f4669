// The FUSE transport of `sim serve`: a FUSE filesystem at a directory holding one file,
// drive.img, of the drive's capacity. Reads, writes, hole punches (fallocate PUNCH_HOLE and
// ZERO_RANGE: discards from a loop device) and fsync reach the pacer (serve/pacer.h) as reads,
// writes, trims and flushes, and are answered at their due time, from the pacer's thread or,
// for a request the pacer answers at once (serve/pacer.h, Threads), from the session thread, so
// many requests can be in flight. The file is opened for direct I/O only (no page cache: every
// request reaches the drive). Data goes to a DataStore (serve/data_store.h) when the request
// arrives.
//
// Threads: one thread receives requests (the session loop); replies leave from the pacer's,
// or from the session thread itself when the pacer answers a request on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "serve/data_store.h"
#include "serve/pacer.h"
#include "serve/power_switch.h"

namespace ssdlab::serve {

// The name of the one file in the mounted directory.
inline constexpr const char* kImageName = "drive.img";
// drive.img's extended attribute holding the served drive's serial (device/identify.h reads it
// for a loop device over a served drive).
inline constexpr const char* kSerialXattr = "user.ssdlab.serial";

// Ok when `dir` may be mounted on: an existing empty directory that is not a mount point, and
// /dev/fuse can be opened. Invalid naming `dir` (missing, not a directory, not empty, already
// a mount point); Unsupported when /dev/fuse is missing; Refused when it may not be opened.
Status CheckFuseMountable(const std::string& dir);

// The session thread's view of the transport since Attach(): it sees its own queue, not the
// client's. A request "waiting" was already queued in the kernel when the session thread came
// back to read (it waited for the server, not for the client); busy_ns is the thread's time
// handling requests rather than waiting for one.
struct TransportStats {
  uint64_t io_requests = 0;  // reads, writes, hole punches and fsyncs through the pacer
  uint64_t waiting = 0;      // of them, already queued when the session thread came to read
  uint64_t busy_ns = 0;      // the session thread's time handling requests
  // The connection's limits of asynchronous requests in flight, as the kernel granted them
  // (its defaults are 12 and 9; 256 and 192 are asked).
  unsigned max_background = 0, congestion_threshold = 0;
  double backlog_share() const {
    return io_requests ? static_cast<double>(waiting) / static_cast<double>(io_requests) : 0.0;
  }
};

class FuseDrive {
 public:
  // Mounts the filesystem at `dir` (CheckFuseMountable first) and starts the session loop.
  // Until Attach(), requests are answered at once, at no cost: the transport's own time can be
  // measured then (serve.h).
  // `data` is not owned and must outlive the FuseDrive; `serial`, the drive's, is drive.img's
  // xattr kSerialXattr. Errors as CheckFuseMountable, or Io when the mount fails.
  static Result<std::unique_ptr<FuseDrive>> Mount(const std::string& dir, uint64_t capacity_bytes,
                                                  DataStore* data, const std::string& serial);
  ~FuseDrive();  // Unmount() if still mounted

  // From now on requests go through `pacer` (not owned; it must outlive the session loop, i.e.
  // be stopped after Unmount()), whose arrival probe is the session's queue.
  // REQUIRES: pacer started, nothing submitted to it yet.
  void Attach(Pacer* pacer);
  // The power switch: from now on every write is recorded in `log` (not owned; it must outlive
  // the session loop) and reaches the pacer tagged. REQUIRES: before Attach().
  void RecordVersions(VersionLog* log);
  // Unmounts the directory and waits for the session loop to end. When the mount is busy (a
  // loop device or a process still uses drive.img) it is detached lazily and the FUSE
  // connection aborted: whoever still uses it gets errors. Ok, or Io naming the directory.
  // Idempotent.
  Status Unmount();

  // A power cut: the directory is unmounted lazily and the FUSE connection aborted at once, so
  // that the session ends even while a loop device's users still hold drive.img (their requests
  // fail). Ok, or Io naming the directory. REQUIRES: root (the connection's abort file).
  Status PowerOff();

  // The transport's figures since Attach(). Thread-safe.
  TransportStats transport() const;

  std::string image_path() const;
  // False once the session has ended (the directory was unmounted from outside).
  bool alive() const;

  struct Impl;

 private:
  explicit FuseDrive(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `dir` is a mount point (/proc/self/mountinfo).
bool IsMountPoint(const std::string& dir);
// Unmounts a FUSE mount at `dir` left by a killed server: at once, or lazily when busy. `how`:
// "unmounted" or "unmounted lazily (busy)". Io naming `dir` when neither works.
Status UnmountFuseDir(const std::string& dir, std::string* how);

}  // namespace ssdlab::serve
