// `ssdlab sim fit` and `ssdlab sim compare`: the digital twin of a stored run (twin/fit.h).
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <sstream>

#include "base/output_file.h"
#include "cli/commands.h"
#include "sim/params.h"
#include "sim/preset_file.h"
#include "store/store.h"
#include "twin/figures.h"
#include "twin/fit.h"

namespace ssdlab {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

struct FitArgs {
  std::vector<std::string> runs;
  std::string db, base, fit, train_tests, out;
  uint64_t seed = 1;
  uint32_t max_evals = 0;
};

// The figures of every run, and the shape of the first.
Result<std::vector<twin::Figure>> LoadFigures(Store& store, const std::vector<std::string>& runs,
                                              twin::RunShape* shape, std::string* sim_target) {
  std::vector<twin::Figure> all;
  for (size_t i = 0; i < runs.size(); ++i) {
    SSDLAB_ASSIGN_OR_RETURN(nlohmann::json doc, store.RunJson(runs[i]));
    twin::RunShape s;
    SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::Figure> f, twin::FiguresOfRun(doc, &s));
    if (i == 0) {
      *shape = s;
      const nlohmann::json& ctx = doc["context"];
      const std::string target = ctx.value("target", nlohmann::json::object()).value("path", "");
      if (target.rfind("sim:", 0) == 0) *sim_target = target;
    }
    all.insert(all.end(), f.begin(), f.end());
  }
  return all;
}

int RunFit(const FitArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  if (Status s = CheckOutputPaths({{"-o", a.out}}, {{"--db", a.db}}); !s.ok()) return Fail(s);
  auto store = Store::Open(a.db, Store::Mode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  twin::RunShape shape;
  std::string run_target;
  auto figures = LoadFigures(*store.value(), a.runs, &shape, &run_target);
  if (!figures.ok()) return Fail(figures.status());
  std::string base_name = a.base;
  if (base_name.empty()) {
    if (run_target.empty())
      return Fail(Status::Invalid("sim fit: run '" + a.runs[0] +
                                  "' is not of a simulated drive; name the starting preset "
                                  "with --base PRESET"));
    base_name = run_target.substr(4);
  }
  auto base = sim::ParseSimTarget(
      "sim:" + (base_name.rfind("sim:", 0) == 0 ? base_name.substr(4) : base_name));
  if (!base.ok()) return Fail(base.status());
  twin::FitOptions o;
  o.keys = a.fit.empty() ? twin::DefaultFitKeys() : SplitList(a.fit);
  o.train_tests = SplitList(a.train_tests);
  for (const std::string& t : o.train_tests) {
    bool found = false;
    for (const twin::Figure& f : figures.value()) found |= f.test == t;
    if (!found)
      return Fail(Status::Invalid("--train-tests: run(s) " + a.runs[0] +
                                  " have no figures of test '" + t + "'"));
  }
  o.seed = a.seed;
  o.max_evals = a.max_evals;
  if (Status s = twin::CheckFitKeys(o.keys, base.value()); !s.ok()) return Fail(s);
  o.progress = [t0](uint32_t done, uint32_t budget, double best) {
    const int width = 30;
    const int filled = budget ? static_cast<int>(width * std::min(1.0, 1.0 * done / budget)) : 0;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << fmt::format("\rsim fit [{}{}] {}/{} evaluations, objective {:.4g}, {:.0f} s ",
                             std::string(filled, '#'), std::string(width - filled, '.'), done,
                             budget, best, secs)
              << std::flush;
  };
  auto r = twin::Fit(base.value(), figures.value(), shape, o);
  std::cerr << "\n";
  if (!r.ok()) return Fail(r.status());
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (Status s =
          WriteOutputFile("-o", a.out, twin::TwinToml(r.value(), base_name, a.runs, o, wall_s));
      !s.ok())
    return Fail(s);
  auto base_train = twin::MedianErrors(r->base_figures, false);
  auto base_held = twin::MedianErrors(r->base_figures, true);
  auto lookup = [](const std::vector<std::pair<std::string, double>>& v, const std::string& k) {
    for (const auto& [key, e] : v)
      if (key == k) return fmt::format("{:.1f}%", 100 * e);
    return std::string("-");
  };
  std::cout << fmt::format("twin of {} from {} ({} figures, {} evaluations, {:.0f} s): {}\n",
                           a.runs[0], base_name, figures->size(), r->evaluations, wall_s, a.out);
  std::cout << fmt::format("  {:<6} {:>14} {:>14} {:>14} {:>14}\n", "test", "fitted (twin)",
                           "held out (twin)", "fitted (base)", "held out (base)");
  auto train = twin::MedianErrors(r->figures, false);
  auto held = twin::MedianErrors(r->figures, true);
  std::vector<std::string> tests;
  for (const auto* v : {&train, &held})
    for (const auto& [k, e] : *v)
      if (std::find(tests.begin(), tests.end(), k) == tests.end()) tests.push_back(k);
  for (const std::string& t : tests)
    std::cout << fmt::format("  {:<6} {:>14} {:>14} {:>14} {:>14}\n", t, lookup(train, t),
                             lookup(held, t), lookup(base_train, t), lookup(base_held, t));
  std::cout << "  (median relative error |simulated - measured| / measured)\n";
  return kExitOk;
}

}  // namespace

void AddSimTwinCommands(CLI::App& sim, int* exit_code) {
  auto a = std::make_shared<FitArgs>();
  CLI::App* fit = sim.add_subcommand(
      "fit", "Fit a simulated drive (a twin) to stored runs' figures; writes a preset file");
  fit->add_option("runs", a->runs, "Stored run(s) to fit")->required();
  fit->add_option("--db", a->db, "Results database")->required();
  fit->add_option("--base", a->base,
                  "Preset (or FILE.toml, with ?key=value) to start from; default: the run's "
                  "simulated target");
  fit->add_option("--fit", a->fit,
                  "Comma-separated parameter keys to fit (default: cmd_us, ctrl_*_us, "
                  "t_read_us, t_prog_us, ch_mb_s, op, link_mb_s; gc and gc_lazy allowed)");
  fit->add_option("--train-tests", a->train_tests,
                  "Fit only these tests' figures (e.g. iops,lat,wsat); the others are held out. "
                  "Default: a quarter of each test's cells is held out");
  fit->add_option("--seed", a->seed, "Seed of the held-out split");
  fit->add_option("--max-evals", a->max_evals, "Simulations at most (default 40 + 12 x keys)");
  fit->add_option("-o,--output", a->out, "The twin's preset file (.toml)")->required();
  fit->callback([a, exit_code] { *exit_code = RunFit(*a); });
}

}  // namespace ssdlab
