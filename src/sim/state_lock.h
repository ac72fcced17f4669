// Where a simulated drive's state file really is, and the lock that gives it one user at a time.
//
// A state is saved by writing beside it and renaming over it (sim/state.h), so a lock on the
// state's own inode would be lost at the first save. The lock is instead an open-file-description
// lock (F_OFD_SETLK, write lock on byte 0) on a sidecar file ".NAME.ssdlab-lock" beside the
// RESOLVED state path (ResolveStatePath), created empty when missing and never removed (removing
// it would let two processes lock two different inodes). Every spelling of one state (relative,
// absolute, through symlinks, not yet created) resolves to one sidecar, so all of them contend.
// OFD locks conflict between two open file descriptions even within one process (two members of
// one array on one file), and the kernel drops them when the process ends, so a killed command
// never leaves a state locked.
#pragma once

#include <string>

#include "base/status.h"

namespace ssdlab::sim {

// The path a state file `path` is read from and saved to: absolute, every symlink followed (a
// symlink to a file that does not exist yet resolves to that file), "." and ".." removed. A
// missing final file (or missing directories) is not an error here. Invalid, naming `path`, for
// a symlink loop.
Result<std::string> ResolveStatePath(const std::string& path);

// The sidecar lock file of the state at resolved path `resolved`: ".NAME.ssdlab-lock" beside it.
std::string StateLockPath(const std::string& resolved);

// Holds the lock of one state file for its life (movable, not copyable).
class StateLock {
 public:
  StateLock() = default;
  StateLock(StateLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  StateLock& operator=(StateLock&& o) noexcept;
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;
  ~StateLock();

 private:
  friend Result<StateLock> LockState(const std::string& path);
  explicit StateLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Locks the state file `path` (as given by the user) for the caller's use. Errors, each one line
// naming `path`: Refused when another ssdlab process, or another member of this command, holds
// it; NotFound when its directory does not exist; Permission/Io when the sidecar cannot be
// created or locked.
Result<StateLock> LockState(const std::string& path);

}  // namespace ssdlab::sim
