#include "cli/report_cmds.h"

#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "usecase/report.h"

namespace ssdlab {
namespace {

using ReportArgs = usecase::ReportRequest;

int RunReport(ReportArgs a) {
  a.stop = &StopFlag();
  a.console = &CliConsole();
  auto out = usecase::WriteReport(a);
  if (!out.ok()) return Fail(out.status());
  if (out->pdf_written) std::cerr << fmt::format("ssdlab report: {} (PDF)\n", a.pdf);
  std::cerr << fmt::format("ssdlab report: {} ({:.1f} MB, {} run{})\n", a.out,
                           static_cast<double>(out->html_bytes) / 1e6, a.runs.size(),
                           a.runs.size() == 1 ? "" : "s");
  return kExitOk;
}

int RunExport(const usecase::ExportRequest& a) {
  auto out = usecase::ExportRun(a);
  if (!out.ok()) return Fail(out.status());
  std::cout << out->json_text;
  if (!a.csv.empty())
    std::cerr << fmt::format("ssdlab export: {} CSV files in {}\n", out->csv_files.size(), a.csv);
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

  auto e = std::make_shared<usecase::ExportRequest>();
  CLI::App* ex = app.add_subcommand("export", "Export one run as CSV files or one JSON document");
  ex->add_option("run", e->run, "Run name")->required();
  ex->add_option("--db", e->db, "Results database")->required();
  ex->add_option("--csv", e->csv, "Directory for the CSV files (created; its parent must exist)");
  ex->add_option("--json", e->json, "JSON file (- for stdout)");
  ex->callback([e, exit_code] { *exit_code = RunExport(*e); });
}

}  // namespace ssdlab
