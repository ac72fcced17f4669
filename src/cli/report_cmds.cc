#include "cli/report_cmds.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "base/output_file.h"
#include "base/process.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "report/report.h"
#include "sim/preset_file.h"
#include "store/store.h"
#include "suite/pts.h"
#include "twin/fit.h"
#include "usecase/paths.h"
#include "usecase/twin_runs.h"
#include "usecase/version.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

// Opens an existing results database for reading; prints the error and returns null otherwise.
std::unique_ptr<Store> OpenDb(const std::string& db) {
  auto store = Store::Open(db, Store::Mode::kReadOnly);
  if (!store.ok()) {
    PrintError(store.status().message());
    return nullptr;
  }
  return std::move(store.value());
}

// Prints the problem of `paths` (cli/paths.h), if any; true when there is none.
bool CheckPaths(const PathRegistry& paths) {
  if (Status s = paths.Check(); !s.ok()) {
    PrintError(s.message());
    return false;
  }
  return true;
}

bool WriteFile(const std::string& flag, const std::string& path, const std::string& text) {
  if (Status s = WriteOutputFile(flag, path, text); !s.ok()) {
    PrintError(s.message());
    return false;
  }
  return true;
}

struct ReportArgs {
  std::vector<std::string> runs;
  std::string db, out, spec, title;
  std::string flag = "-o";
  std::string twin, twin_method = "auto";
  uint32_t twin_scale = 1;
  bool what_if = false;
  std::string units = "decimal";
  std::string pdf;  // --pdf FILE: also printed to PDF through a headless Chromium
};

// The headless Chromium that `report --pdf` prints with: the first of chromium,
// chromium-browser, google-chrome and google-chrome-stable in a directory of $PATH (PATH only:
// emptying it of them is how to say there is none); "" when none is.
std::string FindChromium() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (const char* name :
       {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      const std::string dir = dirs.substr(start, end - start);
      const std::string cand = dir + "/" + name;
      if (!dir.empty() && access(cand.c_str(), X_OK) == 0 && !fs::is_directory(cand)) return cand;
      start = end + 1;
    }
  }
  return "";
}

