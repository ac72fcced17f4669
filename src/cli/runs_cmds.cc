// `ssdlab ls` and `ssdlab show`: the runs of a results database, and one run's verdicts.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "base/units.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/verdicts.h"
#include "report/report.h"
#include "results/steady_state.h"
#include "usecase/browse.h"

namespace ssdlab {

using nlohmann::json;

// One-line verdicts of a run's tests with their headline figures; Invalid naming the run's test and
// key when the document is damaged (nothing of that test printed).
Status PrintVerdicts(const json& doc, std::ostream& out, bool json_lines) {
  auto text = [](const json& j, const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                  : std::string();
  };
  const json& tests = doc.is_object() && doc.contains("tests") ? doc["tests"] : json::array();
  if (!tests.is_array()) return Status::Invalid("the run document's tests are not a list");
  for (const json& t : tests) {
    if (!t.is_object()) return Status::Invalid("a test of the run document is not an object");
    const std::string name = text(t, "name"), status = text(t, "status");
    static const json kNone;
    auto ss = results::SteadyStateFromJson(t.contains("steady_state") ? t["steady_state"] : kNone);
    if (!ss.ok()) return ss.status().WithContext("test '" + name + "'");
    std::string verdict = "no steady-state requirement";
    const json& r = t.contains("results") ? t["results"] : kNone;
    if (r.is_object() && r.contains("tps")) {  // an application test (ssdlab app)
      const json lat = r.contains("latency_ms") && r["latency_ms"].is_object() ? r["latency_ms"]
                                                                               : json::object();
      const json p99 = lat.contains("p99") ? lat["p99"] : json();
      verdict =
          fmt::format("{:.1f} TPS, p99 {}{}", r["tps"].is_number() ? r["tps"].get<double>() : 0,
                      p99.is_number() ? fmt::format("{:.2f} ms", p99.get<double>()) : "-",
                      text(r, "error").empty() ? "" : ", " + text(r, "error"));
    } else if (status != "done") {
      size_t measured = 0;  // the purge and preconditioning steps are stored as rounds too
      for (const json& rd : t.value("rounds", json::array())) {
        const json& tracking = rd.is_object() ? rd.value("tracking", json()) : json();
        measured += !(tracking.is_object() && tracking.contains("purge_method"));
      }
      verdict = fmt::format("unfinished: {} rounds stored (continue with --resume)", measured);
    } else if (ss->required) {
      verdict = results::VerdictLine(*ss);  // with the evidence stored in the verdict
    }
    const std::vector<HeadlineFigure> figures =
        status == "done" ? HeadlineFigures(t) : std::vector<HeadlineFigure>{};
    if (json_lines) {
      out << json{{"stage", "verdict"},
                  {"test", name},
                  {"status", status},
                  {"verdict", verdict},
                  {"headlines", HeadlinesJson(figures)}}
                 .dump(-1, ' ', false, json::error_handler_t::replace)
          << "\n";
      continue;
    }
    out << fmt::format("  {:<6} {:<8} {}\n", name, status, verdict);
    for (const HeadlineFigure& f : figures)
      out << fmt::format("  {:<6} {:<8} {}: {} (steady-state mean, rounds within {:.1f}%)\n", "",
                         "", f.cell, HeadlineValue(f), f.spread_pct);
  }
  return Status::Ok();
}

void AddRunsCommands(CLI::App& app, int* exit_code) {
  auto db = std::make_shared<std::string>();
  auto ls_json = std::make_shared<bool>(false);
  CLI::App* ls = app.add_subcommand("ls", "List the runs in a results database");
  ls->add_option("--db", *db, "Results database")->required();
  ls->add_flag("--json", *ls_json,
               "Print the runs as one JSON array (name, kind, status, created_at, target, damage; "
               "null where none)");
  ls->callback([db, ls_json, exit_code] {
    auto runs = usecase::ListRuns(*db);
    if (!runs.ok()) {
      *exit_code = Fail(runs.status());
      return;
    }
    if (*ls_json) {
      std::cout << usecase::ListedRunsJson(*runs).dump(1) << "\n";
      *exit_code = kExitOk;
      return;
    }
    std::cout << fmt::format("{:<28} {:<8} {:<12} {:<22} {}\n", "run", "kind", "status", "created",
                             "target");
    for (const usecase::ListedRun& r : *runs) {
      std::cout << fmt::format("{:<28} {:<8} {:<12} {:<22} {}\n", r.name, r.kind,
                               r.damage.empty() ? r.status : "DAMAGED", r.created_at,
                               r.damage.empty() ? *r.target : r.damage);
    }
    *exit_code = kExitOk;
  });

  auto show_db = std::make_shared<std::string>();
  auto show_name = std::make_shared<std::string>();
  auto show_json = std::make_shared<bool>(false);
  CLI::App* show = app.add_subcommand(
      "show", "Show one run with its steady-state verdicts and headline figures");
  show->add_option("name", *show_name, "Run name")->required();
  show->add_option("--db", *show_db, "Results database")->required();
  show->add_flag("--json", *show_json,
                 "Print the whole run as JSON, each test with its headline figures (headlines)");
  show->callback([show_db, show_name, show_json, exit_code] {
    auto run = usecase::ShowRun(*show_db, *show_name);
    if (!run.ok()) {
      *exit_code = Fail(run.status());
      return;
    }
    if (*show_json) {
      std::cout << usecase::WithHeadlines(std::move(run->doc)).dump(1) << "\n";
      *exit_code = kExitOk;
      return;
    }
    if (!run->context.ok()) {
      *exit_code = Fail(run->context.status());
      return;
    }
    const results::RunContext& c = *run->context;
    std::cout << fmt::format("run {} ({}), {} .. {}\ntarget {}\n", c.run, c.status, c.created_at,
                             c.finished_at, c.target_path);
    if (Status v = PrintVerdicts(run->doc, std::cout); !v.ok()) {
      *exit_code = Fail(v.WithContext("run '" + *show_name + "'"));
      return;
    }
    *exit_code = kExitOk;
  });
}

}  // namespace ssdlab
