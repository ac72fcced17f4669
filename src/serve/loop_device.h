// Loop devices over a served drive's image file (losetup, from util-linux).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab::serve {

// `losetup --direct-io=on -f --show IMAGE`: the new loop device's path ("/dev/loop3"). Io
// with losetup's message when it fails (no free loop device, no permission); Unsupported when
// losetup is not installed.
Result<std::string> AttachLoop(const std::string& image);
// The loop devices whose backing file is `image` (as the kernel names it; a resolved path).
std::vector<std::string> LoopsBackedBy(const std::string& image);
// A block device's counters of completed reads and writes and the time they took, summed
// (/sys/block/NAME/stat: the block layer's view of its clients' requests, from their start to
// their completion, in ms summed from ns).
struct BlockStat {
  uint64_t reads = 0, read_ms = 0, writes = 0, write_ms = 0;
};
// `device`'s BlockStat ("/dev/loop3"). Io naming the file when it cannot be read or parsed.
Result<BlockStat> ReadBlockStat(const std::string& device);

// `losetup -d DEV`. Io with losetup's message when it fails.
Status DetachLoop(const std::string& device);

}  // namespace ssdlab::serve
