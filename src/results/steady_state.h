// Typed result documents: what the suite stores and the report, `show` and the fleet read,
// each with one ToJson / FromJson pair. FromJson accepts every document ssdlab has written
// (keys added later are optional) and refuses a damaged one with Invalid naming the key, so
// reading an old or odd run never throws.
//
// A PTS test's steady-state verdict (the `steady_state` of a stored test): the first tracked
// variable's figures at the top level, `reached` over all tracked variables, and each
// variable's own verdict. A test without a steady-state requirement stores {}.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "stats/steady_state.h"

namespace ssdlab::results {

// What ended a test's rounds (stored as "end"): steady state; the round limit before it
// (`--max-rounds`); or the test's own end condition, where steady state is recorded but does
// not end the test (WSAT: its capacity written, or its round limit). Unset in a verdict stored
// before the end was kept.
enum class TestEnd { kSteadyState, kRoundLimit, kOwnCapacity, kOwnRoundLimit };

struct TestSteadyState {
  bool required = false;              // false: no steady-state requirement (stored as {})
  bool reached = false;               // every tracked variable reached it
  SteadyStateVerdict headline;        // the figures shown for the test (its first variable's)
  std::vector<std::string> tracking;  // the variables, in tracking order
  std::map<std::string, SteadyStateVerdict> variables;  // each tracked variable's verdict
  std::optional<TestEnd> end;                           // what ended the rounds
  std::optional<double> end_capacity_multiple;          // kOwnCapacity: the multiple written
  std::optional<uint32_t> end_rounds;                   // kOwnRoundLimit: the limit
};

// {"reached", "rounds_run", "window", "window_first_round", "mean", "range_pct",
//  "slope_excursion_pct", "band_excursion_pct", "slope", "intercept", "first_judged_round",
//  "criteria": {"rule", "window", "max_range_pct", "max_slope_pct", "band_pct"}, "snia_met",
//  "band_met"} (the last three when set)
nlohmann::json ToJson(const SteadyStateVerdict& v);
// `where` names the object in errors ("steady_state.variables.iops").
Result<SteadyStateVerdict> VerdictFromJson(const nlohmann::json& j, const std::string& where);

// The headline verdict's keys with `reached` overwritten by the all-variables flag, plus
// "variables", "tracking", "end" ("steady_state", "round_limit", "capacity",
// "test_round_limit"), "end_capacity_multiple" and "end_rounds" (when set); {} when not
// required.
nlohmann::json ToJson(const TestSteadyState& s);
// Null or {} -> not required. Invalid naming the key on a wrong type; `where` names the object
// in errors (a TP block's "tp.results.by_block[1].steady_state").
Result<TestSteadyState> SteadyStateFromJson(const nlohmann::json& j,
                                            const std::string& where = "steady_state");

// The verdict that decides the test's: the first tracked variable that did not reach steady
// state (in tracking order, then any other), else the headline.
const SteadyStateVerdict& DecidingVerdict(const TestSteadyState& s);

// True when the test required steady state, its rounds ended without it, and the end was not
// the test's own (`pts --require-steady-state` fails on it).
bool MissedSteadyState(const TestSteadyState& s);

// The evidence of a verdict in words, from its stored values (report and `show`): the rule
// that decided and its figure against its limit, then the other rule's outcome, e.g.
// "reached by the review rule (fitted line within 3.1% of the mean, limit 10%); data
// excursion 45% exceeds SNIA's 20%". "" for a verdict stored without its evidence.
std::string EvidenceText(const SteadyStateVerdict& v);

// One line for a test's steady state (`show`, the report's verdict cells): "reached in rounds
// 5-8 of 8", "NOT reached after 25 rounds (the round limit)", "ended at 4x capacity, the
// spec's end; steady state not reached (1 round, window 4)", then "; " and the deciding
// verdict's evidence. "no steady-state requirement" when not required.
// The window's mean is given with its unit, from the headline variable's name
// (TrackedValueText).
std::string VerdictLine(const TestSteadyState& s);
// A value of a tracked variable with its unit, by the variable's suffix: "... iops" ->
// "52,651 IOPS", "... bw" (bytes/s) -> "1,003.4 MB/s", "... _ns" -> "73.74 µs"; else the number.
std::string TrackedValueText(const std::string& variable, double value);

// A round of a steady-state loop as a stored test's `rounds` list holds it: its number, the
// value of each tracked variable that round, and for the OP study the setting it belongs to.
// The suite writes them; the report's steady-state blocks and HIR's preconditioning read them.
struct TrackedRound {
  uint64_t round = 0;                      // 1-based within its loop
  std::map<std::string, double> tracking;  // by variable: "rw=0/100 bs=4KiB iops"
  std::optional<double> op_pct;            // the OP study's share of capacity left unused
};

// [{"round", "tracking": {VARIABLE: value}, "op_pct" (when set)}]
nlohmann::json ToJson(const std::vector<TrackedRound>& rounds);
// Null -> no rounds. Tracking values that are not numbers are skipped (the stored steps of an
// unfinished test hold notes there: a purge's "purge_method"); a wrongly typed key is Invalid
// naming it (`where` names the list: "hir.rounds", then "hir.rounds[3].round").
Result<std::vector<TrackedRound>> RoundsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
