// `ssdlab report` (self-contained HTML report of one or several runs, optionally against a
// vendor's claims file) and `ssdlab export` (one run as CSV files or one JSON document).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ssdlab {

void AddReportCommands(CLI::App& app, int* exit_code);

// Writes the HTML report of `runs` (several: side by side) in results database `db` to `out`,
// as `ssdlab report` does (`flag` names the output in messages); returns an exit status.
int WriteRunsReport(const std::string& db, const std::vector<std::string>& runs,
                    const std::string& out, const std::string& title, const std::string& flag);

}  // namespace ssdlab
