#include "usecase/mpi_pts.h"

#include "lab/merge.h"
#include "results/ids.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

// One phase on every rank: this rank's share, a start together, the gather (rank 0 gets the
// merged result and the clients' document).
Result<std::optional<MpiClients::Merged>> RunShare(MpiClients& c, Backend& local,
                                                   Result<WorkloadSpec> got, bool range_per_rank,
                                                   const std::atomic<bool>* stop) {
  WorkloadSpec spec = got.ok() ? got.value() : WorkloadSpec{};
  Status ready = got.ok() ? c.ShareWorkload(spec, range_per_rank) : got.status();
  SSDLAB_RETURN_IF_ERROR(c.StartTogether(ready));
  RunControl control;
  control.stop = stop;
  Result<PhaseResult> mine = local.RunPhase(spec, control);
  json about = {{"range_begin_bytes", spec.range_begin_bytes},
                {"range_end_bytes", spec.range_end_bytes},
                {"seed", results::IdJson(spec.seed)}};
  return c.Gather(mine, about);
}

// A purge on this rank when `purges`; then every rank learns whether all purges went well.
Result<std::string> PurgeShare(MpiClients& c, Backend* local, const std::string& method,
                               const std::atomic<bool>* stop) {
  Result<std::string> mine = std::string();
  if (local) {
    RunControl control;
    control.stop = stop;
    mine = local->Purge(method, control);
  }
  SSDLAB_RETURN_IF_ERROR(c.world().Agree(mine.status()));
  return mine;
}

Status IdleShare(MpiClients& c, Backend& local, uint64_t ns, const std::atomic<bool>* stop) {
  RunControl control;
  control.stop = stop;
  return c.world().Agree(local.Idle(ns, control));
}

}  // namespace

Result<std::unique_ptr<MultiClientBackend>> MultiClientBackend::Connect(
    MpiClients& c, std::unique_ptr<Backend> local, const std::string& pattern,
    const MultiClientOptions& o) {
  const TargetInfo info = local->info();
  c.world().Broadcast(json{
      {"op", "open"},
      {"pattern", pattern},
      {"rank0_target", info.path},
      {"range_per_rank", o.range_per_rank},
      {"size_bytes",
       info.size_bytes}}.dump());
  SSDLAB_RETURN_IF_ERROR(c.world().Agree(Status::Ok()));
  std::vector<std::string> targets = c.world().AllGather(info.path);
  std::vector<std::string> hosts = c.world().AllGather(c.world().host());
  std::unique_ptr<MultiClientBackend> b(new MultiClientBackend(c, std::move(local), o));
  b->mpi_ = {{"ranks", c.size()},
             {"target_pattern", pattern},
             {"targets", targets},
             {"hosts", hosts},
             {"range_per_rank", o.range_per_rank}};
  return b;
}

Result<PhaseResult> MultiClientBackend::RunPhase(const WorkloadSpec& spec,
                                                 const RunControl& control) {
  clients_.world().Broadcast(json{{"op", "phase"}, {"spec", SpecWire(spec)}}.dump());
  SSDLAB_ASSIGN_OR_RETURN(auto merged,
                          RunShare(clients_, *local_, spec, o_.range_per_rank, control.stop));
  if (o_.clients_log) *o_.clients_log << merged->mpi.dump() << "\n" << std::flush;
  return std::move(merged->aggregate);
}

Status MultiClientBackend::Idle(uint64_t ns, const RunControl& control) {
  clients_.world().Broadcast(json{{"op", "idle"}, {"ns", ns}}.dump());
  return IdleShare(clients_, *local_, ns, control.stop);
}

Result<std::string> MultiClientBackend::Purge(const std::string& method,
                                              const RunControl& control) {
  clients_.world().Broadcast(json{{"op", "purge"}, {"method", method}}.dump());
  return PurgeShare(clients_, local_.get(), method, control.stop);
}

int FollowPhases(MpiClients& c, const OpenFollowerTarget& open, const std::atomic<bool>* stop,
                 Console& console) {
  std::unique_ptr<Backend> local;
  bool purges = false, range_per_rank = false;
  for (;;) {
    json m = json::parse(c.world().Broadcast(""));
    const std::string op = m.value("op", "");
    if (op == "end") {
      const int code = m.value("code", kExitFailed);
      if (local) {  // the battery's outcome decides whether a state= is saved (EndTargetUse)
        const Status outcome = code == kExitOk ? Status::Ok()
                               : code == kExitInterrupted
                                   ? Status::Error(Code::kInterrupted, "interrupted")
                                   : Status::Error(Code::kInternal, "the battery failed");
        if (Status s = EndTargetUse(*local, outcome, console); !s.ok()) console.Fail(s);
      }
      return code;
    }
    if (op == "open") {
      const std::string pattern = m["pattern"].get<std::string>();
      range_per_rank = m["range_per_rank"].get<bool>();
      auto opened = open(pattern, m["size_bytes"].get<uint64_t>());
      if (opened.ok()) local = std::move(opened.value());
      if (!c.world().Agree(opened.status()).ok()) continue;  // rank 0 names it and ends
      c.world().AllGather(local->info().path);
      c.world().AllGather(c.world().host());
      // Not rank 0's target (a per-rank one, or a simulator: each rank's own drive): purged
      // here too.
      purges = IsSimTarget(pattern) || m["rank0_target"].get<std::string>() != local->info().path;
      continue;
    }
    if (!local) continue;  // cannot happen: rank 0 sends phases only after an open
    if (op == "phase") {
      // A rank that cannot run its share says so at the start; rank 0 names it.
      (void)RunShare(c, *local, SpecFromWire(m["spec"]), range_per_rank, stop);
    } else if (op == "idle") {
      (void)IdleShare(c, *local, m["ns"].get<uint64_t>(), stop);
    } else if (op == "purge") {
      (void)PurgeShare(c, purges ? local.get() : nullptr, m["method"].get<std::string>(), stop);
    }
  }
}

void EndFollowers(MpiClients& c, int code) {
  c.world().Broadcast(json{{"op", "end"}, {"code", code}}.dump());
}

}  // namespace ssdlab::usecase
