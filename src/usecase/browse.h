// The `ls` and `show` use cases: the runs of a results database, each with its target or why it
// cannot be read, and one run's document with each test's headline figures.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/run_context.h"

namespace ssdlab::usecase {

struct ListedRun {
  std::string name, kind, status, created_at;
  std::optional<std::string> target;  // none when the run's context is damaged
  std::string damage;                 // "" for a readable run, else why it is not
};

// The runs of database `db` (opened read-only), oldest first.
Result<std::vector<ListedRun>> ListRuns(const std::string& db);
// `ls --json`: the runs as one JSON array, each {"name", "kind", "status", "created_at",
// "target", "damage"}: target null when unknown, damage null for a readable run.
nlohmann::json ListedRunsJson(const std::vector<ListedRun>& runs);

struct ShownRun {
  nlohmann::json doc;  // the run document (Store::RunJson)
  // Its context read (results/run_context.h); an error names the run and the key when damaged.
  Result<results::RunContext> context = Status::Ok();
};

// Run `name` of database `db`. Errors: the database cannot be opened, no such run (NotFound).
Result<ShownRun> ShowRun(const std::string& db, const std::string& name);

// `doc` with each test's headline figures beside its results ("headlines": report/report.h
// HeadlinesJson, a list, empty when the test has none); a test that is not an object is left.
nlohmann::json WithHeadlines(nlohmann::json doc);

// The names of the run's finished tests that required steady state and ended without it (the
// round limit first; not WSAT's own end: results::MissedSteadyState). A damaged test counts.
std::vector<std::string> TestsWithoutSteadyState(const nlohmann::json& doc);

}  // namespace ssdlab::usecase
