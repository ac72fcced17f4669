#include "usecase/targets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>

#include "base/units.h"
#include "device/safety.h"
#include "sim/params.h"

namespace ssdlab::usecase {
namespace {

// The shortest phase --time-scale auto derives: long against the simulator's own times (a lazy
// GC batch stalls writes for ~0.4 s, background GC waits 0.2 s of idle time), so that a phase's
// figures do not hang on whether a stall falls into it.
constexpr uint64_t kMinDerivedPhaseNs = 10'000'000'000;

RealTargetOptions RealOptions(const TargetRequest& r) {
  return {.path = r.target,
          .size_bytes = r.size_bytes,
          .writable = r.writes,
          .direct = r.direct,
          .engine = r.engine,
          .engine_options = r.engine_options};
}

Status CheckSafety(const TargetRequest& r) {
  struct stat st;
  if (!r.writes || stat(r.target.c_str(), &st) != 0) return Status::Ok();
  if (S_ISBLK(st.st_mode)) return CheckBlockDeviceWritable(r.target, r.destructive);
  if (S_ISREG(st.st_mode)) return CheckFileWritable(r.target, r.destructive);
  return Status::Ok();
}

}  // namespace

uint32_t DerivedTimeScale(uint64_t phase_ns, uint32_t preset_scale) {
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(phase_ns / kMinDerivedPhaseNs, 1, std::max<uint32_t>(1, preset_scale)));
}

Result<uint32_t> ApplyTimeScale(const std::string& text, uint64_t phase_ns,
                                std::vector<std::string>& targets) {
  uint64_t n = 1;
  if (text == "auto") {
    const std::string first = targets.empty() ? "" : targets[0];
    if (first.rfind("sim:", 0) == 0) {
      SSDLAB_ASSIGN_OR_RETURN(sim::SimParams p, sim::ParseSimTarget(first));
      n = sim::SimTargetSets(first, "scale") ? p.scale : DerivedTimeScale(phase_ns, p.scale);
    }
  } else {
    auto v = ParseCount(text);
    if (!v.ok()) return v.status().WithContext("--time-scale");
    if (v.value() == 0) return Status::Invalid("--time-scale: must be at least 1");
    if (v.value() > UINT32_MAX)
      return Status::Invalid("--time-scale: " + text + " is above " + std::to_string(UINT32_MAX));
    n = v.value();
  }
  if (n == 1) return 1;
  for (std::string& t : targets) {
    auto scaled = sim::SimTargetAtScale(t, static_cast<uint32_t>(n), false);
    if (!scaled.ok())
      return scaled.status().WithContext("--time-scale " + text + " (simulated drives only)");
    t = scaled.value();
  }
  return static_cast<uint32_t>(n);
}

Result<std::string> ComposeTarget(const std::vector<std::string>& targets,
                                  const std::string& layout, const std::string& chunk) {
  if (targets.empty()) return Status::Invalid("--target is required");
  if (layout.empty()) {
    if (targets.size() > 1)
      return Status::Invalid("several --target need --layout raid0|raid1|raid10|raid5|raid6");
    if (!chunk.empty()) return Status::Invalid("--chunk applies to arrays (with --layout) only");
    return targets.front();
  }
  if (targets.size() < 2) return Status::Invalid("--layout needs at least two --target");
  return ArrayTarget(targets, layout, chunk.empty() ? "64KiB" : chunk);
}

Result<TargetInfo> ProbeTarget(const TargetRequest& r) {
  if (IsSimTarget(r.target)) {
    if (r.size_bytes)
      return Status::Invalid(
          "--size does not apply to a simulated drive; set its capacity in the target, e.g. "
          "sim:tiny?capacity=2GiB");
    // A state file is only checked here (header and parameters); OpenTarget loads it.
    SSDLAB_ASSIGN_OR_RETURN(auto sim, OpenSimBackend(r.target, SimOpenOptions{.probe = true}));
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

Status EndTargetUse(Backend& b, const Status& outcome, Console& console) {
  if (!outcome.ok() && outcome.code() != Code::kInterrupted) return Status::Ok();
  Status closed = b.Close();
  const auto* sim = dynamic_cast<const SimBackend*>(&b);
  if (outcome.code() == Code::kInterrupted && closed.ok() && sim && !sim->state_paths().empty())
    console.Note(fmt::format(
        "ssdlab: interrupted: sim state {} saved with the drive as the interruption left it",
        fmt::join(sim->state_paths(), ", ")));
  return closed;
}

void EndUseAfterOutputs(Backend& b, const Status& outcome, CommandEnd& end, Console& console) {
  const bool written = end.stored.ok() && end.outputs.ok();
  end.closed =
      EndTargetUse(b, written ? outcome : Status::Io("an output was not written"), console);
}

std::string SimStateNote(const Backend& b) {
  const auto* sim = dynamic_cast<const SimBackend*>(&b);
  if (!sim || sim->state_paths().empty()) return "";
  std::string paths;
  for (const std::string& p : sim->state_paths()) paths += (paths.empty() ? "" : ", ") + p;
  std::string origin;
  for (const auto& [k, v] : sim->info().details)
    if (k == "state_origin") origin = v;
  const SimCounters c = sim->counters();
  if (origin != "loaded") return "sim state " + paths + ": new, the drive started factory-fresh";
  return fmt::format(
      "sim state {}: loaded, {:.1f}% of the drive's space mapped, WA {:.2f} so far", paths,
      c.user_pages ? 100.0 * static_cast<double>(c.mapped_pages) / static_cast<double>(c.user_pages)
                   : 0.0,
      c.write_amplification());
}

}  // namespace ssdlab::usecase
