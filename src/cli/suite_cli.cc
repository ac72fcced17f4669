#include "cli/suite_cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <iostream>

#include "base/clock.h"
#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "usecase/pts.h"

namespace ssdlab {

using nlohmann::json;

void CliProgress::OnEvent(const ProgressEvent& e) {
  if (json_) {
    // "None" is null: no cell, no message, no steady-state distance or ETA yet (the event's -1).
    auto text = [](const std::string& s) { return s.empty() ? json() : json(s); };
    auto known = [](double v) { return v < 0 ? json() : json(v); };
    const bool measured = e.iops > 0 || e.mean_ns > 0;
    const bool a_round = e.round > 0 || e.max_rounds > 0;
    auto if_so = [](bool so, auto v) { return so ? json(v) : json(); };
    json j = {{"test", e.test},
              {"stage", e.stage},
              {"round", if_so(a_round, e.round)},
              {"max_rounds", if_so(a_round, e.max_rounds)},
              {"cell", text(e.cell)},
              {"iops", if_so(measured, e.iops)},
              {"mean_ns", if_so(measured, e.mean_ns)},
              {"p99_ns", if_so(measured, e.p99_ns)},
              {"steady_distance_pct", known(e.steady_distance_pct)},
              {"eta_test_s", known(e.eta_test_s)},
              {"eta_battery_s", known(e.eta_battery_s)},
              {"message", text(e.message)},
              {"t_s", UnixTimeS()}};
    std::cerr << j.dump() << "\n" << std::flush;
    return;
  }
  if (e.stage == "done") {
    Done();
    std::cerr << fmt::format("{}: {}\n", e.test, e.message) << std::flush;
    return;
  }
  std::string line = fmt::format("{} {}", e.test, e.stage);
  if (e.max_rounds) line += fmt::format(" {}/{}", e.round, e.max_rounds);
  if (!e.cell.empty()) line += " " + e.cell;
  if (e.iops > 0)
    line += fmt::format("  {:.0f} IOPS mean {} p99 {}", e.iops, FormatNs(e.mean_ns),
                        FormatNs(e.p99_ns));
  if (e.steady_distance_pct >= 0)
    line += fmt::format("  steady-state distance {:.1f}%", e.steady_distance_pct);
  if (e.eta_test_s >= 0) line += fmt::format("  ETA {:.0f}s", e.eta_test_s);
  if (e.eta_battery_s >= 0) line += fmt::format(" (battery {:.0f}s)", e.eta_battery_s);
  if (!e.message.empty()) line += "  " + e.message;
  if (tty_) {
    std::cerr << "\r" << line.substr(0, 160) << "\x1b[K" << std::flush;
  } else if (e.stage != "round" || e.cell.empty()) {
    std::cerr << line << "\n";  // not a terminal: one line per round, not per cell
  }
}

void CliProgress::Done() {
  if (tty_ && !json_) std::cerr << "\r\x1b[K" << std::flush;
}

std::unique_ptr<CliProgress> MakeProgress(const std::string& mode) {
  if (mode == "none") return nullptr;
  return std::make_unique<CliProgress>(mode == "json", isatty(STDERR_FILENO) && mode != "json");
}

std::vector<std::string> GivenOptions(const CLI::App* cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : cmd->get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    out.push_back("--" + opt->get_lnames().front());
  }
  return out;
}

void AddStoredRunOptions(CLI::App* cmd, std::string* db, std::string* run,
                         const std::string& run_help, std::string* json_path,
                         std::string* progress) {
  cmd->add_option("--db", *db, "Results database (SQLite), created if missing")->required();
  cmd->add_option("--run", *run, run_help);
  cmd->add_option("--json", *json_path, "Write the run as JSON to FILE (- for stdout)");
  cmd->add_option("--progress", *progress,
                  "auto|json|none: status line, JSON lines on stderr, or quiet")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "json", "none"}));
}

Status PrintStoredRun(const std::string& run, const std::string& db, Status st,
                      const Result<json>& doc, const std::string& json_path,
                      const std::function<void(const json& doc)>& print) {
  if (JsonLinesOnStderr()) {
    std::cerr << json{{"stage", "end"},
                      {"run", run},
                      {"status", usecase::RunStatusName(st)},
                      {"database", MaskSecrets(db)}}
                     .dump(-1, ' ', false, json::error_handler_t::replace)
              << "\n";
  } else {
    std::cerr << fmt::format("run '{}' {} (database {})\n", run, usecase::RunStatusName(st),
                             MaskSecrets(db));
  }
  if (doc.ok()) print(doc.value());
  if (!json_path.empty()) {
    Status w = doc.ok() ? WriteJsonOutput(json_path, doc.value()) : doc.status();
    if (!w.ok()) {
      if (st.ok()) return w;
      PrintError(w.message());
    }
  }
  return st;
}

Status FinishStoredRun(Store& store, int64_t run_id, const std::string& run, const std::string& db,
                       const Status& st, const std::string& json_path,
                       const std::function<void(const json& doc)>& print) {
  auto doc = usecase::EndStoredRun(store, run_id, run, st, CliConsole());
  return PrintStoredRun(run, db, st, doc, json_path, print);
}

}  // namespace ssdlab
