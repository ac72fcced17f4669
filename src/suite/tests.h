// The individual PTS tests (private to suite/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/pts_tests.h"
#include "suite/runner.h"

namespace ssdlab::pts {

struct TestOutcome {
  nlohmann::json steady_state;  // {} for tests without a steady-state requirement
  nlohmann::json results;       // the ToJson of the test's results (results/), plus "rounds"
};

// One PTS test's run: the battery's registry entry, keyed by the catalogue
// (results/pts_tests.h: name, title, results codec). Adding a test is its catalogue entry, one
// entry in Tests() (tests.cc) with its run function, which stores its typed results
// (results/TEST.h) through their ToJson, and its report section (report/pts_TEST.cc and its
// entry in report/pts_sections.cc PtsSections()); docs/architecture.md lists the files.
struct TestDef {
  results::PtsTest id;
  Result<TestOutcome> (*run)(Runner& runner);
  // The block sizes the test issues with these options (checked against the target before
  // the battery starts) and the flag that changes them ("" when no flag does).
  std::vector<uint64_t> (*block_sizes)(const PtsOptions& options);
  const char* block_sizes_flag;

  const char* name() const { return results::PtsTestOf(id).name; }    // as --tests takes it
  const char* title() const { return results::PtsTestOf(id).title; }  // for messages
};

// Every test, in the order a battery runs them (the catalogue's).
const std::vector<TestDef>& Tests();
// The entry of `name`, or null.
const TestDef* FindTest(const std::string& name);

}  // namespace ssdlab::pts
