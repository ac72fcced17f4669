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

// The schema, written once for both databases: `{serial}` (an id the database assigns),
// `{int64}`, `{real}` (a double) and `{bytes}` stand for each one's type names
// (SqlDialect::types; SQLite: INTEGER PRIMARY KEY, INTEGER, REAL, BLOB; PostgreSQL: BIGSERIAL
// PRIMARY KEY, BIGINT, DOUBLE PRECISION, BYTEA). Version 1, the tables of store.h:
inline constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id {serial}, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, finished_at TEXT NOT NULL DEFAULT '', config TEXT NOT NULL,
  context TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS targets(
  run_id {int64} PRIMARY KEY REFERENCES runs(id), path TEXT, kind TEXT, size_bytes {int64},
  logical_block_bytes {int64}, physical_block_bytes {int64}, model TEXT, serial TEXT,
  firmware TEXT, details TEXT);
CREATE TABLE IF NOT EXISTS tests(
  id {serial}, run_id {int64} NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
  name TEXT NOT NULL, status TEXT NOT NULL, params TEXT NOT NULL,
  steady_state TEXT NOT NULL DEFAULT '', results TEXT NOT NULL DEFAULT '', UNIQUE(run_id, name));
CREATE TABLE IF NOT EXISTS rounds(
  test_id {int64} NOT NULL REFERENCES tests(id), round INTEGER NOT NULL, tracking TEXT NOT NULL,
  committed_at TEXT NOT NULL, PRIMARY KEY(test_id, round));
CREATE TABLE IF NOT EXISTS phases(
  id {serial}, test_id {int64} NOT NULL REFERENCES tests(id), round INTEGER NOT NULL,
  cell TEXT NOT NULL, workload TEXT NOT NULL, measured_ns {int64} NOT NULL,
  io_errors {int64} NOT NULL, interrupted INTEGER NOT NULL, cpu_user_s {real},
  cpu_sys_s {real}, counters TEXT NOT NULL, notes TEXT NOT NULL,
  UNIQUE(test_id, round, cell));
CREATE TABLE IF NOT EXISTS histograms(
  phase_id {int64} NOT NULL REFERENCES phases(id) ON DELETE CASCADE, direction INTEGER NOT NULL,
  ios {int64} NOT NULL, bytes {int64} NOT NULL, min_ns {int64} NOT NULL, max_ns {int64} NOT NULL,
  sum_ns {int64} NOT NULL, sum_sq_ns2 {real} NOT NULL, buckets {bytes},
  PRIMARY KEY(phase_id, direction));
CREATE TABLE IF NOT EXISTS series(
  phase_id {int64} NOT NULL REFERENCES phases(id) ON DELETE CASCADE, idx INTEGER NOT NULL,
  t_begin_ns {int64} NOT NULL, t_end_ns {int64} NOT NULL, direction INTEGER NOT NULL,
  ios {int64} NOT NULL, bytes {int64} NOT NULL, lat_sum_ns {int64} NOT NULL,
  lat_max_ns {int64} NOT NULL, PRIMARY KEY(phase_id, idx, direction));
)sql";

// One step of the schema (in the same notation): applied, in a transaction, to a database of an
// older version.
struct SchemaMigration {
  int version;
  const char* sql;
};
inline constexpr SchemaMigration kMigrations[] = {
    {2, "ALTER TABLE runs ADD COLUMN fleet TEXT NOT NULL DEFAULT ''"},
    {3, "ALTER TABLE series ADD COLUMN lag_sum_ns {int64} NOT NULL DEFAULT 0"},
    {4, "ALTER TABLE series ADD COLUMN lag_max_ns {int64} NOT NULL DEFAULT 0"},
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
