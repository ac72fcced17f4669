// The sections of the PTS tests, one per test of the suite's registry (suite/tests.cc): the
// report's side of each test, in battery order (PtsSections at the end).
#include "report/pts_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "report/model_internal.h"

namespace ssdlab::report::pts {
namespace {

// ---------------------------------------------------------------- steady state

// Convergence plot, measurement-window plots and the excursion table of a test.
json SteadyStateBlocks(Ctx& ctx, const std::string& test_name, const std::string& what) {
  json blocks = json::array();
  json conv_charts = json::array();
  json window_charts = json::array();
  json ex_rows = json::array();
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, test_name);
    if (!t) continue;
    const json& ss = Get(*t, "steady_state");
    const json& vars = Get(ss, "variables");
    if (!vars.is_object() || vars.empty()) continue;
    // Every numeric tracking value by round.
    json conv = json::array();
    std::map<std::string, std::vector<double>> series;
    for (const json& rd : Get(*t, "rounds")) {
      const json& tr = Get(rd, "tracking");
      if (!tr.is_object()) continue;
      for (auto& [k, v] : tr.items()) {
        if (!v.is_number()) continue;
        std::string var = k;
        if (Get(rd, "op_pct").is_number())
          var = fmt::format("OP {:g}%: {}", rd["op_pct"].get<double>(), k);
        series[k].push_back(v.get<double>());
        conv.push_back({{"drive", r.label},
                        {"round", Num(rd, "round")},
                        {"variable", VarLabel(var)},
                        {"value", R6(VarScale(k) * v.get<double>())}});
      }
    }
    if (conv.empty()) continue;
    json cs = LineSpec(fmt::format("Steady-state convergence: {}", r.label), conv, RoundAxis(),
                       Q("value", "Tracking variable"), "variable", "Variable",
                       Ctx{ctx.runs, false}, nullptr, "", ctx.multi ? kNarrow : kWide, kShort);
    conv_charts.push_back(
        ChartBlock(ctx.Id("ss-conv-" + test_name),
                   "Convergence of the tracking variables (" + what + "), " + r.label, cs));
    double band = BandPct(r);
    // The windows judged: the test's, or with the OP study one per over-provisioning setting
    // (each its own preconditioning, verdict and rounds).
    struct Window {
      std::string prefix;
      const json* vars;
      std::map<std::string, std::vector<double>> series;
    };
    std::vector<Window> windows;
    const json& op_points = Get(Get(*t, "results"), "op_points");
    if (op_points.is_array() && !op_points.empty()) {
      for (const json& p : op_points) {
        const json& pv = Get(Get(p, "steady_state"), "variables");
        if (!pv.is_object()) continue;
        Window w{fmt::format("OP +{:g}%: ", Num(p, "op_pct")), &pv, {}};
        for (const json& rd : Get(*t, "rounds")) {
          if (Num(rd, "op_pct", -1) != Num(p, "op_pct")) continue;
          for (auto& [k, v] : Get(rd, "tracking").items()) {
            if (v.is_number()) w.series[k].push_back(v.get<double>());
          }
        }
        windows.push_back(std::move(w));
      }
    } else {
      windows.push_back({"", &vars, series});
    }
    for (const Window& win : windows) {
      for (auto& [k, v] : win.vars->items()) {
        auto it = win.series.find(k);
        if (it == win.series.end()) continue;
        const std::vector<double>& y = it->second;
        int first = static_cast<int>(Num(v, "window_first_round"));
        int w = static_cast<int>(Num(v, "window"));
        const double sc = VarScale(k);
        double mean = sc * Num(v, "mean"), slope = sc * Num(v, "slope"),
               icpt = sc * Num(v, "intercept");
        json pts = json::array();
        for (int i = first; i < first + w && i < static_cast<int>(y.size()); ++i) {
          double x = i + 1;
          pts.push_back({{"round", x}, {"series", "measured"}, {"value", R6(sc * y[i])}});
          pts.push_back({{"round", x}, {"series", "average"}, {"value", R6(mean)}});
          pts.push_back({{"round", x},
                         {"series", fmt::format("{:g}% x average", 100 + band)},
                         {"value", R6(mean * (1 + band / 100))}});
          pts.push_back({{"round", x},
                         {"series", fmt::format("{:g}% x average", 100 - band)},
                         {"value", R6(mean * (1 - band / 100))}});
          pts.push_back({{"round", x},
                         {"series", "least-squares fit"},
                         {"value", R6(icpt + slope * (i - first))}});
        }
        if (pts.empty()) continue;
        json domain =
            json::array({"measured", "average", fmt::format("{:g}% x average", 100 + band),
                         fmt::format("{:g}% x average", 100 - band), "least-squares fit"});
        const std::string var_label = win.prefix + VarLabel(k);
        json s = Spec(ctx.multi ? fmt::format("Measurement window, {}: {}", r.label, var_label)
                                : fmt::format("Measurement window: {}", var_label),
                      pts, 340, kShort);
        s["encoding"] = {
            {"x", RoundAxis()},
            {"y", Q("value", VarLabel(k), false, false)},
            {"color",
             {{"field", "series"},
              {"type", "nominal"},
              {"title", ""},
              {"scale",
               {{"domain", domain},
                {"range", json::array({"#1f5fa8", "#333333", "#c0392b", "#c0392b", "#27ae60"})}}}}},
            {"strokeDash",
             {{"field", "series"},
              {"type", "nominal"},
              {"title", ""},
              {"scale",
               {{"domain", domain},
                {"range",
                 json::array({json::array({1, 0}), json::array({1, 0}), json::array({6, 4}),
                              json::array({6, 4}), json::array({2, 2})})}}}}}};
        s["layer"] = json::array(
            {{{"mark", {{"type", "line"}, {"tooltip", true}}}},
             {{"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"tooltip", true}}},
              {"transform", json::array({{{"filter", "datum.series == 'measured'"}}})}}});
        window_charts.push_back(
            ChartBlock(ctx.Id("ss-window-" + test_name),
                       "Steady-state measurement window, " + r.label + ": " + var_label +
                           fmt::format("; average, {:g}%/{:g}% bands and the least-squares line",
                                       100 - band, 100 + band),
                       s));
        bool reached = Get(v, "reached").is_boolean() && v["reached"].get<bool>();
        ex_rows.push_back(json::array(
            {r.label, var_label, fmt::format("{}-{}", first + 1, first + w), FmtNum(mean, 5),
             FmtPct(Num(v, "range_pct"), 2), FmtPct(Num(v, "slope_excursion_pct"), 2),
             FmtPct(Num(v, "band_excursion_pct"), 2),
             reached ? Cell("reached", "good") : Cell("not reached", "bad")}));
      }
    }
  }
  if (conv_charts.empty()) return blocks;
  blocks.push_back(RowBlock(conv_charts));
  if (!window_charts.empty()) blocks.push_back(RowBlock(window_charts));
  json notes = json::array();
  for (const ReportRun& r : ctx.runs) {
    if (FindTest(r.doc, test_name)) notes.push_back(r.label + ": " + RuleText(r) + ".");
  }
  blocks.push_back(TableBlock(
      ctx.Id("ss-table-" + test_name), "Steady-state excursions (" + what + ")",
      json::array({"Drive", "Tracking variable", "Window (rounds)", "Average", "Data excursion",
                   "Slope excursion", "Fit band excursion", "Verdict"}),
      ex_rows, notes));
  return blocks;
}

// Test parameters as a small table: one row per fact, one column per run.
json ParamsTable(
    Ctx& ctx, const std::string& test_name,
    const std::vector<
        std::pair<std::string, std::function<std::string(const ReportRun&, const json&)>>>& facts) {
  json cols = json::array({"Parameter"});
  for (const ReportRun& r : ctx.runs) cols.push_back(r.label);
  json rows = json::array();
  for (const auto& [name, fn] : facts) {
    json rw = json::array({name});
    for (const ReportRun& r : ctx.runs) {
      const json* t = FindTest(r.doc, test_name);
      rw.push_back(t ? fn(r, *t) : std::string("not run"));
    }
    rows.push_back(rw);
  }
  json verdict = json::array({"Steady state"});
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, test_name);
    verdict.push_back(t ? VerdictCell(Get(*t, "steady_state")) : Cell("not run", "muted"));
  }
  rows.push_back(verdict);
  return TableBlock(ctx.Id("params-" + test_name), "Test parameters: " + TestTitle(test_name), cols,
                    rows);
}

