#include "results/steady_state.h"

#include "results/read.h"

namespace ssdlab::results {
using internal::Count;
using internal::Flag;
using internal::Number;
using nlohmann::json;

json ToJson(const SteadyStateVerdict& v) {
  return {{"reached", v.reached},
          {"rounds_run", v.rounds_run},
          {"window", v.window_rounds},
          {"window_first_round", v.window_first_round},
          {"mean", v.mean},
          {"range_pct", v.range_pct},
          {"slope_excursion_pct", v.slope_excursion_pct},
          {"band_excursion_pct", v.band_excursion_pct},
          {"slope", v.slope},
          {"intercept", v.intercept}};
}

Result<SteadyStateVerdict> VerdictFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  SteadyStateVerdict v;
  SSDLAB_RETURN_IF_ERROR(Flag(j, where, "reached", v.reached));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "rounds_run", v.rounds_run));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "window", v.window_rounds));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "window_first_round", v.window_first_round));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean", v.mean));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "range_pct", v.range_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "slope_excursion_pct", v.slope_excursion_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "band_excursion_pct", v.band_excursion_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "slope", v.slope));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "intercept", v.intercept));
  return v;
}

json ToJson(const TestSteadyState& s) {
  if (!s.required) return json::object();
  json out = ToJson(s.headline);
  out["reached"] = s.reached;
  json vars = json::object();
  for (const auto& [name, v] : s.variables) vars[name] = ToJson(v);
  out["variables"] = vars;
  out["tracking"] = s.tracking;
  return out;
}

Result<TestSteadyState> SteadyStateFromJson(const json& j, const std::string& where) {
  TestSteadyState s;
  if (j.is_null() || (j.is_object() && j.empty())) return s;
  SSDLAB_ASSIGN_OR_RETURN(s.headline, VerdictFromJson(j, where));
  s.required = true;
  s.reached = s.headline.reached;
  if (auto it = j.find("variables"); it != j.end()) {
    if (!it->is_object()) return Status::Invalid(where + ".variables is not an object");
    for (const auto& [name, v] : it->items()) {
      SSDLAB_ASSIGN_OR_RETURN(s.variables[name], VerdictFromJson(v, where + ".variables." + name));
    }
  }
  if (auto it = j.find("tracking"); it != j.end()) {
    if (!it->is_array()) return Status::Invalid(where + ".tracking is not a list");
    for (const json& name : *it) {
      if (!name.is_string()) return Status::Invalid(where + ".tracking holds a non-name");
      s.tracking.push_back(name.get<std::string>());
    }
  }
  // The headline's own flag is its variable's (the top level holds the all-variables one).
  if (!s.tracking.empty()) {
    if (auto v = s.variables.find(s.tracking.front()); v != s.variables.end())
      s.headline.reached = v->second.reached;
  }
  return s;
}

}  // namespace ssdlab::results
