// The PTS test catalogue: every test of the battery, once, in battery order: its name (as
// --tests takes it and the store keeps it), its title, and the check of its stored results
// through its typed codec (results/TEST.h). The suite (its run functions), the report (its
// sections), the twin, the command line's --tests and the JSON Schema's list of names all read
// or are checked against this one table (results_test: PtsTests.*).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ssdlab::results {

// The tests, in battery order; the suite's and the report's registries are keyed by it.
enum class PtsTest { kIops, kTp, kLat, kLvi, kWsat, kHir, kXsr, kDirth, kEcw, kOp };

struct PtsTestInfo {
  PtsTest id;
  const char* name;   // "iops"
  const char* title;  // "IOPS": section heading, table labels, messages
  // Reads stored results through the test's FromJson (`where` = "NAME.results"): ok, or the
  // Status naming the damaged key.
  Status (*check)(const nlohmann::json& results, const std::string& where);
};

// Every test, in battery order (the order of PtsTest).
const std::vector<PtsTestInfo>& PtsTests();
// The entry of `id`.
const PtsTestInfo& PtsTestOf(PtsTest id);
// The entry named `name`, or null.
const PtsTestInfo* FindPtsTest(std::string_view name);
// Every name, in battery order.
const std::vector<std::string>& PtsTestNames();
// The names joined by `sep` ("iops,tp,...").
std::string JoinedPtsTestNames(std::string_view sep);

}  // namespace ssdlab::results
