#include "cli/mpi_clients.h"

#include <algorithm>

#include "base/clock.h"
#include "cli/output.h"
#include "lab/merge.h"

namespace ssdlab {

using nlohmann::json;

Result<MpiClients> MpiClients::Start() {
  auto w = MpiWorld::Get();
  if (!w.ok()) return w.status().WithContext("--mpi");
  return MpiClients(w.value());
}

void MpiClients::ExpandTargets(std::vector<std::string>& targets) const {
  for (std::string& t : targets) t = ExpandRankPattern(t, rank(), world_->host());
}

Status MpiClients::ShareWorkload(WorkloadSpec& spec, bool range_per_rank) const {
  if (!range_per_rank) {
    spec.seed += static_cast<uint64_t>(rank());
    return Status::Ok();
  }
  const uint64_t align = spec.MaxBlockBytes();
  const uint64_t len = spec.range_end_bytes - spec.range_begin_bytes;
  const uint64_t share = len / static_cast<uint64_t>(size()) / align * align;
  if (share < align)
    return Status::Invalid("--range-per-rank: the range (" + std::to_string(len) +
                           " bytes) is too small for " + std::to_string(size()) + " ranks");
  spec.range_begin_bytes += share * static_cast<uint64_t>(rank());
  spec.range_end_bytes = spec.range_begin_bytes + share;
  if (spec.io_bytes) spec.io_bytes = std::max<uint64_t>(align, spec.io_bytes / size());
  return Status::Ok();
}

Status MpiClients::StartTogether(const Status& ready) {
  started_ = true;
  SSDLAB_RETURN_IF_ERROR(world_->Agree(ready));
  world_->Barrier();
  start_unix_s_ = UnixTimeS();
  return Status::Ok();
}

Result<std::optional<MpiClients::Merged>> MpiClients::Gather(const Result<PhaseResult>& mine,
                                                             const json& about) {
  json wire = about;
  wire["rank"] = rank();
  wire["host"] = world_->host();
  wire["start_unix_s"] = start_unix_s_;
  if (mine.ok())
    wire["result"] = PhaseWire(mine.value());
  else
    wire["error"] = mine.status().message();
  std::vector<std::string> all = world_->Gather(wire.dump());
  if (rank() != 0) return std::optional<Merged>();
  std::vector<PhaseResult> results;
  json clients = json::array();
  double first = 0, last = 0;
  std::string failed;
  for (const std::string& s : all) {
    json c = json::parse(s);
    const double t = c["start_unix_s"].get<double>();
    if (clients.empty() || t < first) first = t;
    if (clients.empty() || t > last) last = t;
    if (c.contains("error")) {
      if (failed.empty())
        failed =
            "rank " + std::to_string(c["rank"].get<int>()) + ": " + c["error"].get<std::string>();
      clients.push_back(c);
      continue;
    }
    auto r = PhaseFromWire(c["result"]);
    if (!r.ok()) return r.status().WithContext("rank " + std::to_string(c["rank"].get<int>()));
    c.erase("result");
    c.update(PhaseJson(r.value()));
    results.push_back(std::move(r.value()));
    clients.push_back(c);
  }
  if (!failed.empty()) return Status::Io(failed);
  Merged m;
  m.aggregate = MergeClientPhases(results);
  m.mpi = {{"ranks", size()},
           {"start_skew_ns", static_cast<uint64_t>((last - first) * 1e9)},
           {"clients", clients}};
  return std::optional<Merged>(std::move(m));
}

}  // namespace ssdlab
