// A served drive with a filesystem on it, for the application tests (`ssdlab app NAME --target
// sim:PRESET`): the drive served in this process (Serve on its own thread, over FUSE and a loop
// device), an ext4 filesystem made on the loop device and mounted in a private directory, a
// body run there, then everything undone in the reverse order whatever happened: unmount, loop
// device detached, FUSE unmounted, state saved (state=), private directories removed.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "serve/serve.h"
#include "sim/sim.h"

namespace ssdlab::serve {

struct ServedFsOptions {
  std::string target;  // "sim:PRESET[?key=value&...]"
  // Where the private directory ssdlab-served-XXXXXX is made: "" for $TMPDIR, else /tmp. The
  // database servers' users must be able to enter it.
  std::string parent;
  const std::atomic<bool>* stop = nullptr;  // the user's stop (Ctrl-C), checked between steps
  std::function<void(const std::string&)> progress;  // lines for the user; may be empty
};

struct ServedFsReport {
  ServeReport serve;        // the serve's own figures, over the whole serve (mkfs included)
  std::string loop_device;  // "/dev/loopN"
  std::string mount_dir;    // where the filesystem was mounted (gone now)
  // The drive's counters just before the body and just after it (after syncfs: what the
  // filesystem held in the page cache has reached the drive).
  SimCounters before, after;
  std::vector<std::string> warnings;  // what could not be undone cleanly
};

// Where the body runs: the mount point (ext4, root directory mode 0755).
using ServedFsBody = std::function<void(const std::string& mount_dir)>;

// mkfs.ext4 and losetup are installed; Io naming the one missing and its package ("mkfs.ext4 not
// found; install e2fsprogs (apt-get install e2fsprogs)": exit 3, the host cannot proceed).
Status CheckServedFsTools();

// Checks the tools first (CheckServedFsTools): mkfs.ext4 or losetup missing is Io ("mkfs.ext4 not
// found; install e2fsprogs ...", exit 3: the host cannot proceed), then serves, makes the
// filesystem, mounts it and runs `body` (unless *o.stop was set meanwhile: Interrupted). Errors
// before the body are returned once everything started was undone (Serve's errors, mkfs's or
// mount's one line). After the body: the report, or the serve's error at its stop (saving the
// state). REQUIRES: o.stop is not null.
Result<ServedFsReport> WithServedFilesystem(const ServedFsOptions& o, const ServedFsBody& body);

}  // namespace ssdlab::serve
