// What the engine asks the kernel about a target's files: the sysfs directory of a device, the
// direct-I/O alignment of the device under a file, and which bytes of a file hold no data.
// Private to engine/.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "base/status.h"

namespace ssdlab {

// "/sys/dev/block/MAJ:MIN" of device number d.
std::string SysBlockDir(dev_t d);
// Logical block size of the device that holds a file (partitions read their disk's queue); 512
// where sysfs does not say.
uint32_t FileDirectIoAlign(dev_t st_dev);
// Bytes of [begin, end) of the file that hold no data: holes and unwritten (preallocated)
// extents, which read back as zeros without touching the device. Delayed-allocation extents
// hold data (not yet flushed) and count as written. kUnsupported where FIEMAP is missing
// (tmpfs, some network filesystems).
Result<uint64_t> UnwrittenBytes(int fd, uint64_t begin, uint64_t end);

}  // namespace ssdlab
