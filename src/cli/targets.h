// Resolves a --target string to a Backend: "sim:PRESET[?k=v&...]" is the simulator, anything
// else a file or block device. Block devices pass the safety checks before anything is opened
// for writing.
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"
#include "engine/engine.h"
#include "sim/sim.h"

namespace ssdlab {

struct TargetRequest {
  std::string target;
  uint64_t size_bytes = 0;   // --size; 0 = as the target is
  bool writes = false;       // the workload writes or trims
  bool destructive = false;  // --destructive
  bool direct = true;
  EngineKind engine = EngineKind::kIoUring;
};

// Checks everything that can be checked without changing the target; returns its facts.
Result<TargetInfo> ProbeTarget(const TargetRequest& request);
Result<std::unique_ptr<Backend>> OpenTarget(const TargetRequest& request);

}  // namespace ssdlab
