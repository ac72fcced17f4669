#include "usecase/twin_runs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/thread.h"
#include "results/run_context.h"
#include "sim/params.h"
#include "sim/sim.h"
#include "store/store.h"
#include "suite/profile.h"
#include "suite/pts.h"
#include "twin/figures.h"
#include "twin/simulate.h"
#include "usecase/documents.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A results database in a fresh temporary directory, removed with it.
class TempStore {
 public:
  static Result<TempStore> Make() {
    std::string tmpl = (fs::temp_directory_path() / "ssdlab-twin-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      return Status::Io("cannot create a temporary directory under " +
                        fs::temp_directory_path().string());
    TempStore t;
    t.dir_ = tmpl;
    SSDLAB_ASSIGN_OR_RETURN(t.store_, Store::Open((fs::path(tmpl) / "twin.db").string()));
    return t;
  }
  TempStore() = default;
  TempStore(TempStore&& o) noexcept : dir_(std::move(o.dir_)), store_(std::move(o.store_)) {
    o.dir_.clear();
  }
  ~TempStore() {
    store_.reset();
    if (!dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }
  Store& store() { return *store_; }

 private:
  std::string dir_;
  std::unique_ptr<Store> store_;
};

// Runs a PTS battery on `target` as run `name` of `ts` and returns its document; with `hooks`,
// the tests it Runs() only.
Result<json> RunBattery(TempStore& ts, const std::string& name, const std::string& target,
                        const PtsOptions& o, const std::atomic<bool>* stop,
                        TestHooks* hooks = nullptr) {
  SSDLAB_RETURN_IF_ERROR(ValidatePtsOptions(o));
  auto backend = OpenSimBackend(target, SimOpenOptions{.lock_state = false});
  if (!backend.ok()) return backend.status();
  SSDLAB_RETURN_IF_ERROR(CheckPtsTarget(o, (*backend)->info()));
  json config = {{"options", PtsOptionsJson(o)}};
  json context = {{"target", TargetJson((*backend)->info())}};
  SSDLAB_ASSIGN_OR_RETURN(int64_t id,
                          ts.store().CreateRun(name, "pts", config, context, (*backend)->info()));
  Status st = RunPts(**backend, ts.store(), id, o, nullptr, stop, hooks);
  SSDLAB_RETURN_IF_ERROR(ts.store().SetRunStatus(id, st.ok() ? "done" : "failed"));
  if (!st.ok()) return st.WithContext("the twin's run " + name);
  return ts.store().RunJson(name);
}

// The battery of RunBattery with each test in a battery of its own, as many side by side as
// the machine has cores: every test purges first and keeps its seed (TestHooks::Runs), so the
// tests' figures are the one battery's. The document is the first test's with every test in
// the order of o.tests.
Result<json> RunBatteryInParallel(const std::string& name, const std::string& target,
                                  const PtsOptions& o, const std::atomic<bool>* stop) {
  const size_t n = o.tests.size();
  std::vector<Result<json>> docs(n, Status::Error(Code::kInternal, "not run"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      auto ts = TempStore::Make();
      if (!ts.ok()) {
        docs[i] = ts.status();
        continue;
      }
      OnlyTests only({o.tests[i]});
      docs[i] = RunBattery(ts.value(), name, target, o, stop, &only);
    }
  };
  const size_t workers = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) {
    // A worker that cannot start leaves its share to the others (this thread is one of them).
    auto t = StartThread(work, "a worker");
    if (!t.ok()) break;
    pool.push_back(std::move(t).value());
  }
  work();
  for (std::thread& t : pool) t.join();
  for (const Result<json>& d : docs) SSDLAB_RETURN_IF_ERROR(d.status());
  json out = std::move(docs[0].value());
  for (size_t i = 1; i < n; ++i)
    for (json& t : docs[i].value()["tests"]) out["tests"].push_back(std::move(t));
  return out;
}

const json& OptionsOf(const json& doc) {
  static const json null;
  auto ctx = doc.find("context");
  if (ctx == doc.end() || !ctx->is_object()) return null;
  auto config = ctx->find("config");
  if (config == ctx->end() || !config->is_object()) return null;
  auto it = config->find("options");
  return it != config->end() && it->is_object() ? *it : null;
}

double DescribeNumber(const std::vector<SimFigure>& figs, const std::string& key) {
  for (const SimFigure& f : figs)
    if (f.key == key) return std::strtod(f.value.c_str(), nullptr);
  return 0;
}

}  // namespace

