// The `report` and `export` use cases: a stored run (or several side by side) as one
// self-contained HTML page (report/report.h), optionally checked against a vendor's claims file,
// compared with a twin and printed to PDF; and one run as CSV files or one JSON document.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "usecase/console.h"

namespace ssdlab::usecase {

struct ReportRequest {
  std::vector<std::string> runs;  // side by side when several
  std::string db;
  std::string out;          // the HTML file
  std::string flag = "-o";  // names `out` in messages ("--report" for pts)
  std::string spec;         // a claims file, or the name of one shipped (ClaimsFilePath)
  std::string title;
  std::string units = "decimal";  // or "binary"
  std::string pdf;                // also printed to this PDF through a headless Chromium
  // A simulated drive (sim:TWIN.toml) the run is compared with: "exact" re-runs its tests on
  // the twin, "cheap" uses sim fit's evaluator, "auto" chooses exact for ssdlab's runs.
  std::string twin, twin_method = "auto";
  uint32_t twin_scale = 1;
  bool what_if = false;  // with twin: the what-if runs
  const std::atomic<bool>* stop = nullptr;
  Console* console = nullptr;  // REQUIRED: the long steps (twin re-runs)
};

struct ReportOutcome {
  uint64_t html_bytes = 0;  // written to `out`
  bool pdf_written = false;
};

// Checks the paths and options, reads the runs and writes the report. Errors: a bad option,
// path or run (exit 2's codes), no Chromium for a PDF, a stored run of an unexpected shape, a
// failed write (Io).
Result<ReportOutcome> WriteReport(const ReportRequest& request);

struct ExportRequest {
  std::string run, db;
  std::string csv;   // a directory for the CSV files (created; its parent must exist)
  std::string json;  // a JSON file, "-" for stdout (the outcome's text then)
};

struct ExportOutcome {
  std::vector<std::string> csv_files;  // written
  std::string json_text;               // the document, when json is "-"
};

// Exactly one of csv and json. Errors: bad paths or run (exit 2's codes), a stored run of an
// unexpected shape, a failed write (Io).
Result<ExportOutcome> ExportRun(const ExportRequest& request);

}  // namespace ssdlab::usecase
