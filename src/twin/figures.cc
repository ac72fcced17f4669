#include "twin/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

#include "base/strings.h"
#include "base/units.h"
#include "results/hir.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/pts_tests.h"
#include "results/tp.h"
#include "results/wsat.h"

namespace ssdlab::twin {

const std::vector<std::string>& FiguresTests() {
  using T = results::PtsTest;
  static const std::vector<std::string> kTests = [] {
    std::vector<std::string> out;
    for (T t : {T::kIops, T::kTp, T::kLat, T::kLvi, T::kWsat, T::kHir})
      out.push_back(results::PtsTestOf(t).name);
    return out;
  }();
  return kTests;
}

bool HasFigures(const std::string& test) {
  const std::vector<std::string>& t = FiguresTests();
  return std::find(t.begin(), t.end(), test) != t.end();
}
namespace {

using nlohmann::json;

// p99.99 and the maximum are left out: in a short re-simulation they are single events (a GC
// batch or not), so they cannot be fitted.
const std::vector<std::string> kLatMetrics = {"lat_mean_us", "lat_p99_us", "lat_p99_9_us"};

double Num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

// The characters of `s` from its start that are digits or dots ("1.5KiB" -> "1.5").
std::string_view LeadingNumber(std::string_view s) {
  return s.substr(0, std::min(s.size(), s.find_first_not_of("0123456789.")));
}

// The first "rw=R/W bs=SIZE" in `cell` (R, W: digits and dots; SIZE: digits and dots, then an
// optional K, M or G, an optional i, and B): R and SIZE.
bool FindReadShareAndBlock(std::string_view cell, std::string_view* read, std::string_view* bs) {
  for (size_t at = cell.find("rw="); at != std::string_view::npos; at = cell.find("rw=", at + 1)) {
    std::string_view s = cell.substr(at + 3);
    const std::string_view r = LeadingNumber(s);
    s.remove_prefix(r.size());
    if (r.empty() || s.substr(0, 1) != "/") continue;
    const std::string_view w = LeadingNumber(s.substr(1));
    s.remove_prefix(1 + w.size());
    if (w.empty() || s.substr(0, 4) != " bs=") continue;
    s.remove_prefix(4);
    size_t n = LeadingNumber(s).size();
    if (n == 0) continue;
    if (n < s.size() && (s[n] == 'K' || s[n] == 'M' || s[n] == 'G')) ++n;
    if (n < s.size() && s[n] == 'i') ++n;
    if (n >= s.size() || s[n] != 'B') continue;
    *read = r;
    *bs = s.substr(0, n + 1);
    return true;
  }
  return false;
}

// The first "qd=Q jobs=J" in `description` (decimal digits): Q and J.
bool FindQdAndJobs(std::string_view description, uint64_t* qd, uint64_t* jobs) {
  for (size_t at = description.find("qd="); at != std::string_view::npos;
       at = description.find("qd=", at + 1)) {
    std::string_view s = description.substr(at + 3);
    const std::string_view q = LeadingDigits(s);
    s.remove_prefix(q.size());
    if (q.empty() || s.substr(0, 6) != " jobs=") continue;
    const std::string_view j = LeadingDigits(s.substr(6));
    auto qv = ParseCount(q), jv = ParseCount(j);
    if (!qv.ok() || !jv.ok()) continue;
    *qd = qv.value();
    *jobs = jv.value();
    return true;
  }
  return false;
}

// Reads "rw=65/35 bs=4KiB" (a cell name) and "qd=8 jobs=16", "rand"/"seq " (its workload's
// description) into `f`. False when the cell is not shaped so.
bool ParseCell(const std::string& cell, const std::string& description, Figure* f) {
  std::string_view read, block;
  if (!FindReadShareAndBlock(cell, &read, &block)) return false;
  const std::string read_text(read);
  char* end = nullptr;
  f->read_pct = std::strtod(read_text.c_str(), &end);
  if (end == read_text.c_str()) return false;
  auto bs = ParseBytes(block);
  if (!bs.ok()) return false;
  f->block_bytes = bs.value();
  uint64_t qd = 0, jobs = 0;
  if (!FindQdAndJobs(description, &qd, &jobs)) return false;
  f->qd = static_cast<uint32_t>(qd);
  f->threads = static_cast<uint32_t>(jobs);
  f->sequential = description.rfind("seq", 0) == 0;
  return true;
}

// The figures of one phase's metrics (their total).
void AddMetrics(const Figure& cell, const results::PhaseMetrics& m, std::vector<Figure>* out) {
  const results::DirectionMetrics& total = m.total;
  auto pct = [&](const char* key) { return total.lat_ns.Stat(key).value_or(0); };
  for (const std::string& metric : MetricsOf(cell.test)) {
    Figure f = cell;
    f.metric = metric;
    if (metric == "iops") f.value = total.iops;
    if (metric == "mb_s") f.value = total.bw_bytes_per_s / 1e6;
    if (metric == "lat_mean_us") f.value = total.lat_ns.mean / 1e3;
    if (metric == "lat_p99_us") f.value = pct("p99") / 1e3;
    if (metric == "lat_p99_9_us") f.value = pct("p99_9") / 1e3;
    if (metric == "lat_p99_99_us") f.value = pct("p99_99") / 1e3;
    if (metric == "lat_max_us") f.value = static_cast<double>(total.lat_ns.max) / 1e3;
    if (f.value > 0) out->push_back(f);
  }
}

Status Shape(const std::string& run, const std::string& test, const std::string& what) {
  return Status::Invalid("run '" + run + "', test " + test + ": " + what +
                         " (not as ssdlab stores it)");
}

Status Cells(const std::string& run, const std::string& test,
             const std::vector<results::CellResult>& cells, std::vector<Figure>* out) {
  for (const results::CellResult& c : cells) {
    Figure f;
    f.test = test;
    f.run = run;
    if (!ParseCell(c.cell, c.workload.description, &f))
      return Shape(run, test, "cell '" + c.cell + "' has no workload");
    AddMetrics(f, c.metrics, out);
  }
  return Status::Ok();
}

// The typed results of a stored test (a results/ FromJson), a damaged one naming the run.
template <class From>
auto Read(From from, const json& results, const std::string& run, const std::string& test)
    -> decltype(from(results, test)) {
  auto r = from(results, test + ".results");
  if (!r.ok()) return r.status().WithContext("run '" + run + "'");
  return r;
}

// Threads x QD of the write load of WSAT and HIR: the run's --threads/--qd, else its spec's
// (suite/tests.cc LoadOf).
std::pair<uint32_t, uint32_t> WriteLoad(const json& opts) {
  const std::string spec = opts.value("spec", "review");
  std::pair<uint32_t, uint32_t> l = spec == "review"                      ? std::pair{16u, 8u}
                                    : spec.find('c') != std::string::npos ? std::pair{2u, 16u}
                                                                          : std::pair{4u, 32u};
  if (opts.value("threads", 0u)) l.first = opts["threads"].get<uint32_t>();
  if (opts.value("qd", 0u)) l.second = opts["qd"].get<uint32_t>();
  return l;
}

// Capacities of random writes of a PTS IOPS test up to its last round: every round as its
// measured (window) cells, each cell as long as the options' IOPS cell; infinite when the run
// does not say how many rounds ran or how long a cell was (read as steady).
double IopsWrittenCapacities(const json& opts, const json& test, const results::MatrixResults& m) {
  const double cell_s =
      (Num(opts, "iops_round_ns") > 0 ? Num(opts, "iops_round_ns") : Num(opts, "round_ns")) / 1e9;
  const double rounds = Num(test.value("steady_state", json::object()), "rounds_run");
  if (rounds <= 0 || cell_s <= 0) return std::numeric_limits<double>::infinity();
  double bytes_per_round = 0;
  for (const results::CellResult& c : m.cells)
    bytes_per_round += c.metrics.write.bw_bytes_per_s * cell_s;
  return rounds * bytes_per_round / static_cast<double>(m.range_bytes);
}

}  // namespace

std::string Figure::Name() const {
  char buf[200];
  std::string where;
  if (test == "wsat") {
    std::snprintf(buf, sizeof buf, " x=%.3g", x);
    where = buf;
  } else if (test == "hir") {
    std::snprintf(buf, sizeof buf, " wait=%gs", x);
    where = buf;
  }
  std::snprintf(buf, sizeof buf, "%s %s rw=%g/%g bs=%s T%u Q%u%s %s", test.c_str(),
                sequential ? "seq" : "rnd", read_pct, 100 - read_pct,
                FormatBytes(block_bytes).c_str(), threads, qd, where.c_str(), metric.c_str());
  return buf;
}

const std::vector<std::string>& MetricsOf(const std::string& test) {
  static const std::vector<std::string> iops = {"iops"};
  static const std::vector<std::string> tp = {"mb_s"};
  static const std::vector<std::string> lvi = {"iops", "lat_mean_us"};
  if (test == "tp") return tp;
  if (test == "lat") return kLatMetrics;
  if (test == "lvi") return lvi;
  return iops;
}

Result<std::vector<Figure>> FiguresOfRun(const json& doc, RunShape* shape) {
  const json& ctx = doc.value("context", json::object());
  const std::string run = ctx.value("run", "?");
  const json& config = ctx.value("config", json::object());
  const json& opts = config.contains("hir_cycles") ? config : config.value("options", config);
  if (shape) {
    if (opts.contains("capacity_bytes") && opts["capacity_bytes"].is_number())
      shape->capacity_bytes = opts["capacity_bytes"].get<uint64_t>();
    if (opts.contains("hir_write_ns")) shape->hir_write_ns = opts["hir_write_ns"].get<uint64_t>();
    if (opts.contains("hir_cycles")) shape->hir_cycles = opts["hir_cycles"].get<uint32_t>();
    shape->iops_fresh = opts.value("iops_state", json()) == "fresh";
  }
  std::vector<Figure> out;
  for (const json& t : doc.value("tests", json::array())) {
    const std::string name = t.value("name", "");
    if (t.value("status", "") != "done") continue;
    const json& r = t.value("results", json::object());
    if (shape && r.contains("range_bytes") && r["range_bytes"].is_number())
      shape->capacity_bytes = r["range_bytes"].get<uint64_t>();
    if (r.contains("imported_cells")) {
      const double cap = shape && shape->capacity_bytes ? shape->capacity_bytes : 0;
      for (const json& c : r["imported_cells"]) {
        if (!HasFigures(name)) break;
        // A fio job's figures are its group totals of all directions; its clones' and its
        // directions' cells (twin/import.h) are not figures of their own.
        if (c.value("scope", "group") != "group" || c.value("direction", "total") != "total")
          continue;
        Figure f;
        f.test = name;
        f.run = run;
        f.role = c.value("role", "");
        f.block_bytes = static_cast<uint64_t>(Num(c, "block_bytes"));
        f.read_pct = Num(c, "read_pct");
        f.threads = Num(c, "threads") > 0 ? static_cast<uint32_t>(Num(c, "threads")) : 1;
        f.qd = Num(c, "qd") > 0 ? static_cast<uint32_t>(Num(c, "qd")) : 1;
        f.sequential = c.value("sequential", false);
        const bool has_x = c.contains("x") && c["x"].is_number();
        if (name == "wsat") {
          if (!has_x) {
            f.x = 4 - kWsatBin / 2;  // the plateau
          } else if (Num(c, "x") == 0) {
            f.x = kWsatBin / 2;
          } else if (cap > 0) {
            const double x = Num(c, "x") * 1073741824.0 / cap;
            f.x = (std::ceil(x / kWsatBin) - 0.5) * kWsatBin;
          } else {
            return Shape(run, name, "a WSAT position in GiB but no capacity (import --capacity)");
          }
        } else if (name == "hir") {
          f.x = Num(c, "x");
        }
        for (const std::string& metric : MetricsOf(name)) {
          if (!c.contains(metric) || !c[metric].is_number()) continue;
          Figure m = f;
          m.metric = metric;
          m.value = c[metric].get<double>();
          if (m.value > 0) out.push_back(m);
        }
      }
    } else if (name == "iops" || name == "lat") {
      SSDLAB_ASSIGN_OR_RETURN(auto m, Read(results::MatrixResultsFromJson, r, run, name));
      if (!r.contains("cells")) return Shape(run, name, "no cells");
      SSDLAB_RETURN_IF_ERROR(Cells(run, name, m.cells, &out));
      if (shape && name == "iops" && m.range_bytes > 0)
        shape->iops_fresh = IopsWrittenCapacities(opts, t, m) < kFreshCapacities;
    } else if (name == "tp") {
      SSDLAB_ASSIGN_OR_RETURN(auto tp, Read(results::TpResultsFromJson, r, run, name));
      for (const results::TpBlock& b : tp.by_block)
        SSDLAB_RETURN_IF_ERROR(Cells(run, name, b.cells, &out));
    } else if (name == "lvi") {
      SSDLAB_ASSIGN_OR_RETURN(auto lvi, Read(results::LviResultsFromJson, r, run, name));
      for (const results::Curve& c : lvi.curves) {
        for (const results::CurvePoint& p : c.points) {
          Figure f;
          f.test = name;
          f.run = run;
          f.read_pct = c.read_pct;
          f.block_bytes = c.block_bytes;
          f.threads = p.threads;
          f.qd = p.qd;
          if (!f.block_bytes || !f.threads || !f.qd) return Shape(run, name, "a curve point");
          AddMetrics(f, p.metrics, &out);
        }
      }
    } else if (name == "wsat") {
      SSDLAB_ASSIGN_OR_RETURN(auto wsat, Read(results::WsatResultsFromJson, r, run, name));
      // The curve in bins of kWsatBin capacities: IOPS = I/Os / time of the rounds ending in it.
      std::map<int, std::pair<double, double>> bins;  // bin -> (ios, seconds)
      for (const results::WsatRound& p : wsat.per_round) {
        const double x = p.written_capacities;
        const double ios = static_cast<double>(p.metrics.total.ios);
        const double secs = static_cast<double>(p.metrics.measured_ns) / 1e9;
        if (x <= 0 || secs <= 0) continue;
        auto& b = bins[static_cast<int>(std::ceil(x / kWsatBin)) - 1];
        b.first += ios;
        b.second += secs;
      }
      for (const auto& [bin, v] : bins) {
        Figure f;
        f.test = name;
        f.run = run;
        f.metric = "iops";
        std::tie(f.threads, f.qd) = WriteLoad(opts);
        f.x = (bin + 0.5) * kWsatBin;
        f.value = v.first / v.second;
        if (f.value > 0) out.push_back(f);
      }
    } else if (name == "hir") {
      SSDLAB_ASSIGN_OR_RETURN(auto hir, Read(results::HirResultsFromJson, r, run, name));
      for (const results::HirWaitState& w : hir.wait_states) {
        Figure f;
        f.test = name;
        f.run = run;
        f.metric = "iops";
        std::tie(f.threads, f.qd) = WriteLoad(opts);
        f.x = static_cast<double>(w.wait_ns) / 1e9;
        f.value = w.mean_cycle_iops;
        if (f.value > 0) out.push_back(f);
      }
    }
  }
  if (out.empty())
    return Status::Invalid("run '" + run +
                           "' has none of the tests a twin is fitted to (finished iops, tp, lat, "
                           "wsat, hir or lvi)");
  return out;
}

}  // namespace ssdlab::twin