// Prints the report `html` (written) to `pdf` with `chromium` headless, after its charts are
// drawn (in virtual time, as the page reports when it is done), A4 by the page's print
// stylesheet, without the browser's header and footer. Chromium writes into a directory beside
// `pdf`, removed afterwards; the PDF is then written through base/output_file.h.
Status PrintPdf(const std::string& chromium, const std::string& html, const std::string& pdf) {
  const fs::path dest = fs::absolute(pdf);
  const fs::path work =
      dest.parent_path() / fmt::format(".{}.ssdlab-{}.d", dest.filename().string(), getpid());
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec)
    return Status::Io("--pdf " + pdf + ": cannot create " + work.string() + ": " + ec.message());
  std::vector<std::string> argv = {chromium,
                                   "--headless",
                                   "--disable-gpu",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-sync",
                                   "--disable-component-update",
                                   "--no-pdf-header-footer",
                                   "--virtual-time-budget=300000",
                                   "--user-data-dir=" + (work / "profile").string(),
                                   "--print-to-pdf=" + (work / "out.pdf").string()};
  if (geteuid() == 0) argv.push_back("--no-sandbox");  // Chromium refuses root otherwise
  argv.push_back("file://" + fs::absolute(html).string());
  auto run = RunProcess(argv, 600, "chromium");
  std::string bytes;
  if (run.ok() && run->exit_code == 0) {
    std::ifstream in(work / "out.pdf", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  fs::remove_all(work, ec);
  if (!run.ok()) return Status::Io("--pdf " + pdf + ": " + run.status().message());
  if (run->exit_code != 0 || bytes.rfind("%PDF", 0) != 0)
    return Status::Io(
        fmt::format("--pdf {}: {} printed no PDF (exit status {})", pdf, chromium, run->exit_code));
  return WriteOutputFile("--pdf", pdf, bytes);
}

// The twin's part of the report (--twin): figures measured vs simulated (exact: the run's tests
// re-run on the twin, whose run is returned in `twin_run` to stand beside the measured one;
// cheap: twin/simulate.h) and, with --what-if, the what-if runs.
Result<TwinReport> MakeTwinReport(const ReportArgs& a, const nlohmann::json& doc,
                                  std::optional<ReportRun>* twin_run) {
  SSDLAB_ASSIGN_OR_RETURN(std::string target, usecase::TwinTarget(a.twin, a.twin_scale));
  if (a.twin_method != "auto" && a.twin_method != "exact" && a.twin_method != "cheap")
    return Status::Invalid("--twin-method '" + a.twin_method + "': expected auto, exact or cheap");
  const bool exact =
      a.twin_method == "exact" || (a.twin_method == "auto" && usecase::HasPtsOptions(doc));
  TwinReport tr;
  tr.target = a.twin + (a.twin_scale > 1 ? fmt::format(" (at {}x its scale)", a.twin_scale) : "");
  nlohmann::json twin_doc;
  if (exact) {
    std::cerr << fmt::format("ssdlab report: re-running run {}'s tests on the twin\n", a.runs[0]);
    SSDLAB_ASSIGN_OR_RETURN(twin_doc, usecase::RerunOnTwin(doc, target, &StopFlag()));
    std::string tests;
    for (const auto& t : twin_doc["tests"])
      tests += (tests.empty() ? "" : ", ") + t.value("name", "");
    tr.method = "Exact: the run's own tests (" + tests +
                ") re-run with its stored options on the twin, through the suite (purge, "
                "preconditioning, rounds to steady state); the twin's run stands beside the "
                "measured one in the sections above.";
    *twin_run = ReportRun{"twin (" + a.twin + ")", twin_doc};
  } else {
    tr.method =
        "Cheap evaluator (the one sim fit uses): each cell a short window on a drive brought to "
        "its test's state, not the full test; it differs from the full tests by a few to ~25%.";
  }
  // A twin file's victim policies, as sim fit judged them (none in other preset files).
  if (const std::string path = sim::PresetFileOf(a.twin); !path.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::FitResult::PolicyFit> policies,
                            twin::VictimPoliciesOfTwinFile(path));
    for (twin::FitResult::PolicyFit& p : policies)
      tr.policies.push_back({p.gc, p.objective, std::move(p.held_out_errors)});
  }
  SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::FigureFit> fits,
                          usecase::CompareOnTwin(doc, target, twin_doc));
  for (const twin::FigureFit& f : fits)
    tr.figures.push_back(
        {f.figure.test, f.figure.Name(), f.figure.metric, f.figure.x, f.figure.value, f.simulated});
  if (a.what_if) {
    std::cerr << "ssdlab report: what-if runs on the twin (OP advisor, WSAT, RAID 10, RAID 5)\n";
    SSDLAB_ASSIGN_OR_RETURN(
        std::vector<usecase::WhatIfRun> runs,
        usecase::WhatIfRuns(target, usecase::WhatIfOptions{.stop = &StopFlag()}));
    for (usecase::WhatIfRun& w : runs)
      tr.what_if.push_back({w.role, ReportRun{w.label, std::move(w.doc)}});
  }
  return tr;
}

