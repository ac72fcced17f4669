// The lock of a state file: see state_lock.h for the protocol.
#include "sim/state_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/path_registry.h"

namespace ssdlab::sim {

namespace fs = std::filesystem;

Result<std::string> ResolveStatePath(const std::string& path) {
  Result<std::string> resolved = ResolvePath(path);
  if (!resolved.ok())
    return Status::Error(resolved.status().code(), "sim state " + resolved.status().message());
  return resolved;
}

std::string StateLockPath(const std::string& resolved) {
  const fs::path p(resolved);
  return (p.parent_path() / ("." + p.filename().string() + ".ssdlab-lock")).string();
}

StateLock& StateLock::operator=(StateLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

StateLock::~StateLock() {
  if (fd_ >= 0) close(fd_);  // closing the description releases its OFD lock
}

Result<StateLock> LockState(const std::string& path) {
  SSDLAB_ASSIGN_OR_RETURN(const std::string resolved, ResolveStatePath(path));
  const std::string named =
      "sim state '" + path + "'" + (resolved == path ? std::string() : " (" + resolved + ")");
  const std::string lock = StateLockPath(resolved);
  const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT)
      return Status::NotFound(named + ": its directory " +
                              fs::path(resolved).parent_path().string() + " does not exist");
    const std::string why =
        named + ": cannot create its lock file " + lock + ": " + std::strerror(e);
    if (e == EACCES || e == EPERM || e == EROFS) return Status::Refused(why);
    return Status::Io(why);
  }
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 1;
  if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    const int e = errno;
    close(fd);
    if (e == EAGAIN || e == EACCES)
      return Status::Refused(named +
                             " is in use by another ssdlab process or by another member of this "
                             "command; wait for it to end, or use another state= path");
    return Status::Io(named + ": cannot lock " + lock + ": " + std::strerror(e));
  }
  return StateLock(fd);
}

}  // namespace ssdlab::sim
