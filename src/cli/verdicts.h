// The one-line steady-state verdicts of a stored run's tests (`show`, and `pts` at its end).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

// One line per test of the run document `doc`; Invalid naming the run's test and key when the
// document is damaged (nothing of that test printed).
Status PrintVerdicts(const nlohmann::json& doc, std::ostream& out);

// The names of the run's finished tests that required steady state and ended without it (the
// round limit first; not WSAT's own end: results::MissedSteadyState). A damaged test counts.
std::vector<std::string> TestsWithoutSteadyState(const nlohmann::json& doc);

}  // namespace ssdlab
