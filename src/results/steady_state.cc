#include "results/steady_state.h"

#include <fmt/format.h>

#include <cmath>

#include "base/units.h"
#include "results/fields.h"

namespace ssdlab::results {

namespace {

namespace f = fields;
using V = SteadyStateVerdict;
using C = SteadyStateCriteria;

// An enumeration stored as one of its names.
template <class E, size_t N>
struct NamesCodec {
  const char* want;  // "snia or review-band"
  std::pair<E, const char*> names[N];
  nlohmann::json Write(const E& e) const {
    for (const auto& [v, name] : names) {
      if (v == e) return name;
    }
    return nullptr;
  }
  Status Read(const nlohmann::json& j, const std::string& where, E& out) const {
    for (const auto& [v, name] : names) {
      if (j.is_string() && j.get<std::string>() == name) {
        out = v;
        return Status::Ok();
      }
    }
    return Status::Invalid(where + " is not " + want);
  }
};

constexpr NamesCodec<SteadyStateRule, 2> kRule{
    "snia or review-band",
    {{SteadyStateRule::kSnia, "snia"}, {SteadyStateRule::kReviewBand, "review-band"}}};
constexpr NamesCodec<TestEnd, 4> kEnd{"steady_state, round_limit, capacity or test_round_limit",
                                      {{TestEnd::kSteadyState, "steady_state"},
                                       {TestEnd::kRoundLimit, "round_limit"},
                                       {TestEnd::kOwnCapacity, "capacity"},
                                       {TestEnd::kOwnRoundLimit, "test_round_limit"}}};

// The limits a verdict was judged by, as the stored options write them (pts_options.cc).
constexpr auto kCriteria = f::Object<C>(
    f::Sub("rule", &C::rule, kRule), f::Count("window", &C::window_rounds),
    f::Number("max_range_pct", &C::max_range_pct), f::Number("max_slope_pct", &C::max_slope_pct),
    f::Number("band_pct", &C::band_pct));

constexpr auto kVerdict = f::Object<V>(
    f::Flag("reached", &V::reached), f::Count("rounds_run", &V::rounds_run),
    f::Count("window", &V::window_rounds), f::Count("window_first_round", &V::window_first_round),
    f::Number("mean", &V::mean), f::Number("range_pct", &V::range_pct),
    f::Number("slope_excursion_pct", &V::slope_excursion_pct),
    f::Number("band_excursion_pct", &V::band_excursion_pct), f::Number("slope", &V::slope),
    f::Number("intercept", &V::intercept), f::Count("first_judged_round", &V::first_judged_round),
    f::Sub("criteria", &V::criteria, kCriteria), f::Flag("snia_met", &V::snia_met),
    f::Flag("band_met", &V::band_met));

// The headline's keys, then `reached` over all variables in place of the headline's own.
constexpr auto kSteadyState = f::Object<TestSteadyState>(
    f::Inline(&TestSteadyState::headline, kVerdict), f::Flag("reached", &TestSteadyState::reached),
    f::Sub("variables", &TestSteadyState::variables, f::MapOf(kVerdict)),
    f::List("tracking", &TestSteadyState::tracking, f::TextOf()),
    f::Sub("end", &TestSteadyState::end, kEnd),
    f::Number("end_capacity_multiple", &TestSteadyState::end_capacity_multiple),
    f::Count("end_rounds", &TestSteadyState::end_rounds));

// "45%", "3.14%", "0.5%".
std::string Pct(double pct) { return fmt::format("{:.3g}%", pct); }

// The decisive figures of SNIA's rule: "data excursion 12% <= 20%, slope excursion 4% <= 10%".
std::string SniaFigures(const V& v, const C& c) {
  return fmt::format("data excursion {} {} {}, slope excursion {} {} {}", Pct(v.range_pct),
                     v.range_pct <= c.max_range_pct + 1e-9 ? "<=" : ">", Pct(c.max_range_pct),
                     Pct(v.slope_excursion_pct),
                     v.slope_excursion_pct <= c.max_slope_pct + 1e-9 ? "<=" : ">",
                     Pct(c.max_slope_pct));
}
// SNIA's limits that the window exceeds: "data excursion 45% exceeds SNIA's 20%".
std::string SniaFailures(const V& v, const C& c) {
  std::string out;
  if (v.range_pct > c.max_range_pct + 1e-9)
    out =
        fmt::format("data excursion {} exceeds SNIA's {}", Pct(v.range_pct), Pct(c.max_range_pct));
  if (v.slope_excursion_pct > c.max_slope_pct + 1e-9)
    out += fmt::format("{}slope excursion {} exceeds SNIA's {}", out.empty() ? "" : ", ",
                       Pct(v.slope_excursion_pct), Pct(c.max_slope_pct));
  return out;
}
// "fitted line within 3.1% of the mean, band 10%" / "fitted line 14% from the mean, band 10%".
std::string BandFigures(const V& v, const C& c) {
  if (v.band_excursion_pct <= c.band_pct + 1e-9)
    return fmt::format("fitted line within {} of the mean, band {}", Pct(v.band_excursion_pct),
                       Pct(c.band_pct));
  return fmt::format("fitted line {} from the mean, band {}", Pct(v.band_excursion_pct),
                     Pct(c.band_pct));
}

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

const SteadyStateVerdict& DecidingVerdict(const TestSteadyState& s) {
  for (const std::string& name : s.tracking) {
    auto it = s.variables.find(name);
    if (it != s.variables.end() && !it->second.reached) return it->second;
  }
  for (const auto& [name, v] : s.variables) {
    if (!v.reached) return v;  // a TP test's later block sizes (not in `tracking`)
  }
  return s.headline;
}

bool MissedSteadyState(const TestSteadyState& s) {
  return s.required && !s.reached && s.end != TestEnd::kOwnCapacity &&
         s.end != TestEnd::kOwnRoundLimit;
}

std::string EvidenceText(const SteadyStateVerdict& v) {
  if (!v.criteria || !v.snia_met || !v.band_met) return "";
  const C& c = *v.criteria;
  if (v.rounds_run < c.window_rounds)
    return fmt::format("window incomplete: {} of {} rounds", v.rounds_run, c.window_rounds);
  const uint32_t first_judged = v.first_judged_round.value_or(0);
  if (first_judged >= v.rounds_run)
    return fmt::format("preconditioning not complete after {} rounds: no window judged",
                       v.rounds_run);
  if (v.window_first_round < first_judged)
    return fmt::format(
        "the window (rounds {}-{}) starts before preconditioning ended in round {}: not judged",
        v.window_first_round + 1, v.window_first_round + v.window_rounds, first_judged);
  const bool snia = c.rule == SteadyStateRule::kSnia;
  const bool decided = snia ? *v.snia_met : *v.band_met;
  std::string out = fmt::format("{} by {} ({})", decided ? "reached" : "not reached",
                                snia ? "SNIA's rule" : "the review rule",
                                snia ? SniaFigures(v, c) : BandFigures(v, c));
  if (snia) {
    out += *v.band_met
               ? "; the review rule's band met too"
               : fmt::format("; fitted line {} from the mean, outside the review rule's {} band",
                             Pct(v.band_excursion_pct), Pct(c.band_pct));
  } else {
    out += *v.snia_met ? fmt::format("; SNIA's rule met too ({})", SniaFigures(v, c))
                       : "; " + SniaFailures(v, c);
  }
  return out;
}

std::string TrackedValueText(const std::string& variable, double value) {
  auto ends = [&](const std::string& suffix) {
    return variable.size() >= suffix.size() &&
           variable.compare(variable.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends("iops")) return FormatNumber(std::round(value)) + " IOPS";
  if (ends("bw")) return fmt::format("{:.1f} MB/s", value / 1e6);
  if (ends("_ns")) return FormatNumber(value / 1e3) + " µs";
  return FormatNumber(value);
}

std::string VerdictLine(const TestSteadyState& s) {
  if (!s.required) return "no steady-state requirement";
  const SteadyStateVerdict& h = s.headline;
  std::string head;
  const std::string rounds =
      fmt::format("rounds {}-{} of {} (window {}, mean {})", h.window_first_round + 1,
                  h.window_first_round + h.window_rounds, h.rounds_run, h.window_rounds,
                  TrackedValueText(s.tracking.empty() ? "" : s.tracking.front(), h.mean));
  if (s.end == TestEnd::kOwnCapacity || s.end == TestEnd::kOwnRoundLimit) {
    head = s.end == TestEnd::kOwnCapacity
               ? fmt::format("ended at {:g}x capacity, the spec's end",
                             s.end_capacity_multiple.value_or(0))
               : fmt::format("ended at its round limit of {} rounds, the spec's end",
                             s.end_rounds.value_or(h.rounds_run));
    head += s.reached ? "; steady state in " + rounds
                      : fmt::format("; steady state not reached in its {} round{}", h.rounds_run,
                                    h.rounds_run == 1 ? "" : "s");
  } else if (s.reached) {
    head = "steady state reached in " + rounds;
  } else {
    head = fmt::format("STEADY STATE NOT REACHED after {} rounds{}", h.rounds_run,
                       s.end == TestEnd::kRoundLimit ? " (the round limit)" : "");
  }
  const std::string evidence = EvidenceText(DecidingVerdict(s));
  return evidence.empty() ? head : head + "; " + evidence;
}

nlohmann::json ToJson(const std::vector<TrackedRound>& rounds) { return kRounds.Write(rounds); }

Result<std::vector<TrackedRound>> RoundsFromJson(const nlohmann::json& j,
                                                 const std::string& where) {
  std::vector<TrackedRound> rounds;
  if (!j.is_null()) SSDLAB_RETURN_IF_ERROR(kRounds.Read(j, where, rounds));
  return rounds;
}

}  // namespace ssdlab::results
