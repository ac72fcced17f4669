// The `trace capture` use case: a blktrace of a block device, where the kernel allows it
// (debugfs, CONFIG_BLK_DEV_IO_TRACE) and blktrace is installed. The CLI parses the flags into a
// CaptureRequest and says where the trace went.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace ssdlab::usecase {

struct CaptureRequest {
  std::string device;        // --device: a block device
  std::string time = "60s";  // --time as given: at least 1s
  std::string out;           // -o: the output name, in an existing directory
};

struct CaptureOutcome {
  uint64_t seconds = 0;  // the capture's time, rounded up to whole seconds
  std::string prefix;    // the per-CPU files are PREFIX.blktrace.N
};

// Runs blktrace -d DEVICE -w SECONDS -D DIR -o NAME (its messages on this process's stderr) and
// waits for it. Invalid for a bad --time, a device that is not a block device or a missing
// directory; Unsupported without debugfs; NotFound without blktrace; Io when blktrace fails.
Result<CaptureOutcome> CaptureTrace(const CaptureRequest& r);

}  // namespace ssdlab::usecase