std::string ListBytes(const json& v) {
  std::string s;
  for (const json& b : v) s += (s.empty() ? "" : ", ") + BlockLabel(b.get<uint64_t>());
  return s;
}

std::string ListMixes(const json& v) {
  std::string s;
  for (const json& m : v) s += (s.empty() ? "" : ", ") + MixLabel(m.get<double>());
  return s;
}

std::string ListNums(const json& v, const std::string& sep = ", ") {
  std::string s;
  for (const json& m : v) s += (s.empty() ? "" : sep) + fmt::format("{:g}", m.get<double>());
  return s;
}

// Cells of a matrix test by (read pct, block bytes).
struct MatrixCell {
  double read_pct;
  uint64_t bs;
  const json* cell;
};
std::vector<MatrixCell> MatrixCells(const json& cells) {
  std::vector<MatrixCell> out;
  if (!cells.is_array()) return out;
  for (const json& c : cells) {
    double rp;
    uint64_t bs;
    if (ParseCellName(Str(c, "cell"), &rp, &bs)) out.push_back({rp, bs, &c});
  }
  return out;
}

// ---------------------------------------------------------------- IOPS

json IopsSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(ParamsTable(
      ctx, "iops",
      {
          {"Stimulus", [](const ReportRun&, const json& t) { return "random, " + LoadOf(t); }},
          {"Block sizes",
           [](const ReportRun& r, const json&) {
             return ListBytes(Get(Options(r), "iops_block_bytes"));
           }},
          {"Read/write mixes",
           [](const ReportRun& r, const json&) {
             return ListMixes(Get(Options(r), "iops_read_pcts"));
           }},
          {"Round",
           [](const ReportRun& r, const json&) {
             return FmtDurationNs(Num(Options(r), "round_ns")) + " per cell";
           }},
      }));
  json values = json::array();
  json tables = json::array();
  std::set<std::pair<uint64_t, std::string>> bss;
  std::set<double> all_mixes;
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "iops");
    if (!t) continue;
    auto cells = MatrixCells(Get(Get(*t, "results"), "cells"));
    std::set<double> mixes;
    std::set<uint64_t> sizes;
    std::map<std::pair<double, uint64_t>, double> iops;
    for (const MatrixCell& c : cells) {
      mixes.insert(c.read_pct);
      sizes.insert(c.bs);
      double v = Num(Get(*c.cell, "total"), "iops");
      iops[{c.read_pct, c.bs}] = v;
      values.push_back({{"drive", r.label},
                        {"block", BlockLabel(c.bs)},
                        {"block_bytes", c.bs},
                        {"mix", MixLabel(c.read_pct)},
                        {"read_pct", c.read_pct},
                        {"iops", R6(v)},
                        {"mb_s", R6(Num(Get(*c.cell, "total"), "bw_bytes_per_s") / 1e6)}});
      bss.insert({c.bs, BlockLabel(c.bs)});
      all_mixes.insert(c.read_pct);
    }
    json cols = json::array({"Block size"});
    for (double m : mixes) cols.push_back(MixLabel(m));
    json rows = json::array();
    for (uint64_t bs : sizes) {
      json rw = json::array({BlockLabel(bs)});
      for (double m : mixes) {
        auto it = iops.find({m, bs});
        rw.push_back(it == iops.end() ? "-" : FmtInt(it->second));
      }
      rows.push_back(rw);
    }
    const json& ss = Get(*t, "steady_state");
    tables.push_back(TableBlock(
        ctx.Id("iops-table"),
        fmt::format(
            "{}: IOPS by block size and read/write mix, average over the steady-state window ({})",
            r.label, VerdictText(ss)),
        cols, rows));
  }
  if (values.empty()) return nullptr;
  Append(blocks, tables);
  json bs_sort = json::array();
  for (auto& [b, l] : bss) bs_sort.push_back(l);
  json mix_sort = json::array();
  for (auto it = all_mixes.rbegin(); it != all_mixes.rend(); ++it)
    mix_sort.push_back(MixLabel(*it));
  json spec = LineSpec("IOPS by block size (2D plot)", values, O("block", "Block size", bs_sort),
                       Q("iops", "IOPS", true), "mix", "R/W mix", ctx, mix_sort);
  blocks.push_back(ChartBlock(
      ctx.Id("iops-2d"), "IOPS against block size, one line per read/write mix (log scale)", spec));
  Append(blocks, SteadyStateBlocks(ctx, "iops", "IOPS"));
  return Section("iops", "IOPS",
                 "Random access over the whole active range with every block size and read/write "
                 "mix; each figure is the average over the steady-state window.",
                 blocks);
}

// ---------------------------------------------------------------- Throughput

json TpSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(ParamsTable(
      ctx, "tp",
      {
          {"Stimulus", [](const ReportRun&, const json& t) { return "sequential, " + LoadOf(t); }},
          {"Block sizes", [](const ReportRun& r,
                             const json&) { return ListBytes(Get(Options(r), "tp_block_bytes")); }},
      }));
  json values = json::array();
  std::set<std::pair<uint64_t, std::string>> bss;
  std::map<std::pair<uint64_t, std::string>, std::vector<std::string>>
      cells;  // (bs, dir) -> per run
  for (size_t i = 0; i < ctx.runs.size(); ++i) {
    const ReportRun& r = ctx.runs[i];
    const json* t = FindTest(r.doc, "tp");
    if (!t) continue;
    for (const json& b : Get(Get(*t, "results"), "by_block")) {
      uint64_t bs = static_cast<uint64_t>(Num(b, "block_bytes"));
      for (const MatrixCell& c : MatrixCells(Get(b, "cells"))) {
        std::string dir = c.read_pct >= 100 ? "Read"
                          : c.read_pct <= 0 ? "Write"
                                            : MixLabel(c.read_pct);
        const json& d = Get(*c.cell, "total");
        double bw = Num(d, "bw_bytes_per_s");
        values.push_back({{"drive", r.label},
                          {"block", BlockLabel(bs)},
                          {"direction", dir},
                          {"mib_s", R6(bw / 1048576)},
                          {"mb_s", R6(bw / 1e6)}});
        bss.insert({bs, BlockLabel(bs)});
        auto& v = cells[{bs, dir}];
        v.resize(ctx.runs.size(), "-");
        v[i] = fmt::format("{:.1f} MiB/s ({:.0f} MB/s)", bw / 1048576, bw / 1e6);
      }
    }
  }
  if (values.empty()) return nullptr;
  json cols = json::array({"Block size", "Direction"});
  for (const ReportRun& r : ctx.runs) cols.push_back(r.label);
  json rows = json::array();
  for (auto& [k, v] : cells) {
    json rw = json::array({BlockLabel(k.first), k.second});
    for (const std::string& s : v) rw.push_back(s);
    rows.push_back(rw);
  }
  blocks.push_back(TableBlock(ctx.Id("tp-table"),
                              "Sequential throughput, average over the steady-state window", cols,
                              rows));
  json bs_sort = json::array();
  for (auto& [b, l] : bss) bs_sort.push_back(l);
  json spec = BarSpec("Sequential throughput", values, O("block", "Block size", bs_sort),
                      Q("mib_s", "MiB/s"), N("direction", "Direction"), ctx, "direction", false,
                      ctx.multi ? 260 : 220);
  blocks.push_back(ChartBlock(ctx.Id("tp-bars"), "Throughput by block size, read and write", spec));
  Append(blocks, SteadyStateBlocks(ctx, "tp", "throughput"));
  return Section(
      "tp", "Throughput",
      "Sequential read and write, each block size after its own purge and preconditioning.",
      blocks);
}

// ---------------------------------------------------------------- Latency

json LatSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(ParamsTable(
      ctx, "lat",
      {
          {"Stimulus", [](const ReportRun&, const json& t) { return "random, " + LoadOf(t); }},
          {"Block sizes",
           [](const ReportRun& r, const json&) {
             return ListBytes(Get(Options(r), "lat_block_bytes"));
           }},
          {"Read/write mixes",
           [](const ReportRun& r, const json&) {
             return ListMixes(Get(Options(r), "lat_read_pcts"));
           }},
      }));
  json values = json::array();
  const std::vector<std::pair<std::string, std::string>> stats = {{"mean", "Mean"},
                                                                  {"p99", "99%"},
                                                                  {"p99_9", "99.9%"},
                                                                  {"p99_99", "99.99%"},
                                                                  {"max", "Maximum"}};
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "lat");
    if (!t) continue;
    auto cells = MatrixCells(Get(Get(*t, "results"), "cells"));
    std::set<uint64_t> sizes;
    std::vector<double> mixes;
    for (const MatrixCell& c : cells) {
      sizes.insert(c.bs);
      if (std::find(mixes.begin(), mixes.end(), c.read_pct) == mixes.end())
        mixes.push_back(c.read_pct);
    }
    // The DC400 review's order: read, write, mixed.
    std::stable_sort(mixes.begin(), mixes.end(), [](double a, double b) {
      auto rank = [](double m) { return m >= 100 ? 0 : m <= 0 ? 1 : 2; };
      return rank(a) < rank(b);
    });
    auto lat_of = [&](double m, uint64_t bs) -> const json& {
      for (const MatrixCell& c : cells) {
        if (c.read_pct == m && c.bs == bs) {
          const char* dir = m >= 100 ? "read" : m <= 0 ? "write" : "total";
          return Get(Get(*c.cell, dir), "lat_ns");
        }
      }
      return Get(json(), "");
    };
    json cols = json::array({"Latency, µs"});
    for (uint64_t bs : sizes) cols.push_back(BlockLabel(bs));
    json rows = json::array();
    for (const auto& [key, title] : stats) {
      rows.push_back(GroupRow(title));
      for (double m : mixes) {
        json rw = json::array({MixName(m)});
        for (uint64_t bs : sizes) {
          const json& l = lat_of(m, bs);
          rw.push_back(Get(l, key).is_number() ? FmtUs(l[key].get<double>()) : "-");
        }
        rows.push_back(rw);
      }
    }
    blocks.push_back(
        TableBlock(ctx.Id("lat-table"),
                   fmt::format("{}: latency in microseconds at 1 thread, QD 1 (mean and "
                               "percentiles of every I/O in the steady-state window)",
                               r.label),
                   cols, rows));
    for (const MatrixCell& c : cells) {
      const char* dir = c.read_pct >= 100 ? "read" : c.read_pct <= 0 ? "write" : "total";
      const json& l = Get(Get(*c.cell, dir), "lat_ns");
      int order = 0;
      for (const auto& [key, title] : stats) {
        if (!Get(l, key).is_number()) continue;
        values.push_back({{"drive", r.label},
                          {"cell", BlockLabel(c.bs) + " " + MixName(c.read_pct)},
                          {"stat", title},
                          {"order", order++},
                          {"us", R6(l[key].get<double>() / 1000)}});
      }
    }
  }
  if (values.empty()) return nullptr;
  json stat_sort = json::array();
  for (const auto& s : stats) stat_sort.push_back(s.second);
  json spec =
      LineSpec("Latency profile (1 thread, QD 1)", values, O("stat", "Statistic", stat_sort),
               Q("us", "Latency, µs", true), "cell", "Block size, mix", ctx);
  blocks.push_back(ChartBlock(ctx.Id("lat-profile"),
                              "Mean and percentile latency of each block size and mix (log scale)",
                              spec));
  Append(blocks, SteadyStateBlocks(ctx, "lat", "latency"));
  return Section("lat", "Latency",
                 "Response time at the minimum load (1 thread, queue depth 1), as in the DC400 "
                 "review's table.",
                 blocks);
}

