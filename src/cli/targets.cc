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

Result<TargetInfo> ProbeTarget(const TargetRequest& r) {
  if (IsSimTarget(r.target)) {
    if (r.size_bytes) return Status::Invalid("--size does not apply to a simulated drive; set its capacity in the target, e.g. sim:tiny?capacity=2GiB");
    SSDLAB_ASSIGN_OR_RETURN(auto sim, OpenSimBackend(r.target));
    return sim->info();
  }
  SSDLAB_RETURN_IF_ERROR(CheckSafety(r));
  return ProbeRealTarget(RealOptions(r));
}

Result<std::unique_ptr<Backend>> OpenTarget(const TargetRequest& r) {
  if (IsSimTarget(r.target)) {
    SSDLAB_ASSIGN_OR_RETURN(auto sim, OpenSimBackend(r.target));
    return std::unique_ptr<Backend>(std::move(sim));
  }
  SSDLAB_RETURN_IF_ERROR(CheckSafety(r));
  return OpenRealBackend(RealOptions(r));
}

}  // namespace ssdlab