Result<std::string> TwinTarget(const std::string& target, uint32_t scale_factor) {
  SSDLAB_ASSIGN_OR_RETURN(
      sim::SimParams p,
      sim::ParseSimTarget(target.rfind("sim:", 0) == 0 ? target : "sim:" + target));
  return twin::TargetOf(p, std::max<uint32_t>(1, scale_factor));
}

bool HasPtsOptions(const json& run_doc) {
  const json& o = OptionsOf(run_doc);
  return o.is_object() && o.contains("spec") && o.contains("round_ns");
}

namespace {

// Commands outstanding (threads x QD) from which two loads of a cell are taken to measure the
// same (both keep the drive busy): MatchFigures.
constexpr uint32_t kDeepLoad = 32;

// The tests of an import that ImportedBattery re-measures, in battery order.
const std::vector<std::string> kImportedRerunTests = {"iops", "tp", "lat", "wsat"};

// The imported cells of test `name` of the run document (none when it has no such test).
std::vector<json> ImportedCells(const json& run_doc, const std::string& name) {
  std::vector<json> out;
  if (!run_doc.contains("tests") || !run_doc["tests"].is_array()) return out;
  for (const json& t : run_doc["tests"]) {
    if (!t.is_object() || t.value("name", json()) != name) continue;
    const json& r = t.value("results", json::object());
    if (r.is_object() && r.contains("imported_cells") && r["imported_cells"].is_array())
      for (const json& c : r["imported_cells"])
        if (c.is_object()) out.push_back(c);
  }
  return out;
}

// `spec` with the values of `extra` it lacks appended (the spec's order first).
template <class T, class Eq>
void AddMissing(std::vector<T>& spec, const std::vector<T>& extra, Eq eq) {
  for (const T& v : extra)
    if (std::none_of(spec.begin(), spec.end(), [&](const T& s) { return eq(s, v); }))
      spec.push_back(v);
}

}  // namespace

bool CanRerun(const json& run_doc) {
  if (HasPtsOptions(run_doc)) return true;
  for (const std::string& t : kImportedRerunTests)
    if (!ImportedCells(run_doc, t).empty()) return true;
  return false;
}

Result<PtsOptions> ImportedBattery(const json& run_doc, const std::string& target,
                                   std::string* at) {
  PtsOptions o = SpecDefaults(PtsSpec::kReview);
  o.tests.clear();
  std::vector<uint64_t> iops_bs, tp_bs, lat_bs;
  std::vector<Mix> iops_mix, lat_mix;
  std::set<std::pair<uint32_t, uint32_t>> loads;  // of the iops and wsat cells
  for (const std::string& t : kImportedRerunTests) {
    const std::vector<json> cells = ImportedCells(run_doc, t);
    if (cells.empty()) continue;
    o.tests.push_back(t);
    for (const json& c : cells) {
      // As twin/figures.h reads them: a missing threads or QD is 1.
      const auto num = [&c](const char* key, double missing) {
        auto it = c.find(key);
        return it != c.end() && it->is_number() && it->get<double>() > 0 ? it->get<double>()
                                                                         : missing;
      };
      const auto bs = static_cast<uint64_t>(num("block_bytes", 4096));
      const Mix mix{num("read_pct", 0)};
      if (t == "iops") iops_bs.push_back(bs), iops_mix.push_back(mix);
      if (t == "tp") tp_bs.push_back(bs);
      if (t == "lat") lat_bs.push_back(bs), lat_mix.push_back(mix);
      if (t == "iops" || t == "wsat")
        loads.insert(
            {static_cast<uint32_t>(num("threads", 1)), static_cast<uint32_t>(num("qd", 1))});
    }
  }
  if (loads.size() == 1) std::tie(o.threads, o.qd) = *loads.begin();
  if (o.tests.empty()) {
    const std::string run = run_doc.value("context", json::object()).value("run", "?");
    return Status::Invalid("run '" + run +
                           "' holds neither PTS options nor imported cells of iops, tp, lat or "
                           "wsat to re-run");
  }
  const auto same = [](auto a, auto b) { return a == b; };
  const auto same_mix = [](const Mix& a, const Mix& b) { return a.read_pct == b.read_pct; };
  AddMissing(o.iops_block_bytes, iops_bs, same);
  AddMissing(o.iops_mixes, iops_mix, same_mix);
  AddMissing(o.tp_block_bytes, tp_bs, same);
  AddMissing(o.lat_block_bytes, lat_bs, same);
  AddMissing(o.lat_mixes, lat_mix, same_mix);
  // A fresh IOPS table was measured with the whole matrix in one round's time.
  // (An import's configuration holds its options itself.)
  const json& config = run_doc.value("context", json::object()).value("config", json::object());
  if (config.is_object() && config.value("iops_state", json()) == "fresh")
    o.iops_round_ns = o.round_ns / (o.iops_mixes.size() * o.iops_block_bytes.size());
  SSDLAB_ASSIGN_OR_RETURN(sim::SimParams p, sim::ParseSimTarget(target));
  const uint32_t n = DerivedTimeScale(o.round_ns, p.scale);
  DivideDurations(o, n);
  SSDLAB_ASSIGN_OR_RETURN(*at, sim::SimTargetAtScale(target, n, true));
  return o;
}

