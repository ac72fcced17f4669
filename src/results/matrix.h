// The results of the IOPS and LAT tests: a matrix of random cells (read/write mix x block size),
// each the average over the steady-state window.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/cells.h"

namespace ssdlab::results {

struct MatrixResults {
  std::string purge_method;
  uint64_t range_bytes = 0;       // the active range
  std::vector<CellResult> cells;  // in the order the rounds ran them ("rw=65/35 bs=4KiB")
};

// {"purge_method", "range_bytes", "cells"}
nlohmann::json ToJson(const MatrixResults& m);
// `where` names the object in errors ("iops.results"). Keys beside these (the battery's
// "health") are ignored; a wrongly typed key is Invalid naming it.
Result<MatrixResults> MatrixResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
