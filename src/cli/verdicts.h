// The one-line steady-state verdicts of a stored run's tests (`show`, and `pts` at its end).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "base/status.h"

namespace ssdlab {

// One line per test of the run document `doc`; Invalid naming the run's test and key when the
// document is damaged (nothing of that test printed).
Status PrintVerdicts(const nlohmann::json& doc, std::ostream& out);

}  // namespace ssdlab
