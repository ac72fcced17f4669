// `ssdlab report` (self-contained HTML report of one or several runs, optionally against a
// vendor's claims file) and `ssdlab export` (one run as CSV files or one JSON document).
#pragma once

#include <CLI/CLI.hpp>

namespace ssdlab {

void AddReportCommands(CLI::App& app, int* exit_code);

}  // namespace ssdlab