Result<json> RerunOnTwin(const json& run_doc, const std::string& target,
                         const std::atomic<bool>* stop) {
  auto ctx = results::RunContextFromJson(run_doc.value("context", json()), "context");
  if (!ctx.ok()) return ctx.status();
  const std::string run = ctx->run.empty() ? "?" : ctx->run;
  if (!HasPtsOptions(run_doc)) {
    std::string at;
    SSDLAB_ASSIGN_OR_RETURN(PtsOptions o, ImportedBattery(run_doc, target, &at));
    return RunBatteryInParallel("twin-of-" + run, at, o, stop);
  }
  SSDLAB_ASSIGN_OR_RETURN(PtsOptions o, PtsOptionsFromJson(OptionsOf(run_doc)));
  o.tests.clear();
  for (const std::string& t : PtsTestNames()) {
    if (!twin::HasFigures(t)) continue;
    const json& tests = run_doc.contains("tests") ? run_doc["tests"] : json::array();
    for (const json& test : tests)  // compared as JSON: a damaged entry matches nothing
      if (test.is_object() && test.value("name", json()) == t &&
          test.value("status", json()) == "done")
        o.tests.push_back(t);
  }
  if (o.tests.empty())
    return Status::Invalid("run '" + run + "' has none of the tests a twin re-runs (finished " +
                           "iops, tp, lat, lvi, wsat or hir)");
  // A run made with --time-scale N ran its drive at scale N: so does the twin.
  std::string at = target;
  if (o.time_scale > 1) {
    SSDLAB_ASSIGN_OR_RETURN(at, sim::SimTargetAtScale(target, o.time_scale, true));
  }
  // Each test purges first, so the tests can run side by side; with --purge none they share
  // the drive's state and run in order.
  if (o.purge != "none") return RunBatteryInParallel("twin-of-" + run, at, o, stop);
  SSDLAB_ASSIGN_OR_RETURN(TempStore ts, TempStore::Make());
  return RunBattery(ts, "twin-of-" + run, at, o, stop);
}

std::vector<double> MatchFigures(const std::vector<twin::Figure>& measured,
                                 const std::vector<twin::Figure>& simulated) {
  // The name without the load ("T16 Q8"): a cell of the same test, pattern, mix, size, position.
  const auto cell = [](const twin::Figure& f) {
    twin::Figure g = f;
    g.threads = g.qd = 0;
    return g.Name();
  };
  const auto deep = [](const twin::Figure& f) { return f.threads * f.qd >= kDeepLoad; };
  std::map<std::string, double> by_name;
  std::map<std::string, std::vector<double>> deep_cells;
  for (const twin::Figure& f : simulated) {
    by_name[f.Name()] = f.value;
    if (deep(f)) deep_cells[cell(f)].push_back(f.value);
  }
  std::vector<double> out;
  for (const twin::Figure& f : measured) {
    auto it = by_name.find(f.Name());
    auto c = deep_cells.find(cell(f));
    const bool other_load =
        !f.role.empty() && deep(f) && c != deep_cells.end() && c->second.size() == 1;
    out.push_back(it != by_name.end() ? it->second : other_load ? c->second[0] : 0);
  }
  return out;
}

Result<std::vector<twin::FigureFit>> CompareOnTwin(const json& run_doc, const std::string& target,
                                                   const json& twin_doc) {
  twin::RunShape shape;
  SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::Figure> measured, twin::FiguresOfRun(run_doc, &shape));
  std::vector<twin::FigureFit> out;
  if (!twin_doc.is_null()) {
    SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::Figure> sim, twin::FiguresOfRun(twin_doc, nullptr));
    const std::vector<double> v = MatchFigures(measured, sim);
    for (size_t i = 0; i < measured.size(); ++i) out.push_back({measured[i], v[i], false});
    return out;
  }
  SSDLAB_ASSIGN_OR_RETURN(sim::SimParams p, sim::ParseSimTarget(target));
  twin::SimulateOptions so;
  so.hir_cycles = shape.hir_cycles;
  SSDLAB_ASSIGN_OR_RETURN(std::vector<double> v, twin::SimulateFigures(p, measured, shape, so));
  for (size_t i = 0; i < measured.size(); ++i) out.push_back({measured[i], v[i], false});
  return out;
}

