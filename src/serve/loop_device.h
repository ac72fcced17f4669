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
// `losetup -d DEV`. Io with losetup's message when it fails.
Status DetachLoop(const std::string& device);

}  // namespace ssdlab::serve
