// Figures measured elsewhere (`ssdlab import`, twin/import.h) in the report: one section per
// imported test, with the cells as published (table) and their figures as bars or curves.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/model_internal.h"
#include "report/pts_sections.h"

namespace ssdlab::report {
namespace {

struct MetricDef {
  const char* key;
  const char* title;
};
// Throughput metrics first: the first one a test's cells have is the one charted.
const std::vector<MetricDef>& Metrics() {
  static const std::vector<MetricDef> m = {{"iops", "IOPS"},
                                           {"mb_s", "MB/s"},
                                           {"lat_mean_us", "Mean latency, µs"},
                                           {"lat_p50_us", "p50, µs"},
                                           {"lat_p99_us", "p99, µs"},
                                           {"lat_p99_9_us", "p99.9, µs"},
                                           {"lat_p99_99_us", "p99.99, µs"},
                                           {"lat_max_us", "Max, µs"}};
  return m;
}

bool IsLatency(const std::string& key) { return key.rfind("lat_", 0) == 0; }

// A section's bounds, so that a large import (hundreds of thousands of cells) still makes a
// report of a few megabytes: its table shows the first cells, each chart every k-th point.
constexpr size_t kMaxTableRows = 1000;
constexpr size_t kMaxCurvePoints = 2000;
constexpr size_t kMaxBars = 200;

// Every k-th of `points` (k the smallest that keeps at most `max`), in their order.
json Thinned(const json& points, size_t max) {
  const size_t k = (points.size() + max - 1) / max;
  if (k <= 1) return points;
  json out = json::array();
  for (size_t i = 0; i < points.size(); i += k) out.push_back(points[i]);
  return out;
}

// The note of a thinned chart ("" when all points are drawn).
std::string ThinnedNote(size_t drawn, size_t all) {
  if (drawn == all) return "";
  return fmt::format(" ({} of {} points drawn, evenly spaced)", drawn, all);
}

// "rnd 4 KiB 70/30, 4T x QD1"; a fio job's direction, clone and latency quantity after it
// (", reads, clone 2, clat" ...).
std::string Workload(const json& c) {
  const double read = Num(c, "read_pct");
  std::string w = fmt::format(
      "{} {} {}, {}T x QD{}",
      Get(c, "sequential").is_boolean() && Get(c, "sequential").get<bool>() ? "seq" : "rnd",
      BlockLabel(static_cast<uint64_t>(Num(c, "block_bytes"))), MixLabel(read),
      Num(c, "threads", 1), Num(c, "qd", 1));
  const std::string dir = Str(c, "direction", "total");
  if (dir != "total") w += dir == "read" ? ", reads" : ", writes";
  if (Str(c, "scope") == "job") w += fmt::format(", clone {:g}", Num(c, "fio_entry") + 1);
  const std::string lat = Str(c, "latency");
  if (lat == "clat") w += ", latency: completion (clat)";
  if (lat == "lat") w += ", latency: submission to completion (lat)";
  return w;
}

// The x position of a cell on a curve ("x" of the CSV: WSAT GiB written, HIR wait in s).
std::string XTitle(const std::string& test) {
  if (test == "wsat") return "GiB written";
  if (test == "hir") return "Wait between write bursts, s";
  return "Position";
}

// True for a test stored by `ssdlab import` (results with "imported_cells").
bool IsImportedTest(const json& test) {
  return Get(Get(test, "results"), "imported_cells").is_array();
}

}  // namespace

json ImportedSections(Ctx& ctx) {
  // Test names in the order the runs hold them.
  std::vector<std::string> names;
  for (const ReportRun& r : ctx.runs)
    for (const json& t : Get(r.doc, "tests"))
      if (IsImportedTest(t) && std::find(names.begin(), names.end(), Str(t, "name")) == names.end())
        names.push_back(Str(t, "name"));
  json sections = json::array();
  for (const std::string& name : names) {
    std::set<std::string> present;
    bool curve = false;
    for (const ReportRun& r : ctx.runs)
      for (const json& t : Get(r.doc, "tests"))
        if (IsImportedTest(t) && Str(t, "name") == name)
          for (const json& c : Get(Get(t, "results"), "imported_cells")) {
            for (const MetricDef& m : Metrics())
              if (Get(c, m.key).is_number()) present.insert(m.key);
            curve |= Get(c, "x").is_number();
          }
    std::vector<MetricDef> shown;
    for (const MetricDef& m : Metrics())
      if (present.count(m.key)) shown.push_back(m);
    json columns = json::array();
    if (ctx.multi) columns.push_back("Drive");
    columns.push_back("Workload");
    if (curve) columns.push_back(XTitle(name));
    for (const MetricDef& m : shown) columns.push_back(m.title);
    columns.push_back("Role");
    columns.push_back("Source");
    json rows = json::array();
    size_t cells = 0;
    std::map<std::string, json> charted;  // "iops", "mb_s", "lat": points
    for (const ReportRun& r : ctx.runs) {
      for (const json& t : Get(r.doc, "tests")) {
        if (!IsImportedTest(t) || Str(t, "name") != name) continue;
        for (const json& c : Get(Get(t, "results"), "imported_cells")) {
          ++cells;
          json row = json::array();
          if (ctx.multi) row.push_back(r.label);
          const std::string w = Workload(c);
          row.push_back(w);
          const bool has_x = Get(c, "x").is_number();
          if (curve) row.push_back(has_x ? FmtNum(Num(c, "x"), 4) : "plateau");
          for (const MetricDef& m : shown) {
            const json& v = Get(c, m.key);
            row.push_back(!v.is_number()                 ? "-"
                          : std::string(m.key) == "iops" ? FmtInt(v.get<double>())
                                                         : FmtNum(v.get<double>(), 4));
          }
          row.push_back(Str(c, "role", "-"));
          row.push_back(Str(c, "source"));
          if (rows.size() < kMaxTableRows) rows.push_back(row);
          const std::string label = curve && !has_x ? w + ", plateau" : w;
          for (const MetricDef& m : shown) {
            const json& v = Get(c, m.key);
            if (!v.is_number()) continue;
            json p = {{"cell", label},
                      {"metric", m.title},
                      {"value", R6(v.get<double>())},
                      {"x", has_x ? json(R6(Num(c, "x"))) : json(nullptr)}};
            if (ctx.multi) p["drive"] = r.label;
            charted[IsLatency(m.key) ? "lat" : m.key].push_back(p);
          }
        }
      }
    }
    json blocks = json::array();
    json notes =
        json::array({"As published (ssdlab import); '-': not given. "
                     "Role: calibration figures are what `sim fit` "
                     "fits, predicted ones it holds out."});
    if (rows.size() < cells)
      notes.push_back(fmt::format("The first {} of {} cells; `ssdlab show --json` has them all.",
                                  rows.size(), cells));
    blocks.push_back(
        TableBlock(ctx.Id("imported-" + name), "Imported cells of " + name, columns, rows, notes));
    auto chart = [&](json values, const std::string& what, const std::string& stem) {
      if (values.empty()) return;
      json with_x = json::array(), without_x = json::array();
      for (json& v : values) (v["x"].is_null() ? without_x : with_x).push_back(v);
      const size_t curve_points = with_x.size(), bar_points = without_x.size();
      with_x = Thinned(with_x, kMaxCurvePoints);
      without_x = Thinned(without_x, kMaxBars);
      if (!with_x.empty())
        blocks.push_back(
            ChartBlock(ctx.Id(stem + "-curve"),
                       what + " along the curve" + ThinnedNote(with_x.size(), curve_points),
                       LineSpec(what + " of " + name, with_x, Q("x", XTitle(name)),
                                Q("value", what), "metric", "Figure", ctx, nullptr, "x")));
      if (!without_x.empty()) {
        json s = BarSpec(what + " of " + name, without_x, N("cell", "Workload", nullptr),
                         Q("value", what), N("metric", "Figure"), ctx, "", true,
                         std::max(220, 40 * static_cast<int>(without_x.size())));
        s["encoding"]["xOffset"] = N("metric", "Figure");  // side by side, never stacked
        blocks.push_back(ChartBlock(ctx.Id(stem + "-bars"),
                                    what + " by cell" + ThinnedNote(without_x.size(), bar_points),
                                    s));
      }
    };
    for (const char* k : {"iops", "mb_s", "lat"}) {
      auto it = charted.find(k);
      if (it == charted.end()) continue;
      const std::string what = std::string(k) == "iops"   ? "IOPS"
                               : std::string(k) == "mb_s" ? "MB/s"
                                                          : "Latency, µs";
      chart(it->second, what, "imported-" + name + "-" + k);
    }
    sections.push_back(
        Section("imported-" + name, "Imported: " + pts::TestTitle(name),
                "Figures measured elsewhere and stored with ssdlab import (not re-measured here).",
                blocks));
  }
  return sections;
}

}  // namespace ssdlab::report