// ---------------------------------------------------------------- LVI-style curves

struct CurveRows {
  json values = json::array();
  std::set<int> threads;
};

std::string CurveName(const json& c) {
  double rp = Num(c, "read_pct");
  std::string mix = rp >= 100 ? "read" : rp <= 0 ? "write" : MixLabel(rp);
  return BlockLabel(static_cast<uint64_t>(Num(c, "block_bytes"))) + " " + mix;
}

void AddCurves(CurveRows& out, const json& curves, const std::string& drive,
               const std::string& extra_key = "", const std::string& extra = "") {
  if (!curves.is_array()) return;
  for (const json& c : curves) {
    for (const json& p : Get(c, "points")) {
      const json& tot = Get(p, "total");
      const json& l = Get(tot, "lat_ns");
      int th = static_cast<int>(Num(p, "threads"));
      out.threads.insert(th);
      json row = {{"drive", drive},
                  {"curve", CurveName(c)},
                  {"threads", th},
                  {"qd", Num(p, "qd")},
                  {"iops", R6(Num(tot, "iops"))},
                  {"mean_us", R6(Num(l, "mean") / 1000)},
                  {"p99_us", R6(Num(l, "p99") / 1000)},
                  {"p99_9_us", R6(Num(l, "p99_9") / 1000)},
                  {"p99_99_us", R6(Num(l, "p99_99") / 1000)},
                  {"max_us", R6(Num(l, "max") / 1000)}};
      if (!extra_key.empty()) row[extra_key] = extra;
      out.values.push_back(row);
    }
  }
}

json CurveChart(const std::string& title, const CurveRows& rows, const std::string& y_field,
                const std::string& y_title, const std::string& series,
                const std::string& series_title, const Ctx& ctx, const std::string& dash = "",
                int width = kWide) {
  json s = Spec(title, rows.values, width, kTall);
  std::vector<int> th(rows.threads.begin(), rows.threads.end());
  s["params"] = ThreadsParam(th);
  s["transform"] = json::array(
      {{{"filter", "datum.threads == threads && datum.iops > 0 && datum." + y_field + " > 0"}}});
  s["mark"] = {{"type", "line"}, {"point", true}, {"tooltip", true}};
  json enc = {{"x", Q("iops", "IOPS", true)},
              {"y", Q(y_field, y_title, true)},
              {"color", N(series, series_title)},
              {"order", {{"field", "qd"}, {"type", "quantitative"}}}};
  if (!dash.empty()) {
    enc["strokeDash"] = N(dash, dash == "drive" ? "Drive" : "Mix");
    enc["shape"] = N(dash, dash == "drive" ? "Drive" : "Mix");
  } else if (ctx.multi) {
    enc["strokeDash"] = DriveEnc();
    enc["shape"] = DriveEnc();
  }
  enc["detail"] = N("drive", "Drive");
  s["encoding"] = enc;
  return s;
}

json LviSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(
      ParamsTable(ctx, "lvi",
                  {
                      {"Stimulus",
                       [](const ReportRun& r, const json&) {
                         return fmt::format("random; threads {} x QD {}",
                                            ListNums(Get(Options(r), "lvi_threads")),
                                            ListNums(Get(Options(r), "lvi_qds")));
                       }},
                      {"Block sizes",
                       [](const ReportRun& r, const json&) {
                         return ListBytes(Get(Options(r), "lvi_block_bytes"));
                       }},
                      {"Read/write mixes",
                       [](const ReportRun& r, const json&) {
                         return ListMixes(Get(Options(r), "lvi_read_pcts"));
                       }},
                      {"Each point",
                       [](const ReportRun& r, const json&) {
                         return FmtDurationNs(Num(Options(r), "lvi_warmup_ns")) + " warm-up + " +
                                FmtDurationNs(Num(Options(r), "lvi_measure_ns")) + " measured";
                       }},
                      {"Preconditioning",
                       [](const ReportRun&, const json&) {
                         return std::string("4KiB random write rounds until steady state");
                       }},
                  }));
  CurveRows rows;
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "lvi");
    if (t) AddCurves(rows, Get(Get(*t, "results"), "curves"), r.label);
  }
  if (rows.values.empty()) return nullptr;
  const std::vector<std::pair<std::string, std::string>> metrics = {{"mean_us", "Mean latency"},
                                                                    {"p99_us", "99% latency"},
                                                                    {"p99_9_us", "99.9% latency"},
                                                                    {"p99_99_us", "99.99% latency"},
                                                                    {"max_us", "Maximum latency"}};
  json charts = json::array();
  for (const auto& [field, title] : metrics) {
    charts.push_back(ChartBlock(
        ctx.Id("lvi-" + field.substr(0, field.size() - 3)),
        title + " against IOPS; each point one queue depth at the selected thread count (log axes)",
        CurveChart(title + " vs IOPS", rows, field, title + ", µs", "curve", "Block size, mix", ctx,
                   "", kNarrow + 60)));
  }
  blocks.push_back(RowBlock(charts));
  Append(blocks, SteadyStateBlocks(ctx, "lvi", "workload-dependent preconditioning"));
  return Section("lvi", "Latency vs IOPS",
                 "Latency against IOPS as the queue depth grows (1..32) at a chosen thread count: "
                 "the throughput a drive delivers at a given response time.",
                 blocks);
}

// ---------------------------------------------------------------- WSAT

json WsatSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(ParamsTable(
      ctx, "wsat",
      {
          {"Stimulus",
           [](const ReportRun&, const json& t) {
             return "4KiB random write, continuous, from a purged (fresh) drive; " +
                    std::to_string(Get(Get(t, "results"), "per_round").size()) + " rounds";
           }},
          {"Round", [](const ReportRun& r,
                       const json&) { return FmtDurationNs(Num(Options(r), "wsat_round_ns")); }},
          {"Ends after",
           [](const ReportRun& r, const json&) {
             return fmt::format("{:g}x the capacity written or {:g} rounds",
                                Num(Options(r), "wsat_capacity_multiple"),
                                Num(Options(r), "wsat_max_rounds"));
           }},
      }));
  json values = json::array();
  json lat_charts = json::array();
  json trows = json::array();
  bool any_sim = false;
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "wsat");
    if (!t) continue;
    const json& res = Get(*t, "results");
    const json& pr = Get(res, "per_round");
    if (!pr.is_array() || pr.empty()) continue;
    json lat = json::array();
    for (const json& p : pr) {
      const json& tot = Get(p, "total");
      const json& l = Get(tot, "lat_ns");
      json row = {{"drive", r.label},
                  {"round", Num(p, "round")},
                  {"time_min", R6(Num(p, "time_s") / 60)},
                  {"written_gb", R6(Num(p, "written_bytes") / 1e9)},
                  {"capacities", R6(Num(p, "written_capacities"))},
                  {"iops", R6(Num(tot, "iops"))}};
      const json& sim = Get(p, "sim");
      if (sim.is_object()) {
        any_sim = true;
        row["wa"] = R6(Num(sim, "write_amplification"));
        row["free_blocks"] = Num(sim, "free_blocks");
      }
      values.push_back(row);
      for (const auto& [k, name] :
           std::vector<std::pair<std::string, std::string>>{{"mean", "mean"},
                                                            {"p99", "99%"},
                                                            {"p99_9", "99.9%"},
                                                            {"p99_99", "99.99%"},
                                                            {"max", "max"}}) {
        if (Get(l, k).is_number() && l[k].get<double>() > 0) {
          lat.push_back({{"time_min", R6(Num(p, "time_s") / 60)},
                         {"stat", name},
                         {"us", R6(l[k].get<double>() / 1000)}});
        }
      }
    }
    json ls = Spec("WSAT latency per round: " + r.label, lat, ctx.multi ? kNarrow : kWide, kTall);
    ls["mark"] = {{"type", "line"}, {"tooltip", true}};
    ls["encoding"] = {
        {"x", Q("time_min", "Time, minutes")},
        {"y", Q("us", "Latency, µs", true)},
        {"color", N("stat", "Statistic", json::array({"max", "99.99%", "99.9%", "99%", "mean"}))}};
    lat_charts.push_back(ChartBlock(
        ctx.Id("wsat-lat"), "Latency per round (mean, percentiles and maximum), " + r.label, ls));
    const json& ss = Get(*t, "steady_state");
    double first = Num(Get(pr[0], "total"), "iops");
    double steady = Num(ss, "mean");
    const json& last = pr.back();
    trows.push_back(json::array(
        {r.label, FmtInt(static_cast<double>(pr.size())), FmtDurationNs(Num(last, "time_s") * 1e9),
         fmt::format("{:.1f} GB ({:.2f}x the range)", Num(last, "written_bytes") / 1e9,
                     Num(last, "written_capacities")),
         FmtInt(first), FmtInt(steady), first > 0 ? FmtPct(100 * steady / first, 0) : "-",
         Str(res, "stopped_by")}));
  }
  if (values.empty()) return nullptr;
  blocks.push_back(
      TableBlock(ctx.Id("wsat-table"),
                 "Write saturation summary: the first round against the last window (steady state)",
                 json::array({"Drive", "Rounds", "Duration", "Written", "IOPS, first round",
                              "IOPS, last window", "Last / first", "Stopped by"}),
                 trows));
  json c1 = LineSpec("WSAT: IOPS against time", values, Q("time_min", "Time, minutes"),
                     Q("iops", "IOPS"), "", "", ctx, nullptr, "", 520);
  c1["mark"] = {{"type", "line"}, {"point", {{"size", 12}}}, {"tooltip", true}};
  json c2 =
      LineSpec("WSAT: IOPS against data written", values, Q("written_gb", "Total written, GB"),
               Q("iops", "IOPS"), "", "", ctx, nullptr, "", 520);
  c2["mark"] = {{"type", "line"}, {"point", {{"size", 12}}}, {"tooltip", true}};
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("wsat-time"), "4KiB random write IOPS by round against time", c1),
       ChartBlock(ctx.Id("wsat-gb"), "The same rounds against the total data written", c2)})));
  blocks.push_back(RowBlock(lat_charts));
  if (any_sim) {
    json wa =
        LineSpec("Write amplification (simulator)", values, Q("written_gb", "Total written, GB"),
                 Q("wa", "Write amplification"), "", "", ctx, nullptr, "", kNarrow, kShort);
    json fb =
        LineSpec("Free blocks (simulator)", values, Q("written_gb", "Total written, GB"),
                 Q("free_blocks", "Free erase blocks"), "", "", ctx, nullptr, "", kNarrow, kShort);
    wa["mark"] = fb["mark"] = {{"type", "line"}, {"tooltip", true}};
    blocks.push_back(RowBlock(json::array(
        {ChartBlock(ctx.Id("wsat-wa"),
                    "Write amplification of the simulated FTL (NAND pages written / host pages)",
                    wa),
         ChartBlock(ctx.Id("wsat-free"),
                    "Free erase blocks of the simulated drive: garbage collection starts when the "
                    "pool runs out",
                    fb)})));
  }
  return Section("wsat", "Write saturation",
                 "Continuous 4KiB random writes from a fresh drive: fast until the pool of free "
                 "NAND blocks runs out, then garbage collection sets the pace.",
                 blocks);
}

// ---------------------------------------------------------------- HIR

json HirSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(ParamsTable(
      ctx, "hir",
      {
          {"Stimulus",
           [](const ReportRun& r, const json&) {
             return fmt::format(
                 "4KiB random write: {} write then a pause, {:g} cycles per wait state",
                 FmtDurationNs(Num(Options(r), "hir_write_ns")), Num(Options(r), "hir_cycles"));
           }},
          {"Wait states",
           [](const ReportRun& r, const json&) {
             std::string s;
             for (const json& w : Get(Options(r), "hir_wait_ns"))
               s += (s.empty() ? "" : ", ") + FmtDurationNs(w.get<double>());
             return s;
           }},
          {"Return to baseline",
           [](const ReportRun& r, const json&) {
             return FmtDurationNs(Num(Options(r), "hir_baseline_ns")) +
                    " continuous write after each wait state";
           }},
      }));
  json seq = json::array(), bars = json::array(), trows = json::array();
  json wait_sort = json::array({"continuous (preconditioning)"});
  const std::string kReturn = "continuous (return to baseline)";
  std::set<double> waits;
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "hir");
    if (!t) continue;
    const json& res = Get(*t, "results");
    int x = 0;
    for (const json& rd : Get(*t, "rounds")) {
      for (auto& [k, v] : Get(rd, "tracking").items()) {
        if (v.is_number()) {
          seq.push_back({{"drive", r.label},
                         {"x", ++x},
                         {"state", "continuous (preconditioning)"},
                         {"segment", "preconditioning"},
                         {"iops", R6(v.get<double>())}});
        }
      }
    }
    double baseline = Num(res, "baseline_iops");
    for (const json& ws : Get(res, "wait_states")) {
      double wait = Num(ws, "wait_ns");
      waits.insert(wait);
      std::string label = "wait " + FmtDurationNs(wait);
      for (const json& c : Get(ws, "cycles")) {
        seq.push_back({{"drive", r.label},
                       {"x", ++x},
                       {"state", label},
                       {"segment", label},
                       {"iops", R6(Num(c, "iops"))},
                       {"mean_us", R6(Num(c, "mean_ns") / 1000)}});
      }
      // The continuous writing after the bursts, in at most 15 steps of the sequence.
      for (const json& p : ThinSeries(Get(ws, "return_series"), "t_end_s", "iops", 15)) {
        seq.push_back({{"drive", r.label},
                       {"x", ++x},
                       {"state", kReturn},
                       {"segment", "return after " + label},
                       {"t_s", R6(Num(p, "t_end_s"))},
                       {"iops", R6(Num(p, "iops"))}});
      }
      bars.push_back({{"drive", r.label},
                      {"state", label},
                      {"wait_s", wait / 1e9},
                      {"iops", R6(Num(ws, "mean_cycle_iops"))},
                      {"baseline", R6(baseline)}});
      const json& l = Get(Get(Get(ws, "cycle_metrics"), "total"), "lat_ns");
      trows.push_back(
          json::array({r.label, FmtDurationNs(wait), FmtInt(Num(ws, "mean_cycle_iops")),
                       fmt::format("{:.2f}x", Num(ws, "gain_vs_baseline")),
                       fmt::format("{:.2f}x", Num(ws, "gain_vs_continuous")), FmtUs(Num(l, "mean")),
                       FmtUs(Num(l, "p99_99")),
                       FmtInt(Num(Get(Get(ws, "return_to_baseline"), "total"), "iops"))}));
    }
  }
  if (seq.empty()) return nullptr;
  for (double w : waits) wait_sort.push_back("wait " + FmtDurationNs(w));
  wait_sort.push_back(kReturn);
  blocks.push_back(TableBlock(
      ctx.Id("hir-table"),
      "IOPS of the write bursts per wait state, against the steady-state baseline and against the "
      "continuous writing that follows",
      json::array({"Drive", "Wait", "Mean IOPS of the bursts", "vs baseline", "vs continuous",
                   "Mean, µs", "99.99%, µs", "Return to baseline, IOPS"}),
      trows));
  json s1 =
      LineSpec("HIR: IOPS by round / burst", seq,
               Q("x", "Round (continuous) / burst (with pauses) / step of the return to baseline"),
               Q("iops", "IOPS"), "state", "Load", ctx, wait_sort);
  s1["mark"] = {{"type", "line"}, {"point", {{"size", 10}}}, {"tooltip", true}};
  s1["encoding"]["detail"] = N("segment", "Segment");
  blocks.push_back(ChartBlock(ctx.Id("hir-iops"),
                              "Continuous writing (preconditioning), then write bursts separated "
                              "by growing pauses, each wait state followed by continuous "
                              "writing (return to baseline, its time series in at most 15 steps)",
                              s1));
  json s2 = Spec("HIR: mean IOPS of the bursts by wait state", bars, kNarrow, kShort);
  json enc = {{"x", O("state", "Wait state", wait_sort)},
              {"y", Q("iops", "IOPS")},
              {"color", ctx.multi ? DriveEnc() : N("state", "Wait state", wait_sort)}};
  if (ctx.multi) enc["xOffset"] = N("drive", "Drive");
  s2["layer"] = json::array(
      {{{"mark", {{"type", "bar"}, {"tooltip", true}}}, {"encoding", enc}},
       {{"mark", {{"type", "tick"}, {"color", "#333"}, {"thickness", 2}, {"size", 40}}},
        {"encoding", {{"x", O("state", "Wait state", wait_sort)}, {"y", Q("baseline", "IOPS")}}}}});
  json s3 = LineSpec("HIR: mean latency by burst", seq, Q("x", "Round / burst"),
                     Q("mean_us", "Mean latency, µs", true), "state", "Load", ctx, wait_sort, "",
                     kNarrow, kShort);
  s3["transform"] = json::array({{{"filter", "datum.mean_us > 0"}}});
  s3["mark"] = {{"type", "line"}, {"point", {{"size", 10}}}, {"tooltip", true}};
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(
           ctx.Id("hir-bars"),
           "Mean IOPS of the bursts per wait state; the black tick is the steady-state baseline",
           s2),
       ChartBlock(ctx.Id("hir-lat"), "Mean latency of each burst (log scale)", s3)})));
  Append(blocks, SteadyStateBlocks(ctx, "hir", "preconditioning to the baseline"));
  return Section("hir", "Host idle recovery",
                 "After saturation, 4KiB random-write bursts alternate with pauses: the longer the "
                 "pause, the more garbage collection the drive does in the background.",
                 blocks);
}

// ---------------------------------------------------------------- XSR

json XsrSection(Ctx& ctx) {
  json blocks = json::array();
  json values = json::array(), trows = json::array(), seg_sort = json::array(),
       notes = json::array();
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "xsr");
    if (!t) continue;
    const json& res = Get(*t, "results");
    double offset = 0;
    for (const json& seg : Get(res, "segments")) {
      std::string name = Str(seg, "name");
      if (std::find(seg_sort.begin(), seg_sort.end(), json(name)) == seg_sort.end())
        seg_sort.push_back(name);
      double end = 0;
      for (const json& p : Get(seg, "series_bw")) {
        if (!p.is_array() || p.size() < 2) continue;
        double ts = p[0].get<double>();
        end = std::max(end, ts);
        values.push_back({{"drive", r.label},
                          {"segment", name},
                          {"time_min", R6((offset + ts) / 60)},
                          {"mb_s", R6(p[1].get<double>() / 1e6)}});
      }
      offset += end > 0 ? end : Num(Get(seg, "metrics"), "measured_ns") / 1e9;
      const json& tot = Get(Get(seg, "metrics"), "total");
      trows.push_back(
          json::array({r.label, name, fmt::format("{:.1f}", Num(tot, "bw_bytes_per_s") / 1e6),
                       FmtInt(Num(tot, "iops")), FmtUs(Num(Get(tot, "lat_ns"), "mean")),
                       FmtUs(Num(Get(tot, "lat_ns"), "p99_99"))}));
    }
    bool recovered = Get(res, "recovered").is_boolean() && res["recovered"].get<bool>();
    notes.push_back(
        recovered ? fmt::format("{}: segment C reached 90% of A's settled {:.1f} MB/s after {}.",
                                r.label, Num(res, "settled_seq_write_bytes_per_s") / 1e6,
                                FmtDurationNs(Num(res, "recovery_time_s") * 1e9))
                  : r.label + ": segment C did not recover to 90% of A's settled throughput.");
  }
  if (values.empty()) return nullptr;
  blocks.push_back(TableBlock(
      ctx.Id("xsr-table"),
      "Cross-stimulus recovery: sequential 1024KiB writes, random 8KiB writes, sequential again",
      json::array({"Drive", "Segment", "MB/s", "IOPS", "Mean, µs", "99.99%, µs"}), trows, notes));
  json s = LineSpec("XSR: write throughput against time", values, Q("time_min", "Time, minutes"),
                    Q("mb_s", "MB/s"), "segment", "Segment", ctx, seg_sort);
  s["mark"] = {{"type", "line"}, {"tooltip", true}};
  blocks.push_back(
      ChartBlock(ctx.Id("xsr-bw"), "Throughput of the three access patterns in sequence", s));
  return Section("xsr", "Cross-stimulus recovery",
                 "How quickly sequential write throughput returns after a period of random writes.",
                 blocks);
}

