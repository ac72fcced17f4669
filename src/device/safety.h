// The checks that keep the wrong disk alive. Every command that writes to a block device calls
// CheckBlockDeviceWritable() first.
#pragma once

#include <string>
#include <sys/types.h>

#include "base/status.h"

namespace ssdlab {

// Ok if no mount, swap area or stacked device (md, dm, LVM, loop over a partition: anything
// in sysfs "holders") uses the block device at `path` or any of its partitions; otherwise
// Refused with a message naming the first use found, e.g. "/dev/sdb has a mounted partition
// /dev/sdb1 on /data". `proc_root` and `sys_root` exist for tests ("/proc", "/sys").
Status CheckBlockDeviceNotInUse(const std::string& path, const std::string& proc_root = "/proc",
                                const std::string& sys_root = "/sys");

// The filesystem, RAID or partition-table signature libblkid finds on `path` ("ext4",
// "gpt partition table", ...), or "" when there is none.
Result<std::string> ProbeSignature(const std::string& path);

// All checks for writing to a block device: refuses without `destructive` (naming the flag),
// and refuses a device in use even with it.
Status CheckBlockDeviceWritable(const std::string& path, bool destructive);

}  // namespace ssdlab
