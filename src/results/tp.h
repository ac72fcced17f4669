// The results of the TP test: per block size, after its own purge and preconditioning,
// sequential read and write cells with their own steady-state verdict.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/cells.h"
#include "results/steady_state.h"

namespace ssdlab::results {

struct TpBlock {
  uint64_t block_bytes = 0;
  std::string purge_method;
  TestSteadyState steady_state;   // this block size's rounds
  std::vector<CellResult> cells;  // "rw=100/0 bs=1024KiB", "rw=0/100 bs=1024KiB"
};

struct TpResults {
  uint64_t range_bytes = 0;
  std::vector<TpBlock> by_block;  // in the order the test ran them
};

// {"range_bytes", "by_block": [{"block_bytes", "purge_method", "steady_state", "cells"}]}
nlohmann::json ToJson(const TpResults& t);
// `where` names the object in errors ("tp.results"); keys beside these are ignored.
Result<TpResults> TpResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