// ---------------------------------------------------------------- DIRTH / ECW

// Log-linear histogram buckets rebinned to 8 bins per power of two: [{us, pct}].
json Rebin(const json& buckets) {
  std::map<int, double> bins;
  double total = 0;
  for (const json& b : buckets) {
    if (!b.is_array() || b.size() < 2) continue;
    double low = std::max(1.0, b[0].get<double>());
    double c = b[1].get<double>();
    bins[static_cast<int>(std::floor(std::log2(low) * 8))] += c;
    total += c;
  }
  json out = json::array();
  for (auto& [k, c] : bins)
    out.push_back({{"us", R6(std::pow(2.0, k / 8.0) / 1000)}, {"pct", R6(100 * c / total)}});
  return out;
}

json SweepSection(Ctx& ctx, const std::string& name) {
  bool ecw = name == "ecw";
  json blocks = json::array();
  blocks.push_back(ParamsTable(
      ctx, name,
      {
          {"Stimulus",
           [ecw](const ReportRun&, const json&) {
             return std::string(ecw ? "Enterprise composite workload: mixed block sizes "
                                      "0.5..64KiB, 40% read, zoned access (50/5, 30/15, 20/80)"
                                    : "8KiB random, 65% read");
           }},
          {"Threads x QD",
           [](const ReportRun& r, const json&) {
             return "threads " + ListNums(Get(Options(r), "dirth_threads")) + " x QD " +
                    ListNums(Get(Options(r), "dirth_qds"));
           }},
          {"Histograms",
           [](const ReportRun& r, const json&) {
             return FmtDurationNs(Num(Options(r), "dirth_histogram_ns")) +
                    " at the max-IOPS point (mean below " +
                    FmtUs(Num(Options(r), "dirth_max_mean_ns")) +
                    " µs), a middle and the min-IOPS point";
           }},
      }));
  json curves = json::array(), hists = json::array(), maps = json::array(), trows = json::array();
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, name);
    if (!t) continue;
    const json& res = Get(*t, "results");
    json cells = json::array();
    for (const json& c : Get(res, "cells")) {
      std::string cell = Str(c, "cell");
      if (cell.size() < 4 || cell[0] != 'T') continue;
      int th = std::atoi(cell.c_str() + 1);
      auto q = cell.find('Q');
      int qd = q == std::string::npos ? 0 : std::atoi(cell.c_str() + q + 1);
      const json& tot = Get(c, "total");
      json row = {{"drive", r.label},
                  {"threads", th},
                  {"qd", qd},
                  {"iops", R6(Num(tot, "iops"))},
                  {"mean_us", R6(Num(Get(tot, "lat_ns"), "mean") / 1000)},
                  {"p99_99_us", R6(Num(Get(tot, "lat_ns"), "p99_99") / 1000)}};
      cells.push_back(row);
      curves.push_back(row);
    }
    json ms = Spec(fmt::format("{} map: {}", ecw ? "ECW" : "DIRTH", r.label), cells, 300, 260);
    ms["encoding"] = {{"x",
                       {{"field", "qd"},
                        {"type", "ordinal"},
                        {"title", "Queue depth per thread"},
                        {"axis", {{"labelAngle", 0}}}}},
                      {"y",
                       {{"field", "threads"},
                        {"type", "ordinal"},
                        {"title", "Threads"},
                        {"sort", "descending"}}}};
    ms["layer"] = json::array(
        {{{"mark", {{"type", "rect"}, {"tooltip", true}}},
          {"encoding",
           {{"color",
             {{"field", "iops"},
              {"type", "quantitative"},
              {"title", "IOPS"},
              {"scale", {{"scheme", "viridis"}, {"zero", true}}}}}}}},
         {{"mark", {{"type", "text"}, {"fontSize", 9}}},
          {"transform",
           json::array(
               {{{"joinaggregate",
                  json::array({{{"op", "max"}, {"field", "iops"}, {"as", "max_iops"}}})}}})},
          {"encoding",
           {{"text", {{"field", "iops"}, {"type", "quantitative"}, {"format", ".3s"}}},
            {"color",
             {{"condition", {{"test", "datum.iops > 0.6 * datum.max_iops"}, {"value", "black"}}},
              {"value", "white"}}}}}}});
    maps.push_back(ChartBlock(ctx.Id(name + "-map"),
                              "IOPS at every thread count and queue depth, " + r.label, ms));
    json h = json::array();
    for (const json& sel : Get(res, "selected")) {
      std::string point = Str(sel, "point");
      for (json b : Rebin(Get(sel, "histogram"))) {
        b["point"] = point;
        h.push_back(b);
      }
      const json& tot = Get(sel, "total");
      const json& l = Get(tot, "lat_ns");
      trows.push_back(json::array({r.label, point, FmtInt(Num(tot, "iops")), FmtUs(Num(l, "mean")),
                                   FmtUs(Num(l, "p99")), FmtUs(Num(l, "p99_9")),
                                   FmtUs(Num(l, "p99_99")), FmtUs(Num(l, "max"))}));
    }
    if (!h.empty()) {
      json hs = Spec(fmt::format("Response-time histograms: {}", r.label), h, kNarrow, kShort);
      hs["mark"] = {{"type", "line"},
                    {"interpolate", "step-after"},
                    {"point", {{"size", 8}}},
                    {"tooltip", true}};
      hs["encoding"] = {{"x", Q("us", "Latency, µs", true)},
                        {"y", Q("pct", "Share of I/Os, %")},
                        {"color", N("point", "Point")}};
      hists.push_back(ChartBlock(
          ctx.Id(name + "-hist"),
          "Latency histograms of the selected points (8 bins per doubling), " + r.label, hs));
    }
  }
  if (curves.empty()) return nullptr;
  blocks.push_back(RowBlock(maps));
  json cs = LineSpec(fmt::format("{}: mean response time against IOPS", ecw ? "ECW" : "DIRTH"),
                     curves, Q("iops", "IOPS", true), Q("mean_us", "Mean latency, µs", true),
                     "threads", "Threads", ctx, nullptr, "qd");
  cs["encoding"]["color"]["type"] = "ordinal";
  cs["encoding"]["detail"] = N("drive", "Drive");
  blocks.push_back(ChartBlock(ctx.Id(name + "-curves"),
                              "One line per thread count, queue depth growing along it (log axes)",
                              cs));
  if (!hists.empty()) blocks.push_back(RowBlock(hists));
  if (!trows.empty()) {
    blocks.push_back(TableBlock(
        ctx.Id(name + "-selected"), "Selected points (latency in µs)",
        json::array({"Drive", "Point", "IOPS", "Mean", "99%", "99.9%", "99.99%", "Max"}), trows));
  }
  Append(blocks, SteadyStateBlocks(ctx, name, "IOPS at the largest load"));
  return Section(name, TestTitle(name),
                 ecw ? "The enterprise composite workload swept over thread counts and queue "
                       "depths, with latency histograms of selected points."
                     : "Demand intensity: IOPS and response time over thread counts and queue "
                       "depths, with latency histograms of selected points.",
                 blocks);
}