int RunReport(ReportArgs a) {
  a.spec = usecase::ClaimsFilePath(a.spec);
  PathRegistry paths = usecase::CommandPaths();
  usecase::AddDatabasePath(paths, "--db", a.db, false);
  paths.AddInput("--spec " + a.spec, a.spec);
  paths.AddInput("--twin " + a.twin, sim::PresetFileOf(a.twin));
  paths.AddOutput(a.flag, a.out);
  paths.AddOutput("--pdf", a.pdf);
  if (!CheckPaths(paths)) return kExitUsage;
  const std::string chromium = a.pdf.empty() ? "" : FindChromium();
  if (!a.pdf.empty() && chromium.empty()) {
    PrintError("--pdf " + a.pdf +
               ": no headless Chromium on PATH (chromium, chromium-browser, google-chrome); "
               "install one, or print the HTML report from a browser");
    return kExitFailed;
  }
  ReportOptions options;
  options.title = a.title;
  if (a.units != "decimal" && a.units != "binary")
    return Fail(Status::Invalid("--units '" + a.units + "': expected decimal or binary"));
  options.binary_units = a.units == "binary";
  if (!a.spec.empty()) {
    auto claims = LoadClaimsFile(a.spec);
    if (!claims.ok()) {
      return Fail(claims.status());
    }
    options.claims = std::move(claims.value());
  }
  auto store = OpenDb(a.db);
  if (!store) return kExitUsage;
  auto runs = LoadReportRuns([&](const std::string& n) { return store->RunJson(n); }, a.runs);
  if (!runs.ok()) {
    return Fail(runs.status());
  }
  if (a.what_if && a.twin.empty())
    return Fail(Status::Invalid("--what-if needs --twin sim:TWIN.toml (the drive it asks)"));
  if (!a.twin.empty()) {
    if (a.runs.size() != 1)
      return Fail(Status::Invalid("--twin compares one run; " + std::to_string(a.runs.size()) +
                                  " were given"));
    std::optional<ReportRun> twin_run;
    auto tr = MakeTwinReport(a, runs->front().doc, &twin_run);
    if (!tr.ok()) return Fail(tr.status());
    options.twin = std::move(tr.value());
    if (twin_run) runs->push_back(std::move(*twin_run));
  }
  options.generated_at = usecase::IsoTime(static_cast<double>(time(nullptr)));
  options.generated_at = options.generated_at.substr(0, 16) + " UTC";
  options.generated_at[10] = ' ';
  options.tool_version = fmt::format("ssdlab {} ({})", kVersion, kGitRevision);
  std::string html;
  try {
    html = RenderReportHtml(BuildReportModel(runs.value(), options));
  } catch (const nlohmann::json::exception& e) {
    PrintError(
        fmt::format("run{} {}: the stored results have an unexpected shape ({}); the database may "
                    "be damaged or from another ssdlab version",
                    a.runs.size() == 1 ? "" : "s", fmt::join(a.runs, ", "), e.what()));
    return kExitFailed;
  }
  if (!WriteFile(a.flag, a.out, html)) return kExitFailed;
  if (!a.pdf.empty()) {
    if (Status s = PrintPdf(chromium, a.out, a.pdf); !s.ok()) return Fail(s);
    std::cerr << fmt::format("ssdlab report: {} (PDF)\n", a.pdf);
  }
  size_t charts = html.size();
  std::cerr << fmt::format("ssdlab report: {} ({:.1f} MB, {} run{})\n", a.out,
                           static_cast<double>(charts) / 1e6, a.runs.size(),
                           a.runs.size() == 1 ? "" : "s");
  return kExitOk;
}

struct ExportArgs {
  std::string run, db, csv, json;
};

