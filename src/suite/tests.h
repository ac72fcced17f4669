// The individual PTS tests (private to suite/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "suite/runner.h"

namespace ssdlab::pts {

struct TestOutcome {
  nlohmann::json steady_state;  // {} for tests without a steady-state requirement
  nlohmann::json results;       // includes "rounds"
};

// Runs the named test (one of PtsTestNames()).
Result<TestOutcome> RunTest(Runner& runner, const std::string& name);

}  // namespace ssdlab::pts
