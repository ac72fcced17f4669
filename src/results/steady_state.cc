#include "results/steady_state.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace {

namespace f = fields;
using V = SteadyStateVerdict;

constexpr auto kVerdict = f::Object<V>(
    f::Flag("reached", &V::reached), f::Count("rounds_run", &V::rounds_run),
    f::Count("window", &V::window_rounds), f::Count("window_first_round", &V::window_first_round),
    f::Number("mean", &V::mean), f::Number("range_pct", &V::range_pct),
    f::Number("slope_excursion_pct", &V::slope_excursion_pct),
    f::Number("band_excursion_pct", &V::band_excursion_pct), f::Number("slope", &V::slope),
    f::Number("intercept", &V::intercept));

// The headline's keys, then `reached` over all variables in place of the headline's own.
constexpr auto kSteadyState = f::Object<TestSteadyState>(
    f::Inline(&TestSteadyState::headline, kVerdict), f::Flag("reached", &TestSteadyState::reached),
    f::Sub("variables", &TestSteadyState::variables, f::MapOf(kVerdict)),
    f::List("tracking", &TestSteadyState::tracking, f::TextOf()));

// A tracked variable's value: a number (the other values of a step's tracking are notes).
bool IsValue(const std::string&, const nlohmann::json& v) { return v.is_number(); }

constexpr auto kRounds = f::ListOf(f::Object<TrackedRound>(
    f::Count("round", &TrackedRound::round),
    f::Sub("tracking", &TrackedRound::tracking, f::MapOf(f::NumberOf<double>(), IsValue)),
    f::Number("op_pct", &TrackedRound::op_pct)));

}  // namespace

nlohmann::json ToJson(const SteadyStateVerdict& v) { return kVerdict.Write(v); }

Result<SteadyStateVerdict> VerdictFromJson(const nlohmann::json& j, const std::string& where) {
  return kVerdict.Parse(j, where);
}

nlohmann::json ToJson(const TestSteadyState& s) {
  return s.required ? kSteadyState.Write(s) : nlohmann::json::object();
}

Result<TestSteadyState> SteadyStateFromJson(const nlohmann::json& j, const std::string& where) {
  if (j.is_null() || (j.is_object() && j.empty())) return TestSteadyState{};
  SSDLAB_ASSIGN_OR_RETURN(TestSteadyState s, kSteadyState.Parse(j, where));
  s.required = true;
  // The headline's own flag is its variable's (the top level holds the all-variables one).
  if (!s.tracking.empty()) {
    if (auto v = s.variables.find(s.tracking.front()); v != s.variables.end())
      s.headline.reached = v->second.reached;
  }
  return s;
}

nlohmann::json ToJson(const std::vector<TrackedRound>& rounds) { return kRounds.Write(rounds); }

Result<std::vector<TrackedRound>> RoundsFromJson(const nlohmann::json& j,
                                                 const std::string& where) {
  std::vector<TrackedRound> rounds;
  if (!j.is_null()) SSDLAB_RETURN_IF_ERROR(kRounds.Read(j, where, rounds));
  return rounds;
}

}  // namespace ssdlab::results
