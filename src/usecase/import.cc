// The `import` use case (usecase/import.h).
#include "usecase/import.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/units.h"
#include "store/store.h"
#include "twin/import.h"
#include "usecase/paths.h"

namespace ssdlab::usecase {

Result<ImportOutcome> Import(const ImportRequest& a) {
  std::ifstream in(a.file, std::ios::binary);
  if (!in)
    return Status::NotFound("import: cannot read " + a.file +
                            (std::filesystem::exists(a.file) ? "" : ": no such file"));
  std::stringstream buf;
  buf << in.rdbuf();
  std::string format = a.format;
  if (format.empty()) {
    const std::string ext = std::filesystem::path(a.file).extension().string();
    format = ext == ".csv" ? "csv" : ext == ".json" ? "fio" : "";
    if (format.empty())
      return Status::Invalid("import: cannot tell the format of " + a.file +
                             " from its name; give --format csv or --format fio");
  }
  if (format != "csv" && format != "fio")
    return Status::Invalid("import: --format '" + format + "': expected csv or fio");
  if (a.iops_state != "steady" && a.iops_state != "fresh")
    return Status::Invalid("import: --iops-state '" + a.iops_state + "': expected steady or fresh");
  auto tests = format == "csv" ? twin::ParseFiguresCsv(buf.str(), a.file)
                               : twin::ParseFioJson(buf.str(), a.file);
  if (!tests.ok()) return tests.status();
  uint64_t capacity = 0;
  if (!a.capacity.empty()) {
    auto c = ParseBytes(a.capacity);
    if (!c.ok()) return Status::Invalid("--capacity: " + c.status().message());
    capacity = c.value();
  }
  PathRegistry paths = CommandPaths();
  paths.AddInput("FILE " + a.file, a.file);
  AddDatabasePath(paths, "--db", a.db, true);
  if (Status s = paths.Check(); !s.ok()) return s;
  auto store = Store::Open(a.db, Store::Mode::kCreate);
  if (!store.ok()) return store.status();
  if (store.value()->FindRun(a.run).ok())
    return Status::Invalid("import: run '" + a.run + "' already exists in " + a.db);
  TargetInfo t;
  t.path = "imported:" + a.file;
  t.kind = "imported";
  t.size_bytes = capacity;
  t.model = a.model;
  nlohmann::json config = {{"imported_from", a.file},
                           {"format", format},
                           {"capacity_bytes", capacity},
                           {"iops_state", a.iops_state}};
  // What the file says of its run, and nothing else: fio's version, time and global options.
  nlohmann::json context = {
      {"imported", true},
      {"target",
       {{"path", t.path}, {"kind", t.kind}, {"size_bytes", capacity}, {"model", a.model}}}};
  if (format == "fio") {
    SSDLAB_ASSIGN_OR_RETURN(nlohmann::json fio, twin::FioProvenance(buf.str()));
    context["fio"] = fio;
    config["fio"] = fio;
    if (fio.contains("version")) {
      context["tool"] = "fio";
      context["tool_version"] = fio["version"];
    }
  }
  // The run is stored whole or not at all (a failure or a kill leaves nothing of it).
  auto tx = Store::Transaction::Begin(**store);
  if (!tx.ok()) return tx.status();
  auto id = store.value()->CreateRun(a.run, "imported", config, context, t);
  if (!id.ok()) return id.status();
  size_t cells = 0;
  for (size_t i = 0; i < tests->size(); ++i) {
    const twin::ImportedTest& test = (*tests)[i];
    auto tid = store.value()->BeginTest(id.value(), static_cast<int>(i + 1), test.name,
                                        {{"imported", true}});
    if (!tid.ok()) return tid.status();
    nlohmann::json results = test.results;
    results["rounds"] = nlohmann::json::array();
    if (Status s = store.value()->FinishTest(tid.value(), nlohmann::json::object(), results);
        !s.ok())
      return s;
    cells += test.results["imported_cells"].size();
  }
  if (Status s = store.value()->SetRunStatus(id.value(), "done"); !s.ok()) return s;
  if (Status s = tx->Commit(); !s.ok()) return s;
  return ImportOutcome{cells, tests->size()};
}

}  // namespace ssdlab::usecase
