#include "usecase/fleet.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/path_registry.h"
#include "base/secrets.h"
#include "base/thread.h"
#include "lab/mpi.h"
#include "results/run_context.h"
#include "results/steady_state.h"
#include "store/store.h"
#include "usecase/paths.h"
#include "usecase/runs.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

// Rank -> target from a map file; Invalid naming the line on a malformed one.
Result<std::map<int, std::string>> ReadTargetMap(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--target-map " + path + ": cannot read it");
  std::map<int, std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream ss(line);
    std::string rank, target, extra;
    if (!(ss >> rank)) continue;
    char* end = nullptr;
    long r = std::strtol(rank.c_str(), &end, 10);
    if (!(ss >> target) || (ss >> extra) || *end || r < 0)
      return Status::Invalid(fmt::format("--target-map {}:{}: expected 'RANK TARGET'", path, n));
    if (!out.emplace(static_cast<int>(r), target).second)
      return Status::Invalid(fmt::format("--target-map {}:{}: rank {} twice", path, n, r));
  }
  return out;
}

// One row of the fleet's progress table, from the store.
std::string RowOf(Store& s, const RunRecord& r) {
  std::string test = "-", round = "-";
  int reached = 0, done = 0;
  auto tests = s.ListTests(r.id);
  if (tests.ok()) {
    for (const TestRecord& t : *tests) {
      if (t.status == "done") {
        ++done;
        auto ss = results::SteadyStateFromJson(t.steady_state);
        reached += ss.ok() && ss->reached;
        continue;
      }
      test = t.name;
      auto rounds = s.LoadRounds(t.id);
      if (rounds.ok()) round = std::to_string(rounds->size());
    }
  }
  auto c = results::RunContextFromJson(r.context, "context");
  std::string host = c.ok() ? c->host : "?";
  std::string drive = c.ok() ? c->target_path : c.status().message();
  std::string rank = r.name.substr(r.name.rfind("-r") + 2);
  return fmt::format("{:>4}  {:<12} {:<28} {:<9} {:>5}  {} of {} done tests in steady state  {}",
                     rank, host.substr(0, 12), drive.substr(0, 28), test, round, reached, done,
                     r.status);
}

// Rank 0's live table: polls the store while the fleet runs; prints it when it changes.
class FleetTable {
 public:
  FleetTable(const FleetOptions& o, std::string fleet, Console& console)
      : o_(o), fleet_(std::move(fleet)), console_(console) {
    auto t = StartThread([this] { Loop(); }, "the live fleet table's thread");
    if (t.ok())
      thread_ = std::move(t).value();
    else
      console_.Note("ssdlab: note: no live fleet table: " + t.status().message());
  }
  ~FleetTable() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    std::string last;
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) {
      cv_.wait_for(l, std::chrono::duration<double>(o_.table_interval_s));
      if (stop_) break;
      auto s = Store::Open(o_.db, Store::Mode::kReadOnly);
      if (!s.ok()) continue;  // not created yet
      std::string table;
      for (const RunRecord& r : (*s)->ListRuns())
        if (r.fleet == fleet_) table += RowOf(**s, r) + "\n";
      if (table != last && !table.empty()) {
        console_.Note(fmt::format("fleet {}:\n{:>4}  {:<12} {:<28} {:<9} {:>5}  steady state\n{}",
                                  fleet_, "rank", "host", "drive", "test", "round", table));
        last = table;
      }
    }
  }
  const FleetOptions& o_;
  std::string fleet_;
  Console& console_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The comparison report of the fleet's stored runs (rank 0, at the end); an exit status.
int WriteFleetReport(const FleetOptions& o, const std::string& fleet,
                     const std::vector<std::string>& ranks, Console& console) {
  auto s = Store::Open(o.db, Store::Mode::kReadOnly);
  if (!s.ok()) return console.Fail(s.status().WithContext("--report"));
  std::vector<std::string> runs, missing;
  for (const std::string& r : ranks) {
    const std::string run = json::parse(r)["run"].get<std::string>();
    if ((*s)->FindRun(run).ok())
      runs.push_back(run);
    else
      missing.push_back(run);
  }
  s->reset();
  if (!missing.empty())
    console.Note(fmt::format("fleet {}: the report leaves out {} (never stored)", fleet,
                             fmt::join(missing, ", ")));
  if (runs.empty())
    return console.Fail(Status::NotFound("--report: no run of fleet " + fleet + " is stored"));
  return o.write_report(runs, "fleet " + fleet);
}

