// What every store shares: opening by kind, transactions as scopes, the run as one document.
#include "store/store.h"

#include "base/plugin.h"
#include "store/pg_plugin.h"
#include "store/sqlite_store.h"

namespace ssdlab {

using nlohmann::json;

Result<Store::Transaction> Store::Transaction::Begin(Store& store) {
  SSDLAB_RETURN_IF_ERROR(store.BeginWrites());
  return Transaction(&store);
}

Status Store::Transaction::Commit() {
  Store* s = store_;
  store_ = nullptr;
  return s->CommitWrites();
}

bool Store::IsUrl(const std::string& where) {
  return where.rfind("postgresql://", 0) == 0 || where.rfind("postgres://", 0) == 0;
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& where, Mode mode) {
  if (IsUrl(where)) {
    SSDLAB_ASSIGN_OR_RETURN(void* open, PluginSymbol(kPgPlugin, kPgOpenSymbol));
    return reinterpret_cast<PgOpenFn>(open)(where, mode);
  }
  return OpenSqliteStore(where, mode);
}

Result<json> Store::RunJson(const std::string& run_name) {
  SSDLAB_ASSIGN_OR_RETURN(RunRecord run, FindRun(run_name));
  auto stored_tests = ListTests(run.id);
  if (!stored_tests.ok()) return stored_tests.status().WithContext("run '" + run_name + "'");
  json doc;
  doc["schema_version"] = 1;
  json ctx = run.context;
  ctx["run"] = run.name;
  ctx["status"] = run.status;
  ctx["created_at"] = run.created_at;
  ctx["finished_at"] = run.finished_at;
  ctx["config"] = run.config;
  if (!run.fleet.empty()) ctx["fleet"] = run.fleet;
  doc["context"] = ctx;
  json tests = json::array();
  for (const TestRecord& t : stored_tests.value()) {
    if (t.status == "done" && !t.results.is_object())
      return Status::Io("run '" + run_name + "': the stored results of test " + t.name +
                        " are damaged (not a JSON object)");
    json rounds =
        t.results.is_object() && t.results.contains("rounds") ? t.results["rounds"] : json::array();
    if (rounds.empty()) {
      auto stored = LoadRounds(t.id);
      if (!stored.ok())
        return stored.status().WithContext("run '" + run_name + "', test " + t.name);
      for (const StoredRound& r : stored.value())
        rounds.push_back({{"round", r.round}, {"tracking", r.tracking}});
    }
    json results = t.results.is_object() ? t.results : json::object();
    results.erase("rounds");
    tests.push_back({{"name", t.name},
                     {"status", t.status},
                     {"steady_state", t.steady_state.is_null() ? json::object() : t.steady_state},
                     {"rounds", rounds},
                     {"results", results}});
  }
  doc["tests"] = tests;
  return doc;
}

}  // namespace ssdlab
