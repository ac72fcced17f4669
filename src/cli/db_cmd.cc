// `ssdlab db copy`: moves stored runs between results stores (an SQLite file and a PostgreSQL
// database, either way, or two of a kind).
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "store/copy.h"
#include "store/store.h"
#include "usecase/paths.h"

namespace ssdlab {
namespace {

struct CopyArgs {
  std::string from, to;
  std::vector<std::string> runs;  // empty: every run of --from
  std::string as;                 // the copy's name (one --run only); empty: the same name
};

int RunCopy(const CopyArgs& a) {
  if (a.from == a.to) return Fail(Status::Invalid("--from and --to are the same store"));
  if (!a.as.empty() && a.runs.size() != 1)
    return Fail(Status::Invalid("--as names the copy of one run: give exactly one --run"));
  PathRegistry paths = usecase::CommandPaths();
  usecase::AddDatabasePath(paths, "--from", a.from, false);
  usecase::AddDatabasePath(paths, "--to", a.to, true);
  if (Status s = paths.Check(); !s.ok()) return Fail(s);
  // --from is opened for writing only to take each run's lock while it is copied (a run being
  // written is not copied half-way); nothing in it changes.
  auto from = Store::Open(a.from, Store::Mode::kExisting);
  if (!from.ok()) return Fail(from.status().WithContext("--from"));
  auto to = Store::Open(a.to, Store::Mode::kCreate);
  if (!to.ok()) return Fail(to.status().WithContext("--to"));
  std::vector<std::string> names = a.runs;
  size_t damaged = 0, asked = names.size();
  Status first;
  auto failed = [&](const std::string& name, const Status& s) {
    PrintError("run '" + name + "': " + s.message() + "; not copied");
    if (first.ok()) first = s;
  };
  if (names.empty()) {
    const std::vector<RunRecord> all = (*from)->ListRuns();
    asked = all.size();
    for (const RunRecord& r : all) {
      if (r.damage.empty()) {
        names.push_back(r.name);
        continue;
      }
      ++damaged;
      failed(r.name, Status::Io("--from: damaged record of the run: " + r.damage));
    }
  }
  size_t copied = 0;
  for (const std::string& name : names) {
    CopyResult c = CopyRun(**from, **to, name, a.as);
    if (c.status.ok()) {
      ++copied;
      std::cout << "copied " << name << (a.as.empty() ? "" : " as " + a.as) << "\n";
      continue;
    }
    if (c.damaged) ++damaged;
    failed(name, c.status);
  }
  std::cout << fmt::format("{} of {} runs copied", copied, asked);
  if (damaged) std::cout << fmt::format(", {} damaged skipped", damaged);
  std::cout << "\n";
  return first.ok() ? kExitOk : ExitCodeFor(first);
}

}  // namespace

void AddDbCommand(CLI::App& app, int* exit_code) {
  CLI::App* db = app.add_subcommand("db", "Results stores: copy runs between them");
  db->require_subcommand(1);
  auto a = std::make_shared<CopyArgs>();
  CLI::App* copy = db->add_subcommand(
      "copy", "Copy runs from one store to another (SQLite file or postgresql:// URL)");
  copy->add_option("--from", a->from, "Store to copy from")->required();
  copy->add_option("--to", a->to, "Store to copy into (created when missing)")->required();
  copy->add_option("--run", a->runs,
                   "Run to copy (repeatable; default: all). Each run is copied in one "
                   "transaction, whole or not at all; damaged runs are skipped and counted");
  copy->add_option("--as", a->as,
                   "Name of the copy (with one --run): how to copy a run into a store that "
                   "already has one of that name");
  copy->callback([a, exit_code] { *exit_code = RunCopy(*a); });
}

}  // namespace ssdlab
