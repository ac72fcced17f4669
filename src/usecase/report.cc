#include "usecase/report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "base/output_file.h"
#include "base/process.h"
#include "base/strings.h"
#include "report/report.h"
#include "sim/preset_file.h"
#include "store/store.h"
#include "twin/fit.h"
#include "usecase/documents.h"
#include "usecase/paths.h"
#include "usecase/twin_runs.h"
#include "usecase/version.h"

namespace ssdlab::usecase {
namespace {

namespace fs = std::filesystem;

// `s` with a code that exits 2 (bad input): what a user gave that cannot be read or opened.
Status AsUsage(const Status& s) {
  return s.ok() || ExitStatusFor(s) == kExitUsage ? s : Status::Invalid(s.message());
}

// An existing results database opened for reading.
Result<std::unique_ptr<Store>> OpenForReading(const std::string& db) {
  auto store = Store::Open(db, Store::Mode::kReadOnly);
  if (!store.ok()) return AsUsage(store.status());
  return std::move(store.value());
}

// A file written; any failure is Io (exit 3: the report was made, it could not be kept).
Status WriteFile(const std::string& flag, const std::string& path, const std::string& text) {
  Status s = WriteOutputFile(flag, path, text);
  return s.ok() ? s : Status::Io(s.message());
}

// The headless Chromium that `report --pdf` prints with: the first of chromium,
// chromium-browser, google-chrome and google-chrome-stable in a directory of $PATH (PATH only:
// emptying it of them is how to say there is none); "" when none is.
std::string FindChromium() {
  const char* path = std::getenv("PATH");
  const std::vector<std::string> dirs = SplitNonEmpty(path ? path : "", ':');
  for (const char* name :
       {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    for (const std::string& dir : dirs) {
      std::string cand = dir + "/" + name;
      if (access(cand.c_str(), X_OK) == 0 && !fs::is_directory(cand)) return cand;
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
Result<TwinReport> MakeTwinReport(const ReportRequest& a, const nlohmann::json& doc,
                                  std::optional<ReportRun>* twin_run) {
  SSDLAB_ASSIGN_OR_RETURN(std::string target, TwinTarget(a.twin, a.twin_scale));
  if (a.twin_method != "auto" && a.twin_method != "exact" && a.twin_method != "cheap")
    return Status::Invalid("--twin-method '" + a.twin_method + "': expected auto, exact or cheap");
  const bool exact = a.twin_method == "exact" || (a.twin_method == "auto" && HasPtsOptions(doc));
  TwinReport tr;
  tr.target = a.twin + (a.twin_scale > 1 ? fmt::format(" (at {}x its scale)", a.twin_scale) : "");
  nlohmann::json twin_doc;
  if (exact) {
    a.console->Note(fmt::format("ssdlab report: re-running run {}'s tests on the twin", a.runs[0]));
    SSDLAB_ASSIGN_OR_RETURN(twin_doc, RerunOnTwin(doc, target, a.stop));
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
  SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::FigureFit> fits, CompareOnTwin(doc, target, twin_doc));
  for (const twin::FigureFit& f : fits)
    tr.figures.push_back(
        {f.figure.test, f.figure.Name(), f.figure.metric, f.figure.x, f.figure.value, f.simulated});
  if (a.what_if) {
    a.console->Note("ssdlab report: what-if runs on the twin (OP advisor, WSAT, RAID 10, RAID 5)");
    SSDLAB_ASSIGN_OR_RETURN(std::vector<WhatIfRun> runs,
                            WhatIfRuns(target, WhatIfOptions{.stop = a.stop}));
    for (WhatIfRun& w : runs) tr.what_if.push_back({w.role, ReportRun{w.label, std::move(w.doc)}});
  }
  return tr;
}

Status CheckReportPaths(const ReportRequest& a) {
  PathRegistry paths = CommandPaths();
  AddDatabasePath(paths, "--db", a.db, false);
  paths.AddInput("--spec " + a.spec, a.spec);
  paths.AddInput("--twin " + a.twin, sim::PresetFileOf(a.twin));
  paths.AddOutput(a.flag, a.out);
  paths.AddOutput("--pdf", a.pdf);
  return AsUsage(paths.Check());
}

// The report's options less the twin: title, units, claims, when and by what it was made.
Result<ReportOptions> OptionsOf(const ReportRequest& a) {
  ReportOptions options;
  options.title = a.title;
  if (a.units != "decimal" && a.units != "binary")
    return Status::Invalid("--units '" + a.units + "': expected decimal or binary");
  options.binary_units = a.units == "binary";
  if (!a.spec.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(options.claims, LoadClaimsFile(a.spec));
  }
  options.generated_at = IsoTime(static_cast<double>(time(nullptr)));
  options.generated_at = options.generated_at.substr(0, 16) + " UTC";
  options.generated_at[10] = ' ';
  options.tool_version = fmt::format("ssdlab {} ({})", kVersion, kGitRevision);
  return options;
}

}  // namespace

Result<ReportOutcome> WriteReport(const ReportRequest& request) {
  ReportRequest a = request;
  a.spec = ClaimsFilePath(a.spec);
  SSDLAB_RETURN_IF_ERROR(CheckReportPaths(a));
  const std::string chromium = a.pdf.empty() ? "" : FindChromium();
  if (!a.pdf.empty() && chromium.empty()) {
    return Status::Io("--pdf " + a.pdf +
                      ": no headless Chromium on PATH (chromium, chromium-browser, "
                      "google-chrome); install one, or print the HTML report from a browser");
  }
  SSDLAB_ASSIGN_OR_RETURN(ReportOptions options, OptionsOf(a));
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenForReading(a.db));
  SSDLAB_ASSIGN_OR_RETURN(
      std::vector<ReportRun> runs,
      LoadReportRuns([&](const std::string& n) { return store->RunJson(n); }, a.runs));
  if (a.what_if && a.twin.empty())
    return Status::Invalid("--what-if needs --twin sim:TWIN.toml (the drive it asks)");
  if (!a.twin.empty()) {
    if (a.runs.size() != 1)
      return Status::Invalid("--twin compares one run; " + std::to_string(a.runs.size()) +
                             " were given");
    std::optional<ReportRun> twin_run;
    SSDLAB_ASSIGN_OR_RETURN(options.twin, MakeTwinReport(a, runs.front().doc, &twin_run));
    if (twin_run) runs.push_back(std::move(*twin_run));
  }
  std::string html;
  try {
    html = RenderReportHtml(BuildReportModel(runs, options));
  } catch (const nlohmann::json::exception& e) {
    return Status::Io(
        fmt::format("run{} {}: the stored results have an unexpected shape ({}); the database may "
                    "be damaged or from another ssdlab version",
                    a.runs.size() == 1 ? "" : "s", fmt::join(a.runs, ", "), e.what()));
  }
  SSDLAB_RETURN_IF_ERROR(WriteFile(a.flag, a.out, html));
  ReportOutcome out;
  out.html_bytes = html.size();
  if (!a.pdf.empty()) {
    SSDLAB_RETURN_IF_ERROR(PrintPdf(chromium, a.out, a.pdf));
    out.pdf_written = true;
  }
  return out;
}

Result<ExportOutcome> ExportRun(const ExportRequest& a) {
  if (a.csv.empty() == a.json.empty())
    return Status::Invalid("export needs exactly one of --csv DIR or --json FILE");
  PathRegistry paths = CommandPaths();
  AddDatabasePath(paths, "--db", a.db, false);
  paths.AddOutput("--json", a.json);
  if (!a.csv.empty() && fs::is_directory(a.csv)) {  // a new directory holds nothing to clobber
    for (const std::string& f : ExportCsvPaths(a.csv)) paths.AddOutput("--csv", f);
  }
  SSDLAB_RETURN_IF_ERROR(AsUsage(paths.Check()));
  if (!a.csv.empty()) {
    fs::path parent = fs::path(a.csv).parent_path();
    if (!parent.empty() && !fs::is_directory(parent))
      return Status::Invalid("--csv " + a.csv + ": directory " + parent.string() +
                             " does not exist");
    if (fs::exists(a.csv) && !fs::is_directory(a.csv))
      return Status::Invalid("--csv " + a.csv + " exists and is not a directory");
  }
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenForReading(a.db));
  SSDLAB_ASSIGN_OR_RETURN(nlohmann::json doc, store->RunJson(a.run));
  ExportOutcome out;
  if (!a.json.empty()) {
    std::string text = doc.dump(1) + "\n";
    if (a.json == "-") {
      out.json_text = std::move(text);
      return out;
    }
    SSDLAB_RETURN_IF_ERROR(WriteFile("--json", a.json, text));
    return out;
  }
  try {
    SSDLAB_ASSIGN_OR_RETURN(out.csv_files, ExportRunCsv(doc, a.csv));
  } catch (const nlohmann::json::exception& e) {
    return Status::Io("run " + a.run + ": the stored results have an unexpected shape (" +
                      e.what() + ")");
  }
  return out;
}

}  // namespace ssdlab::usecase
