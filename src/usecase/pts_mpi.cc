#include "usecase/pts_mpi.h"

#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/units.h"
#include "lab/mpi.h"
#include "suite/pts.h"
#include "usecase/mpi_clients.h"
#include "usecase/mpi_pts.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {

Result<std::unique_ptr<Backend>> OpenFollowerPtsTarget(const std::string& pattern, int rank,
                                                       const std::string& host,
                                                       uint64_t min_size_bytes, bool destructive,
                                                       const std::string& confirm) {
  const std::string target = ExpandRankPattern(pattern, rank, host);
  SSDLAB_ASSIGN_OR_RETURN(OpenedTarget t, OpenPtsTarget(target, destructive, confirm));
  if (t.backend->info().size_bytes < min_size_bytes)
    return Status::Invalid(fmt::format("{} ({}) is smaller than rank 0's target ({})", target,
                                       FormatBytes(t.backend->info().size_bytes),
                                       FormatBytes(min_size_bytes)));
  return std::move(t.backend);
}

namespace {

// Rank 0 of `pts --mpi` before the battery: the paths (the targets expanded for rank 0) checked
// before --clients-log is created, then --clients-log opened. Returns the exit status so far.
int PrepareMultiClientRank0(const MultiClientPtsRequest& r, const std::vector<std::string>& mine,
                            std::unique_ptr<std::ofstream>& log) {
  Console& console = *r.battery.console;
  if (!mine.empty()) {
    PtsRequest paths = r.battery;
    auto target = ComposeTarget(mine, r.layout, r.chunk);
    paths.target = target.ok() ? target.value() : "";
    if (Status s = CheckPtsPaths(paths); !s.ok()) return console.Fail(s);
  }
  if (!r.clients_log.empty()) {
    log = std::make_unique<std::ofstream>(r.clients_log);
    if (!*log)
      return console.Fail(Status::Io("--clients-log " + r.clients_log + ": cannot write it"));
  }
  return kExitOk;
}

}  // namespace

int RunMultiClientPts(const MultiClientPtsRequest& r) {
  Console& console = *r.battery.console;
  auto clients = MpiClients::Start();
  if (!clients.ok()) return console.Fail(clients.status());
  MpiClients& c = clients.value();
  auto pattern = ComposeTarget(r.targets, r.layout, r.chunk);
  if (c.rank() != 0) {
    auto open = [&](const std::string& from_rank0, uint64_t min_size) {
      return OpenFollowerPtsTarget(from_rank0, c.rank(), c.world().host(), min_size,
                                   r.battery.destructive, r.battery.confirm);
    };
    return FollowPhases(c, open, r.battery.stop, console);
  }
  std::vector<std::string> mine = r.targets;
  c.ExpandTargets(mine);
  std::unique_ptr<std::ofstream> log;
  int code = PrepareMultiClientRank0(r, mine, log);
  if (code == kExitOk) {
    PtsLaunch launch;
    launch.wrap = [&](std::unique_ptr<Backend> local, const nlohmann::json& stored,
                      nlohmann::json& context) -> Result<std::unique_ptr<Backend>> {
      MultiClientOptions o{r.range_per_rank, log.get()};
      std::string p = pattern.ok() ? pattern.value() : std::string();
      if (stored.contains("mpi")) {  // a resumed run keeps its targets and shares
        p = stored["mpi"].value("target_pattern", p);
        o.range_per_rank = stored["mpi"].value("range_per_rank", false);
      }
      SSDLAB_ASSIGN_OR_RETURN(auto b, MultiClientBackend::Connect(c, std::move(local), p, o));
      context["mpi"] = b->mpi();
      console.Note(fmt::format("ssdlab pts: {} clients (MPI ranks) on {}{}", c.size(), p,
                               o.range_per_rank ? ", a slice of the range each" : ""));
      return std::unique_ptr<Backend>(std::move(b));
    };
    code = r.run(mine, &launch);
  }
  EndFollowers(c, code);
  return code;
}

SpreadCommand PtsSpreadCommand(const PtsRanksRequest& r, int ranks) {
  auto options = std::make_shared<Result<PtsOptions>>(ResolvePtsOptions(r.battery.given.options));
  auto target = ComposeTarget(r.targets, r.layout, r.chunk);
  SpreadCommand c;
  // Bad options: rank 0 alone says what is wrong, as one process would.
  c.why_not = !options->ok() || !target.ok()
                  ? "bad options"
                  : WhyNotSpread(*target, (*options)->purge, !r.battery.given.resume.empty());
  if (c.why_not.empty())
    c.note = fmt::format("ssdlab pts: {} tests spread over {} ranks ({} simulated drives)",
                         (*options)->tests.size(), ranks, ranks);
  else if (options->ok() && target.ok())
    c.note =
        fmt::format("ssdlab pts: not spread over {} ranks ({}); rank 0 runs it", ranks, c.why_not);
  c.unit = SpreadUnit::kTests;
  if (options->ok()) c.tests = (*options)->tests;
  c.open = [options, target, destructive = r.battery.destructive,
            confirm = r.battery.confirm]() -> Result<std::unique_ptr<Backend>> {
    SSDLAB_ASSIGN_OR_RETURN(OpenedTarget t, OpenPtsTarget(target.value(), destructive, confirm));
    SSDLAB_RETURN_IF_ERROR(CheckPtsTarget(options->value(), t.backend->info()));
    return std::move(t.backend);
  };
  c.pass = [options, stop = r.battery.stop](Backend& b, RunJournal& j, TestHooks* h) {
    return ssdlab::RunPts(b, j, 1, options->value(), nullptr, stop, h);
  };
  c.run = [run = r.run, targets = r.targets](std::unique_ptr<Backend> opened) {
    PtsLaunch launch;
    launch.opened = std::move(opened);
    return run(targets, &launch);
  };
  return c;
}

int RunSpreadPts(const PtsRanksRequest& r) {
  Console& console = *r.battery.console;
  auto world = MpiWorld::Get();
  if (!world.ok()) return console.Fail(world.status());
  MpiWorld& w = **world;
  if (w.size() == 1) return r.run(r.targets, nullptr);
  return RunSpread(w, PtsSpreadCommand(r, w.size()), console);
}

}  // namespace ssdlab::usecase
