#include "cli/targets.h"

#include <sys/stat.h>

#include "device/safety.h"

namespace ssdlab {
namespace {

RealTargetOptions RealOptions(const TargetRequest& r) {
  RealTargetOptions o;
  o.path = r.target;
  o.size_bytes = r.size_bytes;
  o.writable = r.writes;
  o.direct = r.direct;
  o.engine = r.engine;
  return o;
}

Status CheckSafety(const TargetRequest& r) {
  struct stat st;
  if (stat(r.target.c_str(), &st) == 0 && S_ISBLK(st.st_mode) && r.writes) {
    return CheckBlockDeviceWritable(r.target, r.destructive);
  }
  return Status::Ok();
}

}  // namespace

bool IsSimTarget(const std::string& target) { return target.rfind("sim:", 0) == 0; }

Result<TargetInfo> ProbeTarget(const TargetRequest& r) {
  if (IsSimTarget(r.target)) {
    return Status::Error(Code::kUnsupported, "simulated targets are not built into this ssdlab yet");
  }
  SSDLAB_RETURN_IF_ERROR(CheckSafety(r));
  return ProbeRealTarget(RealOptions(r));
}

Result<std::unique_ptr<Backend>> OpenTarget(const TargetRequest& r) {
  if (IsSimTarget(r.target)) {
    return Status::Error(Code::kUnsupported, "simulated targets are not built into this ssdlab yet");
  }
  SSDLAB_RETURN_IF_ERROR(CheckSafety(r));
  return OpenRealBackend(RealOptions(r));
}

}  // namespace ssdlab
