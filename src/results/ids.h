// 64-bit identifiers (seeds) in ssdlab's JSON documents. Every JSON reader that keeps numbers
// as doubles (jq, JavaScript, Python's float) rounds an integer above 2^53, so ssdlab writes
// them as decimal strings ("9990447348439510779"), and reads back either form (its documents
// written before, or a number typed by hand).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace ssdlab::results {

// The decimal string of `id`.
nlohmann::json IdJson(uint64_t id);
// A non-negative integer, or a string of decimal digits that fits 64 bits, into `out`; false
// (and `out` unchanged) for anything else.
bool IdFromJson(const nlohmann::json& j, uint64_t& out);

}  // namespace ssdlab::results
