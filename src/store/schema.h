// What the two store drivers (sqlite_store.h, pg_store.h) share besides sql_store.h: the schema's
// migrations, the wording of their refusals, and the encoding of histograms and counters.
// Private to store/.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "stats/phase_result.h"

namespace ssdlab {

// One step of the schema: applied, in a transaction, to a database of an older version.
// Version 1 is the CREATE TABLE statements of each implementation.
struct SchemaMigration {
  int version;
  const char* sqlite;
  const char* postgres;
};
inline constexpr SchemaMigration kMigrations[] = {
    {2, "ALTER TABLE runs ADD COLUMN fleet TEXT NOT NULL DEFAULT ''",
     "ALTER TABLE runs ADD COLUMN fleet TEXT NOT NULL DEFAULT ''"},
    {3, "ALTER TABLE series ADD COLUMN lag_sum_ns INTEGER NOT NULL DEFAULT 0",
     "ALTER TABLE series ADD COLUMN lag_sum_ns BIGINT NOT NULL DEFAULT 0"},
    {4, "ALTER TABLE series ADD COLUMN lag_max_ns INTEGER NOT NULL DEFAULT 0",
     "ALTER TABLE series ADD COLUMN lag_max_ns BIGINT NOT NULL DEFAULT 0"},
};

// "--db X has schema version 3, newer than this ssdlab's 2; use a newer ssdlab".
std::string NewerSchema(const std::string& where, int version);
std::string RunLockedMessage(const std::string& run_name);
// UTC, "2026-12-01T12:00:00Z".
std::string NowIso();

// The window's edges (EdgeStats) as stored and as `run --json` gives them: {"in_flight",
// "longest_ns", "abandoned", "abandoned_age_ns", "from_ramp", "held", "held_all"}.
nlohmann::json EdgeJson(const EdgeStats& e);
// The phase's counters as stored: {"name": ..., "values": [[key, value], ...], "edge": EdgeJson}
// (a phase stored before the edges has none and reads as zeros).
nlohmann::json CountersJson(const PhaseResult& r);
// Reads the stored counters and notes into `r`; false when they have the wrong shape.
bool ReadCountersAndNotes(const nlohmann::json& counters, const nlohmann::json& notes,
                          PhaseResult& r);

}  // namespace ssdlab
