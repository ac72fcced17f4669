// The steady-state verdicts and headline figures of a stored run's tests (`show`, and `pts` at
// its end).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "base/status.h"

namespace ssdlab {

// One line per test of the run document `doc`, and below a finished test one line per headline
// figure (report/report.h HeadlineFigures: "rw=0/100 bs=4KiB: 23,759 IOPS (steady-state mean,
// rounds within 3.1%)"); with `json_lines`, one JSON object per test instead: {"stage":
// "verdict", "test", "status", "verdict", "headlines": HeadlinesJson}. Invalid naming the
// run's test and key when the document is damaged (nothing of that test printed).
Status PrintVerdicts(const nlohmann::json& doc, std::ostream& out, bool json_lines = false);

}  // namespace ssdlab
