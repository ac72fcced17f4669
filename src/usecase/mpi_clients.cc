#include "usecase/mpi_clients.h"

#include <algorithm>
#include <stdexcept>

#include "base/clock.h"
#include "lab/merge.h"
#include "results/ids.h"
#include "usecase/documents.h"
#include "workload/parse.h"

namespace ssdlab::usecase {

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

Status MpiClients::AgreeOnTarget(const Status& ready, const std::string& target,
                                 uint64_t size_bytes) {
  agreed_ = true;
  const json mine = {
      {"error", ready.ok() ? "" : ready.message()}, {"target", target}, {"bytes", size_bytes}};
  std::vector<json> all;
  for (const std::string& s : world_->AllGather(mine.dump())) all.push_back(json::parse(s));
  for (int r = 0; r < size(); ++r) {
    const std::string error = all[r]["error"].get<std::string>();
    if (!error.empty())
      return Status::Error(r == rank() ? ready.code() : Code::kIoError,
                           "rank " + std::to_string(r) + ": " + error);
  }
  const uint64_t first = all[0]["bytes"].get<uint64_t>();
  for (int r = 1; r < size(); ++r)
    if (all[r]["bytes"].get<uint64_t>() != first)
      return Status::Invalid(
          "--mpi: rank " + std::to_string(r) + "'s target " + all[r]["target"].get<std::string>() +
          " is " + std::to_string(all[r]["bytes"].get<uint64_t>()) + " bytes, rank 0's " +
          all[0]["target"].get<std::string>() + " " + std::to_string(first) +
          " bytes; the clients of one load need targets of one size (give --size)");
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
  json j = WorkloadJson(s);  // every field, by name, as a run's JSON shows it; and one more
  j["verify_unit_bytes"] = s.verify_unit_bytes;
  return j;
}

namespace {

// The index of `name` in `names`; throws when it is none of them.
template <size_t N>
int IndexOf(const char* const (&names)[N], const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<int>(i);
  throw std::invalid_argument("unknown name '" + name + "'");
}

}  // namespace

Result<WorkloadSpec> SpecFromWire(const json& j) {
  static const char* const kPattern[] = {"sequential", "random"};
  static const char* const kData[] = {"random", "zero", "compressible", "dedupe"};
  WorkloadSpec s;
  try {
    s.pattern = static_cast<Pattern>(IndexOf(kPattern, j.at("pattern").get<std::string>()));
    s.read_pct = j.at("read_pct").get<double>();
    s.trim = j.at("trim").get<bool>();
    s.block_sizes.clear();
    for (const json& b : j.at("block_sizes"))
      s.block_sizes.push_back({b.at("bytes").get<uint64_t>(), b.at("pct").get<double>()});
    s.queue_depth = j.at("queue_depth").get<uint32_t>();
    s.jobs = j.at("jobs").get<uint32_t>();
    s.runtime_ns = j.at("runtime_ns").get<uint64_t>();
    s.io_bytes = j.at("io_bytes").get<uint64_t>();
    s.ramp_ns = j.at("ramp_ns").get<uint64_t>();
    s.ramp_bytes = j.at("ramp_bytes").get<uint64_t>();
    s.range_begin_bytes = j.at("range_begin_bytes").get<uint64_t>();
    s.range_end_bytes = j.at("range_end_bytes").get<uint64_t>();
    const json& d = j.at("distribution");
    const std::string dist = d.at("kind").get<std::string>();
    if (!DistKindFromName(dist, &s.dist.kind))
      throw std::invalid_argument("unknown name '" + dist + "'");
    s.dist.param = d.at("param").get<double>();
    for (const json& z : d.at("zones"))
      s.dist.zones.push_back({z.at("access_pct").get<double>(), z.at("range_pct").get<double>()});
    s.rate_iops = j.at("rate_iops").get<double>();
    s.data = {static_cast<DataKind>(IndexOf(kData, j.at("data").at("kind").get<std::string>())),
              j.at("data").at("pct").get<double>()};
    if (!results::IdFromJson(j.at("seed"), s.seed))
      return Status::Invalid("a phase's workload has the wrong shape: seed " + j["seed"].dump());
    s.verify = j.at("verify").get<bool>();
    s.verify_unit_bytes = j.at("verify_unit_bytes").get<uint64_t>();
    s.interval_ns = j.at("interval_ns").get<uint64_t>();
  } catch (const std::exception& e) {  // json's accessors' and IndexOf's
    return Status::Invalid(std::string("a phase's workload has the wrong shape: ") + e.what());
  }
  return s;
}

}  // namespace ssdlab::usecase
