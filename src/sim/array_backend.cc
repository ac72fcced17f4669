// Array targets of simulated drives: "array:LAYOUT:CHUNK_BYTES:MEMBER|MEMBER|..." (sim/sim.h).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/units.h"
#include "sim/array.h"
#include "sim/params.h"
#include "sim/preset_file.h"
#include "sim/raid.h"
#include "sim/sim.h"

namespace ssdlab {
namespace {

std::string HashHex(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  std::ostringstream o;
  o << std::hex << h;
  return o.str();
}

// Checks what can be checked without opening the members; returns the layout (member size 0).
Result<sim::RaidLayout> CheckArray(const std::vector<std::string>& members,
                                   const std::string& layout, uint64_t chunk_bytes) {
  sim::RaidLayout l;
  SSDLAB_ASSIGN_OR_RETURN(l.level, sim::ParseRaidLevel(layout));
  l.members = static_cast<uint32_t>(members.size());
  l.chunk_bytes = chunk_bytes;
  l.member_bytes = UINT64_MAX;
  for (const std::string& m : members) {
    if (m.rfind("sim:", 0) != 0) {
      return Status::Invalid(
          "array member '" + m +
          "' is not a simulated drive: --layout builds arrays of sim: targets; test a real array "
          "(md, hardware RAID) as one block device");
    }
    if (m.find('|') != std::string::npos)
      return Status::Invalid("array member '" + m + "' contains '|'");
  }
  SSDLAB_RETURN_IF_ERROR(sim::ValidateLayout(l));
  return l;
}

}  // namespace

Result<std::string> ArrayTarget(const std::vector<std::string>& members, const std::string& layout,
                                const std::string& chunk) {
  auto bytes = ParseBytes(chunk);
  if (!bytes.ok()) return bytes.status().WithContext("--chunk");
  SSDLAB_RETURN_IF_ERROR(CheckArray(members, layout, bytes.value()).status());
  std::string t = "array:" + layout + ":" + std::to_string(bytes.value()) + ":";
  for (size_t i = 0; i < members.size(); ++i) t += (i ? "|" : "") + members[i];
  return t;
}

namespace {

// An array target split: "array:LAYOUT:CHUNK:A|B|..." -> its members, checked by CheckArray.
struct ArrayParts {
  std::vector<std::string> members;
  sim::RaidLayout layout;
};

Result<ArrayParts> SplitArrayTarget(const std::string& target) {
  const std::string bad = "malformed array target '" + target + "' (array:LAYOUT:CHUNK:A|B|...)";
  const size_t a = target.find(':', 6), b = a == std::string::npos ? a : target.find(':', a + 1);
  if (b == std::string::npos) return Status::Invalid(bad);
  const std::string layout = target.substr(6, a - 6);
  auto chunk = ParseCount(target.substr(a + 1, b - a - 1));
  if (!chunk.ok()) return Status::Invalid(bad);
  ArrayParts out;
  std::stringstream in(target.substr(b + 1));
  for (std::string m; std::getline(in, m, '|');) out.members.push_back(m);
  SSDLAB_ASSIGN_OR_RETURN(out.layout, CheckArray(out.members, layout, chunk.value()));
  return out;
}

}  // namespace

Result<SimTargetFiles> SimTargetFilesOf(const std::string& target) {
  std::vector<std::string> members = {target};
  if (target.rfind("array:", 0) == 0) {
    SSDLAB_ASSIGN_OR_RETURN(ArrayParts parts, SplitArrayTarget(target));
    members = std::move(parts.members);
  }
  SimTargetFiles out;
  for (const std::string& m : members) {
    SSDLAB_ASSIGN_OR_RETURN(sim::SimParams p, sim::ParseSimTarget(m));
    out.members.push_back({m, p.state_path, sim::PresetFileOf(m)});
  }
  return out;
}

Result<std::unique_ptr<SimBackend>> OpenSimArrayBackend(const std::string& target,
                                                        const SimOpenOptions& o) {
  SSDLAB_ASSIGN_OR_RETURN(ArrayParts parts, SplitArrayTarget(target));
  const std::vector<std::string>& names = parts.members;
  sim::RaidLayout l = parts.layout;
  // One state file per member: never two members on one file, never some with and some
  // without (half an array would start fresh).
  std::vector<std::string> states, canon;
  for (const std::string& m : names) {
    SSDLAB_ASSIGN_OR_RETURN(sim::SimParams p, sim::ParseSimTarget(m));
    if (p.state_path.empty()) continue;
    SSDLAB_ASSIGN_OR_RETURN(const std::string c, sim::ResolveStatePath(p.state_path));
    for (size_t i = 0; i < canon.size(); ++i) {
      if (canon[i] == c)
        return Status::Invalid("array members share the state file " + p.state_path +
                               "; give every member its own state= path");
    }
    canon.push_back(c);
    states.push_back(p.state_path);
  }
  if (!states.empty() && states.size() != names.size())
    return Status::Invalid(
        "some array members have a state= path and some do not; give every "
        "member its own, or none");

  std::vector<std::unique_ptr<SimBackend>> opened;
  uint64_t clock = 0;
  for (const std::string& m : names) {
    SSDLAB_ASSIGN_OR_RETURN(auto one, OpenSimBackend(m, o));
    clock = std::max(clock, one->now_ns_);
    if (!opened.empty() && one->info().size_bytes != opened.front()->info().size_bytes) {
      return Status::Invalid("mismatched array members: " + names.front() + " holds " +
                             std::to_string(opened.front()->info().size_bytes) + " bytes, " + m +
                             " " + std::to_string(one->info().size_bytes) +
                             "; members must have the same capacity");
    }
    opened.push_back(std::move(one));
  }
  l.member_bytes = opened.front()->info().size_bytes;
  SSDLAB_RETURN_IF_ERROR(sim::ValidateLayout(l));
  // The first member's backend becomes the array's: it keeps its parameters (scale) and clock.
  std::vector<std::unique_ptr<sim::SimDevice>> devs;
  std::vector<sim::StateLock> locks;  // every member's, held by the array
  std::string serials;
  std::vector<std::string> member_serials;
  for (auto& o : opened) {
    for (sim::StateLock& lock : o->state_locks_) locks.push_back(std::move(lock));
    member_serials.push_back(o->info().serial);
    serials += o->info().serial;
    devs.push_back(std::move(o->dev_));
  }
  std::unique_ptr<SimBackend> array = std::move(opened.front());
  const uint64_t host_io_ns = static_cast<uint64_t>(std::llround(array->p_->array_io_us * 1e3));
  array->array_ = std::make_unique<sim::SimArray>(std::move(devs), l, host_io_ns);
  array->state_paths_ = states;
  array->state_locks_ = std::move(locks);
  array->zstd_level_ = o.state_zstd_level;
  array->zstd_workers_ = o.state_zstd_workers;
  array->now_ns_ = clock;  // members saved together share one clock; the latest is safe
  TargetInfo& info = array->info_;
  const std::string member_model = info.model;
  info.path = target;
  info.kind = "sim";
  info.size_bytes = sim::ArrayBytes(l);
  info.model = std::string(sim::RaidLevelName(l.level)) + " of " + std::to_string(l.members) +
               " x " + member_model;
  info.serial = "SIMARRAY" + HashHex(serials).substr(0, 8);
  info.details.insert(info.details.begin(),
                      {{"array_layout", sim::RaidLevelName(l.level)},
                       {"array_members", std::to_string(l.members)},
                       {"array_chunk_bytes", std::to_string(l.chunk_bytes)},
                       {"array_member_bytes", std::to_string(l.member_bytes)}});
  for (size_t i = 0; i < names.size(); ++i) {
    info.details.emplace_back("array_member_" + std::to_string(i), names[i]);
    info.details.emplace_back("array_member_" + std::to_string(i) + "_serial", member_serials[i]);
  }
  return array;
}

}  // namespace ssdlab