Result<std::vector<WhatIfRun>> WhatIfRuns(const std::string& target, const WhatIfOptions& w) {
  SSDLAB_ASSIGN_OR_RETURN(std::vector<SimFigure> desc, DescribeSim(target));
  SSDLAB_ASSIGN_OR_RETURN(TempStore ts, TempStore::Make());
  std::vector<WhatIfRun> out;

  // The OP advisor: each point purged, then `op_capacities` of the (smaller) range written.
  {
    SSDLAB_ASSIGN_OR_RETURN(ProfileDef def, BuiltinProfile("op-advisor"));
    ProfileOptions po;
    po.op_pcts = w.op_pcts;
    const double bytes = DescribeNumber(desc, "user_bytes_simulated");
    const double iops = std::max(1.0, DescribeNumber(desc, "write_iops_4k_steady"));
    po.time_ns = static_cast<uint64_t>(w.op_capacities * bytes / (iops * 4096) * 1e9);
    po.time_ns = std::max<uint64_t>(po.time_ns, 2'000'000'000);
    po.interval_ns = std::max<uint64_t>(po.time_ns / 60, 100'000'000);
    po.threads = 4;
    po.qd = 32;
    SSDLAB_RETURN_IF_ERROR(ValidateProfileOptions(def, po));
    SSDLAB_ASSIGN_OR_RETURN(auto backend,
                            OpenSimBackend(target, SimOpenOptions{.lock_state = false}));
    json config = {{"options", ProfileOptionsJson(po)}, {"profile", def.name}, {"kind", def.kind}};
    json context = {{"target", TargetJson(backend->info())}};
    SSDLAB_ASSIGN_OR_RETURN(
        int64_t id, ts.store().CreateRun("op", "profile", config, context, backend->info()));
    SSDLAB_RETURN_IF_ERROR(RunProfile(*backend, ts.store(), id, 0, def, po, nullptr, w.stop));
    SSDLAB_RETURN_IF_ERROR(ts.store().SetRunStatus(id, "done"));
    SSDLAB_ASSIGN_OR_RETURN(json doc, ts.store().RunJson("op"));
    out.push_back({"twin: OP advisor", "op", std::move(doc)});
  }
  PtsOptions base = SpecDefaults(PtsSpec::kReview);
  base.threads = w.threads;
  base.qd = w.qd;
  // WSAT to 4 capacities.
  {
    PtsOptions o = base;
    o.tests = {"wsat"};
    o.wsat_capacity_multiple = 4;
    o.wsat_round_ns = w.round_ns;
    SSDLAB_ASSIGN_OR_RETURN(json doc, RunBattery(ts, "wsat", target, o, w.stop));
    out.push_back({"twin: WSAT", "wsat", std::move(doc)});
  }
  // One twin and arrays of four: IOPS of 4 KiB random cells, TP of 128 KiB sequential.
  PtsOptions arr = base;
  arr.tests = {"iops", "tp"};
  arr.round_ns = w.round_ns;
  arr.max_rounds = 8;
  arr.steady.window_rounds = 3;
  arr.iops_block_bytes = {4096};
  arr.iops_mixes = {Mix{100}, Mix{70}, Mix{0}};
  arr.tp_block_bytes = {128 * 1024};
  arr.wipc_multiple = 1;
  SSDLAB_ASSIGN_OR_RETURN(json single, RunBattery(ts, "single", target, arr, w.stop));
  out.push_back({"one twin", "single", std::move(single)});
  for (const char* layout : {"raid10", "raid5"}) {
    SSDLAB_ASSIGN_OR_RETURN(std::string a,
                            ArrayTarget({target, target, target, target}, layout, "64KiB"));
    SSDLAB_ASSIGN_OR_RETURN(json doc, RunBattery(ts, layout, a, arr, w.stop));
    out.push_back(
        {fmt::format("4 x twin, {}", std::string(layout) == "raid5" ? "RAID 5" : "RAID 10"), layout,
         std::move(doc)});
  }
  return out;
}

}  // namespace ssdlab::usecase
