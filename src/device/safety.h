// The checks that keep the wrong disk alive. Every command that writes to a block device calls
// CheckBlockDeviceWritable() first.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/status.h"
#include "device/identify.h"

namespace ssdlab {

// Ok if no mount, swap area or stacked device (md, dm, LVM, loop over a partition: anything
// in sysfs "holders") uses the block device at `path` or any of its partitions; otherwise
// Refused with a message naming the first use found, e.g. "/dev/sdb has a mounted partition
// /dev/sdb1 on /data". `proc_root` and `sys_root` exist for tests ("/proc", "/sys").
Status CheckBlockDeviceNotInUse(const std::string& path, const std::string& proc_root = "/proc",
                                const std::string& sys_root = "/sys");

// All checks for writing to an existing regular file: Refused when it is an active swap file,
// or the backing file of a loop device that is in use (mounted, swap, held: its filesystem
// would be corrupted), or of any loop device at all without `destructive`. Ok for a missing
// path (a new file).
Status CheckFileWritable(const std::string& path, bool destructive,
                         const std::string& proc_root = "/proc",
                         const std::string& sys_root = "/sys");

// For a file ssdlab writes whole, never a target (a result, a results database, a simulated
// drive's state): Refused when it is an active swap file or the backing file of any loop
// device, in use or idle (writing it changes that device's data; no flag allows it), naming the
// device and its use. Ok for a missing path (a new file).
Status CheckResultFileWritable(const std::string& path, const std::string& proc_root = "/proc",
                               const std::string& sys_root = "/sys");

// The filesystem, RAID or partition-table signature libblkid finds on `path` ("ext4",
// "gpt partition table", ...), or "" when there is none.
Result<std::string> ProbeSignature(const std::string& path);

// All checks for writing to a block device: refuses without `destructive` (naming the flag),
// and refuses a device in use even with it, or a loop device whose backing file also backs
// another loop device that is in use.
Status CheckBlockDeviceWritable(const std::string& path, bool destructive);

// What `--confirm` accepts before whole-device destructive work (purge, preconditioning, PTS on
// a block device) destroys the disk of `id`: its serial and its WWN (with or without the
// "naa."/"eui."/"0x" prefix, any case). Devices with neither have stand-ins: a loop device
// accepts the path of its backing file (absolute or as resolved), any other the kernel name
// ("zram0"). Empty for files, which need no confirmation.
std::vector<std::string> ConfirmationTokens(const DeviceIdentity& id);

// Ok when `confirm` matches one of ConfirmationTokens(id). Otherwise Refused, naming the
// device's model, serial and capacity and what --confirm expects.
Status CheckConfirmation(const DeviceIdentity& id, const std::string& confirm);

}  // namespace ssdlab
