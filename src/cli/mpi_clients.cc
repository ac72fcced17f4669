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

json SpecWire(const WorkloadSpec& s) {
  json sizes = json::array();
  for (const BlockShare& b : s.block_sizes) sizes.push_back({b.bytes, b.pct});
  json zones = json::array();
  for (const Zone& z : s.dist.zones) zones.push_back({z.access_pct, z.range_pct});
  return {{"pattern", static_cast<int>(s.pattern)},
          {"read_pct", s.read_pct},
          {"trim", s.trim},
          {"block_sizes", sizes},
          {"queue_depth", s.queue_depth},
          {"jobs", s.jobs},
          {"runtime_ns", s.runtime_ns},
          {"io_bytes", s.io_bytes},
          {"ramp_ns", s.ramp_ns},
          {"ramp_bytes", s.ramp_bytes},
          {"range_begin_bytes", s.range_begin_bytes},
          {"range_end_bytes", s.range_end_bytes},
          {"dist", {static_cast<int>(s.dist.kind), s.dist.param, zones}},
          {"rate_iops", s.rate_iops},
          {"data", {static_cast<int>(s.data.kind), s.data.pct}},
          {"seed", s.seed},
          {"verify", s.verify},
          {"verify_unit_bytes", s.verify_unit_bytes},
          {"interval_ns", s.interval_ns}};
}

Result<WorkloadSpec> SpecFromWire(const json& j) {
  WorkloadSpec s;
  try {
    s.pattern = static_cast<Pattern>(j.at("pattern").get<int>());
    s.read_pct = j.at("read_pct").get<double>();
    s.trim = j.at("trim").get<bool>();
    s.block_sizes.clear();
    for (const json& b : j.at("block_sizes"))
      s.block_sizes.push_back({b.at(0).get<uint64_t>(), b.at(1).get<double>()});
    s.queue_depth = j.at("queue_depth").get<uint32_t>();
    s.jobs = j.at("jobs").get<uint32_t>();
    s.runtime_ns = j.at("runtime_ns").get<uint64_t>();
    s.io_bytes = j.at("io_bytes").get<uint64_t>();
    s.ramp_ns = j.at("ramp_ns").get<uint64_t>();
    s.ramp_bytes = j.at("ramp_bytes").get<uint64_t>();
    s.range_begin_bytes = j.at("range_begin_bytes").get<uint64_t>();
    s.range_end_bytes = j.at("range_end_bytes").get<uint64_t>();
    const json& d = j.at("dist");
    s.dist.kind = static_cast<DistKind>(d.at(0).get<int>());
    s.dist.param = d.at(1).get<double>();
    for (const json& z : d.at(2))
      s.dist.zones.push_back({z.at(0).get<double>(), z.at(1).get<double>()});
    s.rate_iops = j.at("rate_iops").get<double>();
    s.data = {static_cast<DataKind>(j.at("data").at(0).get<int>()),
              j.at("data").at(1).get<double>()};
    s.seed = j.at("seed").get<uint64_t>();
    s.verify = j.at("verify").get<bool>();
    s.verify_unit_bytes = j.at("verify_unit_bytes").get<uint64_t>();
    s.interval_ns = j.at("interval_ns").get<uint64_t>();
  } catch (const json::exception& e) {
    return Status::Invalid(std::string("a phase's workload has the wrong shape: ") + e.what());
  }
  return s;
}

}  // namespace ssdlab
