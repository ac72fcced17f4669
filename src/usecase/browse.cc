#include "usecase/browse.h"

#include "report/report.h"
#include "results/steady_state.h"
#include "store/store.h"

namespace ssdlab::usecase {

using nlohmann::json;

Result<std::vector<ListedRun>> ListRuns(const std::string& db) {
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(db, Store::Mode::kReadOnly));
  std::vector<ListedRun> out;
  for (const RunRecord& r : store->ListRuns()) {
    auto c = results::RunContextFromJson(r.context, "context");
    ListedRun l{r.name, r.kind, r.status, r.created_at};
    l.damage = !r.damage.empty() ? r.damage : c.ok() ? "" : c.status().message();
    if (c.ok()) l.target = c->target_path;
    out.push_back(std::move(l));
  }
  return out;
}

json ListedRunsJson(const std::vector<ListedRun>& runs) {
  json out = json::array();
  for (const ListedRun& r : runs) {
    out.push_back({{"name", r.name},
                   {"kind", r.kind},
                   {"status", r.status},
                   {"created_at", r.created_at},
                   {"target", r.target ? json(*r.target) : json()},
                   {"damage", r.damage.empty() ? json() : json(r.damage)}});
  }
  return out;
}

Result<ShownRun> ShowRun(const std::string& db, const std::string& name) {
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(db, Store::Mode::kReadOnly));
  ShownRun out;
  SSDLAB_ASSIGN_OR_RETURN(out.doc, store->RunJson(name));
  out.context = results::RunContextFromJson(out.doc.value("context", json()), "context");
  if (!out.context.ok()) out.context = out.context.status().WithContext("run '" + name + "'");
  return out;
}

json WithHeadlines(json doc) {
  if (!doc.is_object() || !doc.contains("tests") || !doc["tests"].is_array()) return doc;
  for (json& t : doc["tests"]) {
    if (t.is_object()) t["headlines"] = HeadlinesJson(HeadlineFigures(t));
  }
  return doc;
}

std::vector<std::string> TestsWithoutSteadyState(const json& doc) {
  std::vector<std::string> out;
  const json& tests = doc.is_object() && doc.contains("tests") ? doc["tests"] : json();
  if (!tests.is_array()) return out;
  for (const json& t : tests) {
    if (!t.is_object() || t.value("status", "") != "done") continue;
    auto ss = results::SteadyStateFromJson(t.value("steady_state", json()));
    if (!ss.ok() || results::MissedSteadyState(*ss)) out.push_back(t.value("name", "?"));
  }
  return out;
}

}  // namespace ssdlab::usecase