int RunExport(const ExportArgs& a) {
  if (a.csv.empty() == a.json.empty()) {
    PrintError("export needs exactly one of --csv DIR or --json FILE");
    return kExitUsage;
  }
  PathRegistry paths = usecase::CommandPaths();
  usecase::AddDatabasePath(paths, "--db", a.db, false);
  paths.AddOutput("--json", a.json);
  if (!a.csv.empty() && fs::is_directory(a.csv)) {  // a new directory holds nothing to clobber
    for (const std::string& f : ExportCsvPaths(a.csv)) paths.AddOutput("--csv", f);
  }
  if (!CheckPaths(paths)) return kExitUsage;
  if (!a.csv.empty()) {
    fs::path parent = fs::path(a.csv).parent_path();
    if (!parent.empty() && !fs::is_directory(parent)) {
      PrintError("--csv " + a.csv + ": directory " + parent.string() + " does not exist");
      return kExitUsage;
    }
    if (fs::exists(a.csv) && !fs::is_directory(a.csv)) {
      PrintError("--csv " + a.csv + " exists and is not a directory");
      return kExitUsage;
    }
  }
  auto store = OpenDb(a.db);
  if (!store) return kExitUsage;
  auto doc = store->RunJson(a.run);
  if (!doc.ok()) {
    return Fail(doc.status());
  }
  if (!a.json.empty()) {
    std::string text = doc->dump(1) + "\n";
    if (a.json == "-") {
      std::cout << text;
      return kExitOk;
    }
    return WriteFile("--json", a.json, text) ? kExitOk : kExitFailed;
  }
  Result<std::vector<std::string>> files = Status::Invalid("");
  try {
    files = ExportRunCsv(doc.value(), a.csv);
  } catch (const nlohmann::json::exception& e) {
    files = Status::Io("run " + a.run + ": the stored results have an unexpected shape (" +
                       e.what() + ")");
  }
  if (!files.ok()) {
    PrintError(files.status().message());
    return files.status().code() == Code::kIoError ? kExitFailed : kExitUsage;
  }
  std::cerr << fmt::format("ssdlab export: {} CSV files in {}\n", files->size(), a.csv);
  return kExitOk;
}

}  // namespace

int WriteRunsReport(const std::string& db, const std::vector<std::string>& runs,
                    const std::string& out, const std::string& title, const std::string& flag) {
  ReportArgs a;
  a.runs = runs;
  a.db = db;
  a.out = out;
  a.title = title;
  a.flag = flag;
  return RunReport(a);
}

void AddReportCommands(CLI::App& app, int* exit_code) {
  auto r = std::make_shared<ReportArgs>();
  CLI::App* rep =
      app.add_subcommand("report", "Write a self-contained HTML report of one or several runs");
  rep->add_option("runs", r->runs, "Run names (several: side by side)")->required();
  rep->add_option("--db", r->db, "Results database")->required();
  rep->add_option("-o,--output", r->out, "HTML file to write")->required();
  rep->add_option("--spec", r->spec,
                  "Vendor claims file (TOML) to check against: a path, or the name of one "
                  "shipped with ssdlab (e.g. kingston-dc400-1600gb)");
  rep->add_option("--title", r->title, "Title of the report");
  rep->add_option("--units", r->units,
                  "decimal (MB/s and GB, as datasheets give them; the default) or binary "
                  "(throughput in MiB/s)");
  rep->add_option("--pdf", r->pdf,
                  "Also print the report to this PDF file through a headless Chromium found on "
                  "PATH (chromium, chromium-browser, google-chrome); exit status 3 when none is");
  rep->add_option("--twin", r->twin,
                  "A simulated drive (sim:TWIN.toml from sim fit) to compare the run with: a "
                  "'Measured vs twin' section");
  rep->add_option("--twin-method", r->twin_method,
                  "exact (re-run the run's tests on the twin), cheap (sim fit's evaluator) or "
                  "auto (exact for ssdlab runs, cheap for imported ones)");
  rep->add_option("--twin-scale", r->twin_scale,
                  "Simulate the twin at this many times its scale (faster; 1)")
      ->check(CLI::Range(1u, 4096u));
  rep->add_flag("--what-if", r->what_if,
                "With --twin: OP advisor, WSAT to 4 capacities, RAID 10 and RAID 5 of four "
                "twins, simulated (a 'What if' section)");
  rep->callback([r, exit_code] { *exit_code = RunReport(*r); });

  auto e = std::make_shared<ExportArgs>();
  CLI::App* ex = app.add_subcommand("export", "Export one run as CSV files or one JSON document");
  ex->add_option("run", e->run, "Run name")->required();
  ex->add_option("--db", e->db, "Results database")->required();
  ex->add_option("--csv", e->csv, "Directory for the CSV files (created; its parent must exist)");
  ex->add_option("--json", e->json, "JSON file (- for stdout)");
  ex->callback([e, exit_code] { *exit_code = RunExport(*e); });
}

}  // namespace ssdlab