// ---------------------------------------------------------------- OP study

json OpSection(Ctx& ctx) {
  json blocks = json::array();
  blocks.push_back(ParamsTable(ctx, "op",
                               {
                                   {"Unused capacity",
                                    [](const ReportRun& r, const json&) {
                                      return ListNums(Get(Options(r), "op_pcts"), "%, ") +
                                             "% (and 0%)";
                                    }},
                                   {"Per setting",
                                    [](const ReportRun&, const json&) {
                                      return std::string(
                                          "purge, write only the remaining range to steady state, "
                                          "then latency-vs-IOPS curves of 4KiB write and 70/30");
                                    }},
                               }));
  json bars = json::array(), trows = json::array(), charts = json::array();
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, "op");
    if (!t) continue;
    CurveRows rows;
    for (const json& p : Get(Get(*t, "results"), "op_points")) {
      double op = Num(p, "op_pct");
      std::string label = fmt::format("OP +{:g}%", op);
      AddCurves(rows, Get(p, "curves"), r.label, "op", label);
      bars.push_back(
          {{"drive", r.label}, {"op_pct", op}, {"iops", R6(Num(p, "steady_write_iops"))}});
      // Best IOPS at a mean latency of at most 1 ms, per curve (the DC400 review's comparison).
      json rw = json::array({r.label, fmt::format("{:g}%", op),
                             FmtNum(Num(p, "range_bytes") / 1e9, 4) + " GB",
                             FmtInt(Num(p, "steady_write_iops"))});
      for (const char* mix : {"write", "70/30"}) {
        double best = 0;
        for (const json& c : Get(p, "curves")) {
          if (CurveName(c).find(mix) == std::string::npos) continue;
          for (const json& pt : Get(c, "points")) {
            const json& tot = Get(pt, "total");
            if (Num(Get(tot, "lat_ns"), "mean") <= 1e6) best = std::max(best, Num(tot, "iops"));
          }
        }
        rw.push_back(best > 0 ? FmtInt(best) : "-");
      }
      rw.push_back(VerdictCell(Get(p, "steady_state")));
      trows.push_back(rw);
    }
    for (auto& v : rows.values)
      v["curve"] =
          v["curve"].get<std::string>().substr(v["curve"].get<std::string>().find(' ') + 1);
    charts.push_back(
        ChartBlock(ctx.Id("op-mean"),
                   "Mean latency against IOPS at each over-provisioning setting, " + r.label,
                   CurveChart("OP study: mean latency vs IOPS, " + r.label, rows, "mean_us",
                              "Mean latency, µs", "op", "Spare area", ctx, "curve", kNarrow + 60)));
    charts.push_back(ChartBlock(
        ctx.Id("op-p9999"),
        "99.99% latency against IOPS at each over-provisioning setting, " + r.label,
        CurveChart("OP study: 99.99% latency vs IOPS, " + r.label, rows, "p99_99_us",
                   "99.99% latency, µs", "op", "Spare area", ctx, "curve", kNarrow + 60)));
  }
  if (bars.empty()) return nullptr;
  blocks.push_back(
      TableBlock(ctx.Id("op-table"),
                 "Over-provisioning: steady 4KiB random-write IOPS and the best IOPS at a mean "
                 "latency of 1 ms or less (any thread count and QD)",
                 json::array({"Drive", "Extra OP", "Range written", "Steady write IOPS",
                              "Write: IOPS at <= 1 ms", "70/30: IOPS at <= 1 ms", "Steady state"}),
                 trows));
  blocks.push_back(RowBlock(charts));
  json bs = LineSpec("Steady 4KiB random-write IOPS by spare area", bars,
                     Q("op_pct", "Capacity left unused, %"), Q("iops", "IOPS"), "", "", ctx,
                     nullptr, "", kNarrow, kShort);
  blocks.push_back(ChartBlock(ctx.Id("op-steady"),
                              "Steady-state write IOPS against the share of capacity left unused",
                              bs));
  Append(blocks, SteadyStateBlocks(ctx, "op", "preconditioning at each setting"));
  return Section("op", "Over-provisioning study",
                 "The latency-vs-IOPS curves repeated with part of the capacity left unused after "
                 "a purge: more spare area, less write amplification.",
                 blocks);
}

}  // namespace

const std::vector<PtsSectionDef>& PtsSections() {
  static const std::vector<PtsSectionDef> kSections = {
      {"iops", "IOPS", [](Ctx& c, const std::string&) { return IopsSection(c); }},
      {"tp", "Throughput", [](Ctx& c, const std::string&) { return TpSection(c); }},
      {"lat", "Latency", [](Ctx& c, const std::string&) { return LatSection(c); }},
      {"lvi", "Latency vs IOPS", [](Ctx& c, const std::string&) { return LviSection(c); }},
      {"wsat", "Write saturation", [](Ctx& c, const std::string&) { return WsatSection(c); }},
      {"hir", "Host idle recovery", [](Ctx& c, const std::string&) { return HirSection(c); }},
      {"xsr", "Cross-stimulus recovery", [](Ctx& c, const std::string&) { return XsrSection(c); }},
      {"dirth", "Demand intensity / response time histogram", SweepSection},
      {"ecw", "Enterprise composite workload", SweepSection},
      {"op", "Over-provisioning study", [](Ctx& c, const std::string&) { return OpSection(c); }},
  };
  return kSections;
}

}  // namespace ssdlab::report::pts