// Refuses, on every rank alike (collective), a fleet in which two ranks would write one file:
// each rank's target (a file or block device) or its simulated drive's state files, compared
// by host and FileIdentity (symlinks, hard links and spellings of a missing file meet).
// `runs`: this rank runs a battery (it has a target and its run is not done).
Status CheckRanksShareNoFile(MpiWorld& w, const FleetOptions& o, const FleetRank& me, bool runs) {
  const std::string flag = o.target_map.empty() ? "--target" : "target (--target-map)";
  json mine = json::array();
  if (runs) {
    auto files = TargetWrittenFiles(flag, me.target);
    if (files.ok()) {  // a malformed target is the rank's own error, later
      for (const WrittenFile& f : *files)
        mine.push_back({{"id", me.host + " " + FileIdentity(f.path)}, {"what", f.what}});
    }
  }
  const std::vector<std::string> all = w.AllGather(mine.dump());
  std::map<std::string, std::pair<size_t, std::string>> seen;  // id -> rank, what
  for (size_t r = 0; r < all.size(); ++r) {
    for (const json& f : json::parse(all[r])) {
      const std::string id = f["id"].get<std::string>(), what = f["what"].get<std::string>();
      auto [it, fresh] = seen.emplace(id, std::make_pair(r, what));
      if (!fresh)
        return Status::Invalid(fmt::format(
            "rank {}'s {} is the same file as rank {}'s {} (on host {}); refusing to run two "
            "batteries on one file: give every rank its own drive",
            r, what, it->second.first, it->second.second, id.substr(0, id.find(' '))));
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsFleetRun(const FleetOptions& o) {
  return StartedByMpirun() && (!o.target_map.empty() || HasRankPattern(o.target));
}

int RunFleet(const FleetOptions& o, const std::function<int(const FleetRank&)>& run_one,
             Console& console) {
  auto world = MpiWorld::Get();
  if (!world.ok()) return console.Fail(world.status());
  MpiWorld& w = **world;
  FleetRank me;
  me.rank = w.rank();
  me.host = w.host();
  // Every rank must agree on the fleet's name (a default one carries rank 0's clock).
  me.fleet = w.Broadcast(!o.resume.empty() ? o.resume
                         : !o.name.empty() ? o.name
                                           : DefaultRunName("fleet"));
  me.run = me.fleet + "-r" + std::to_string(me.rank);
  Status ready;
  if (!o.target_map.empty()) {
    auto map = ReadTargetMap(o.target_map);
    if (!map.ok()) {
      ready = map.status();
    } else if (!map->count(me.rank)) {
      ready = Status::Invalid(
          fmt::format("--target-map {} has no line for rank {}", o.target_map, me.rank));
    } else {
      me.target = ExpandRankPattern(map->at(me.rank), me.rank, me.host);
    }
  } else {
    me.target = ExpandRankPattern(o.target, me.rank, me.host);
  }
  bool skip = false;
  if (ready.ok() && !o.resume.empty()) {
    auto s = Store::Open(o.db, Store::Mode::kReadOnly);
    if (!s.ok()) {
      ready = s.status();
    } else if (auto run = (*s)->FindRun(me.run); run.ok()) {
      skip = run->status == "done";
      me.resume = !skip;
    } else if (run.status().code() != Code::kNotFound) {
      ready = run.status();
    }  // else: this rank never stored its run (it failed at once): it starts it now
  }
  if (Status s = CheckRanksShareNoFile(w, o, me, ready.ok() && !skip); !s.ok() && ready.ok())
    ready = s;
  if (w.rank() == 0)
    console.Note(fmt::format("ssdlab pts: fleet '{}' of {} ranks into {}{}", me.fleet, w.size(),
                             MaskSecrets(o.db), o.resume.empty() ? "" : " (resumed)"));
  int code = kExitOk;
  std::string error;
  {
    std::optional<FleetTable> table;
    if (w.rank() == 0) table.emplace(o, me.fleet, console);
    if (!ready.ok()) {
      code = console.Fail(ready);
      error = ready.message();
    } else if (skip) {
      error = "already done";
    } else {
      code = run_one(me);
      if (code != kExitOk) error = console.LastError();
    }
    // Ranks wait here for the whole fleet (polling, not spinning).
    json mine = {{"rank", me.rank}, {"host", me.host}, {"target", me.target},
                 {"run", me.run},   {"code", code},    {"error", error}};
    std::vector<std::string> all = w.Gather(mine.dump());
    if (w.rank() != 0) return code;
    table.reset();
    std::string summary = fmt::format("fleet {}: {} ranks\n{:>4}  {:<12} {:<28} {:<24} {}\n",
                                      me.fleet, w.size(), "rank", "host", "drive", "run", "result");
    int worst = kExitOk;
    int failed = 0;
    for (const std::string& s : all) {
      json r = json::parse(s);
      int c = r["code"].get<int>();
      if (c != kExitOk) ++failed;
      if (c > worst) worst = c;
      std::string result =
          c == kExitOk
              ? (r["error"].get<std::string>().empty() ? "ok" : r["error"].get<std::string>())
              : fmt::format("FAILED (exit {}): {}", c, r["error"].get<std::string>());
      summary += fmt::format("{:>4}  {:<12} {:<28} {:<24} {}\n", r["rank"].get<int>(),
                             r["host"].get<std::string>().substr(0, 12),
                             r["target"].get<std::string>().substr(0, 28),
                             r["run"].get<std::string>(), result);
    }
    console.Note(summary);
    if (failed)
      console.Note(
          fmt::format("fleet {}: {} of {} ranks failed; the others' runs are stored; continue with "
                      "--resume {}",
                      me.fleet, failed, w.size(), me.fleet));
    if (!o.report.empty()) worst = std::max(worst, WriteFleetReport(o, me.fleet, all, console));
    return worst;
  }
}

}  // namespace ssdlab::usecase
