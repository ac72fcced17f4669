// The twin's preset file: the fitted drive with its [fit] table (TwinToml), and the victim
// policies such a file records (VictimPoliciesOfTwinFile).
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "sim/preset_file.h"
#include "twin/fit_internal.h"

namespace ssdlab::twin {

using fit_internal::Format;
using fit_internal::kCellsPerKey;

Result<std::vector<FitResult::PolicyFit>> VictimPoliciesOfTwinFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) return Status::Invalid("cannot read twin file " + path);
  toml::table root;
  try {
    root = toml::parse(text.str(), path);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(path + ": " + std::string(e.description()));
  }
  std::vector<FitResult::PolicyFit> out;
  const toml::node_view<toml::node> list = root["fit"]["victim_policies"];
  if (!list) return out;
  const auto bad = [&] {
    return Status::Invalid(path +
                           ": [fit] victim_policies must be a list of { gc, objective, "
                           "held_out_median_error } tables");
  };
  if (!list.is_array()) return bad();
  for (const toml::node& n : *list.as_array()) {
    const toml::table* t = n.as_table();
    if (!t) return bad();
    const std::optional<std::string> gc = (*t)["gc"].value<std::string>();
    const std::optional<double> objective = (*t)["objective"].value<double>();
    const toml::table* errors = (*t)["held_out_median_error"].as_table();
    if (!gc || !objective || !errors) return bad();
    FitResult::PolicyFit v{*gc, *objective, {}};
    for (const auto& [test, e] : *errors) {
      const std::optional<double> x = e.value<double>();
      if (!x) return bad();
      v.held_out_errors.emplace_back(std::string(test.str()), *x);
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string TwinToml(const FitResult& r, const std::string& base_name,
                     const std::vector<std::string>& runs, const FitOptions& o, double wall_s) {
  sim::SimParams p = r.params;
  std::string run_list;
  for (const std::string& run : runs) run_list += (run_list.empty() ? "" : ", ") + run;
  p.description = "twin of run " + run_list + " (fitted by ssdlab sim fit from " + base_name +
                  (r.kept_base ? "; no candidate beat the base, whose values it keeps)" : ")");
  for (const std::string& k : r.fitted_keys) {
    const std::string src = "fitted to run " + run_list + " (ssdlab sim fit, seed " +
                            std::to_string(o.seed) +
                            (r.kept_base ? "; the base's value kept)" : ")");
    auto it = std::find_if(p.sources.begin(), p.sources.end(),
                           [&](const auto& kv) { return kv.first == k; });
    if (it != p.sources.end())
      it->second = src;
    else
      p.sources.emplace_back(k, src);
  }
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q + "\"";
  };
  auto list = [&](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + quote(v[i]);
    return s + "]";
  };
  auto table = [&](const std::vector<std::pair<std::string, double>>& errors) {
    std::string s = "{";
    bool first = true;
    for (const auto& [test, e] : errors) {
      s += (first ? " " : ", ") + test + " = " + Format(e, "%.4g");
      first = false;
    }
    return s + " }";
  };
  auto errors = [&](const std::vector<FigureFit>& f, bool held) {
    return table(MedianErrors(f, held));
  };
  std::string out = "# A simulated drive fitted to measured figures: load it as sim:THIS.toml\n";
  out += "# base = " + quote(base_name) + " (every key is written, so the file stands alone)\n";
  out += sim::PresetToml(p);
  out += "\n[fit]\n";
  out += "runs = " + list(runs) + "\n";
  out += "base = " + quote(base_name) + "\n";
  out += "keys = " + list(o.keys) + "\n";
  out += "# the keys fitted: those of `keys` the training figures pin (at most one per " +
         std::to_string(kCellsPerKey) + " cells)\n";
  out += "fitted_keys = " + list(r.fitted_keys) + "\n";
  out += "train_tests = " + list(o.train_tests) + "\n";
  out += "# the fraction of each test's cells held out (0: the default split)\n";
  out += "holdout = " + Format(o.holdout) + "\n";
  out += "# k-fold cross-validation: the fold held out, of how many (0 of 0: none)\n";
  out += "fold = [" + std::to_string(o.fold) + ", " + std::to_string(o.folds) + "]\n";
  out += "seed = " + std::to_string(o.seed) + "\n";
  out += "evaluations = " + std::to_string(r.evaluations) + "\n";
  out += "# the prior's weight; prior_cv: [weight, summed left-out loss] per weight tried by the\n";
  out += "# cross-validation on the training cells (empty: not cross-validated)\n";
  out += "prior_weight = " + Format(r.prior_weight) + "\n";
  out += "prior_cv = [";
  for (size_t i = 0; i < r.prior_cv.size(); ++i)
    out +=
        (i ? ", [" : "[") + Format(r.prior_cv[i].first) + ", " + Format(r.prior_cv[i].second) + "]";
  out += "]\n";
  out += "cv_evaluations = " + std::to_string(r.cv_evaluations) + "\n";
  out += "wall_s = " + Format(wall_s, "%.1f") + "\n";
  out += "# true: no candidate beat the base on the fitted figures (their median error; when\n";
  out += "# re-anchored, the full tests' objective), so the twin keeps the base's values\n";
  out += std::string("kept_base = ") + (r.kept_base ? "true" : "false") + "\n";
  out += "objective = " + Format(r.objective, "%.6g") + "\n";
  out += "base_objective = " + Format(r.base_objective, "%.6g") + "\n";
  out += "# median relative error |simulated - measured| / measured, per test\n";
  out += "train_median_error = " + errors(r.figures, false) + "\n";
  out += "held_out_median_error = " + errors(r.figures, true) + "\n";
  out += "base_train_median_error = " + errors(r.base_figures, false) + "\n";
  out += "base_held_out_median_error = " + errors(r.base_figures, true) + "\n";
  if (!r.rejected_figures.empty()) {
    out += "# the search's best point, not kept (its fitted figures' median error not below the\n";
    out += "# base's)\n";
    out += "rejected_train_median_error = " + errors(r.rejected_figures, false) + "\n";
    out += "rejected_held_out_median_error = " + errors(r.rejected_figures, true) + "\n";
  }
  if (!r.victim_policies.empty()) {
    out +=
        "# each victim policy at the twin's numbers, by its full tests: the training objective\n";
    out += "# (with the prior's term for a policy other than the base's) and the held-out median\n";
    out += "# errors (close objectives: the policies barely told apart)\n";
    out += "victim_policies = [\n";
    for (const FitResult::PolicyFit& v : r.victim_policies)
      out += "  { gc = " + quote(v.gc) + ", objective = " + Format(v.objective, "%.6g") +
             ", held_out_median_error = " + table(v.held_out_errors) + " },\n";
    out += "]\n";
  }
  out += "# every figure: measured, simulated on the twin, on the base, held out or fitted\n";
  out += "figures = [\n";
  for (size_t i = 0; i < r.figures.size(); ++i) {
    const FigureFit& f = r.figures[i];
    out += "  { name = " + quote(f.figure.Name()) + ", measured = " + Format(f.figure.value) +
           ", twin = " + Format(f.simulated) + ", base = " + Format(r.base_figures[i].simulated) +
           ", held_out = " + (f.held_out ? "true" : "false") + " },\n";
  }
  out += "]\n";
  return out;
}

}  // namespace ssdlab::twin
