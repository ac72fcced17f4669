// The review-lab profiles in the report (suite/profile.h): one section per profile, the runs
// holding it side by side, and every fill level of a run (--fill 0,90) as its own column.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/model_internal.h"

namespace ssdlab::report {

bool IsProfileTest(const json& test) {
  const json& res = Get(test, "results");
  return Get(res, "kind").is_string() && Get(res, "levels").is_array();
}

namespace {

// One column of a profile section: a run's profile test at one fill level.
struct Series {
  std::string label;  // legend name: the run's label, and the fill level when one was set
  const ReportRun* run = nullptr;
  const json* test = nullptr;
  const json* level = nullptr;  // an entry of results.levels
  const json& res() const { return Get(*level, "results"); }
};

// The tests of one section: every run's test of that profile (all curves share one).
struct Group {
  std::string key, kind;
  std::vector<const json*> tests;
  std::vector<const ReportRun*> runs;  // of each test
  std::vector<Series> series;
};

using Fact = std::pair<std::string, std::function<std::string(const Series&)>>;

const json& Opts(const ReportRun& r) {
  return Get(Get(Get(r.doc, "context"), "config"), "options");
}

std::string FmtBytes(double b) {
  if (b >= 1e9) return fmt::format("{} ({:.1f} GB)", FmtInt(b), b / 1e9);
  if (b >= 1 << 20 && std::fmod(b, 1 << 20) == 0) return fmt::format("{:g} MiB", b / (1 << 20));
  return FmtInt(b) + " bytes";
}

// "512 B", "4 KiB", "64 MiB" (ATTO's axis).
std::string SizeLabel(double b) {
  if (b >= (1 << 20) && std::fmod(b, 1 << 20) == 0) return fmt::format("{:g} MiB", b / (1 << 20));
  if (b >= 1024 && std::fmod(b, 1024) == 0) return fmt::format("{:g} KiB", b / 1024);
  return fmt::format("{:g} B", b);
}

// Section ids are used as anchors: letters, digits and '-' only.
std::string Anchor(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

// Nominal values in first-seen order (a legend's or axis' sort).
void AddOnce(json& sort, const std::string& v) {
  if (std::find(sort.begin(), sort.end(), json(v)) == sort.end()) sort.push_back(v);
}

// The local context of a section's charts: several series -> the drive legend.
Ctx SubCtx(const Ctx& ctx, const std::vector<Series>& series) {
  std::set<std::string> labels;
  for (const Series& s : series) labels.insert(s.label);
  return Ctx{ctx.runs, labels.size() > 1};
}

std::vector<Group> Groups(const Ctx& ctx) {
  std::vector<Group> groups;
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsProfileTest(t)) continue;
      const json& res = Get(t, "results");
      std::string kind = Str(res, "kind");
      std::string key = kind == "curve" ? "curves" : Str(t, "name");
      auto g =
          std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == key; });
      if (g == groups.end()) {
        groups.push_back({key, kind, {}, {}, {}});
        g = groups.end() - 1;
      }
      g->tests.push_back(&t);
      g->runs.push_back(&r);
      const json& levels = Get(res, "levels");
      for (const json& l : levels) {
        std::string label = r.label;
        if (Get(l, "fill_pct").is_number())
          label += fmt::format(", {:g}% full", l["fill_pct"].get<double>());
        g->series.push_back({label, &r, &t, &l});
      }
    }
  }
  return groups;
}

std::string PrepText(const Series& s) {
  const json& p = Get(*s.level, "preparation");
  if (!p.is_object()) return "none: the target as found";
  std::string t = "purge (" + Str(p, "purge_method", "-") + ")";
  double filled = Num(p, "filled_bytes");
  if (filled > 0)
    t += fmt::format(", then {:g}% ({}) written sequentially at {:.0f} MB/s",
                     Num(*s.level, "fill_pct"), FmtBytes(filled), Num(p, "mb_s"));
  return t;
}

// Parameters of a profile: one row per fact, one column per series.
json ParamsBlock(Ctx& ctx, const Group& g, const std::vector<Fact>& facts) {
  json cols = json::array({"Parameter"});
  for (const Series& s : g.series) cols.push_back(s.label);
  std::vector<Fact> all = {
      {"Target",
       [](const Series& s) { return Str(Get(Get(s.run->doc, "context"), "target"), "path"); }},
      {"Preparation", PrepText}};
  all.insert(all.end(), facts.begin(), facts.end());
  json rows = json::array();
  for (const auto& [name, fn] : all) {
    json rw = json::array({name});
    for (const Series& s : g.series) rw.push_back(fn(s));
    rows.push_back(rw);
  }
  return TableBlock(ctx.Id("params-profile-" + Anchor(g.key)), "Profile parameters", cols, rows);
}

// The same figures at each fill level of a run (--fill 0,90): a table per run and the change
// from the first level per metric as bars.
json FillBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), sort = json::array();
  std::set<std::string> drives;
  for (size_t i = 0; i < g.tests.size(); ++i) {
    const json& res = Get(*g.tests[i], "results");
    const json& diffs = Get(res, "differences");
    const json& levels = Get(res, "levels");
    if (!diffs.is_array() || diffs.empty() || levels.size() < 2) continue;
    std::string drive = g.runs[i]->label;
    if (g.kind == "curve") drive += " " + Str(*g.tests[i], "name");
    json cols = json::array({"Metric"});
    for (const json& l : levels) cols.push_back(fmt::format("{:g}% full", Num(l, "fill_pct")));
    cols.push_back("Change");
    json rows = json::array();
    for (const json& d : diffs) {
      json rw = json::array({Str(d, "metric")});
      for (const json& v : Get(d, "values")) rw.push_back(FmtNum(v.get<double>(), 4));
      double ch = Num(d, "change_pct");
      rw.push_back(Cell(fmt::format("{:+.1f}%", ch), ch <= -10 ? "bad" : ch >= 10 ? "good" : ""));
      rows.push_back(rw);
      values.push_back({{"drive", drive}, {"metric", Str(d, "metric")}, {"change_pct", R6(ch)}});
      AddOnce(sort, Str(d, "metric"));
      drives.insert(drive);
    }
    blocks.push_back(
        TableBlock(ctx.Id("fill-table-" + Anchor(g.key)),
                   fmt::format("{}: the figures at each fill level (purged, then filled "
                               "sequentially) and the change from the first level",
                               drive),
                   cols, rows));
  }
  if (values.empty()) return blocks;
  Ctx sub{ctx.runs, drives.size() > 1};
  json s = BarSpec("Change from the first fill level", values, Q("change_pct", "Change, %"),
                   N("metric", "Metric", sort), nullptr, sub, "", false, kNarrow,
                   std::max<int>(kShort, 14 * static_cast<int>(values.size())));
  s["encoding"]["y"]["axis"] = {{"labelLimit", 240}};
  blocks.push_back(
      ChartBlock(ctx.Id("fill-change-" + Anchor(g.key)),
                 "Each summary figure at the last fill level against the first, in percent", s));
  return blocks;
}

// ---------------------------------------------------------------- CrystalDiskMark

json CdmBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), tests = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Test file",
           [](const Series& s) {
             return FmtBytes(Num(s.res(), "test_file_bytes")) + " at offset " +
                    FmtInt(Num(*s.level, "workspace_begin_bytes")) + ", random data";
           }},
          {"Passes",
           [](const Series& s) {
             return fmt::format("{:g} of {} with {} pauses; the best by MB/s",
                                Num(s.res(), "passes"), FmtDurationNs(Num(s.res(), "pass_ns")),
                                FmtDurationNs(Num(s.res(), "pause_ns")));
           }},
      }));
  for (const Series& s : g.series) {
    json rows = json::array();
    for (const json& it : Get(s.res(), "items")) {
      std::string name = Str(it, "name");
      AddOnce(tests, name);
      json rw = json::array({name});
      for (const char* dir : {"read", "write"}) {
        const json& d = Get(it, dir);
        rw.push_back(fmt::format("{:.2f}", Num(d, "mb_s")));
        rw.push_back(FmtInt(Num(d, "iops")));
        rw.push_back(FmtNum(Num(d, "mean_us"), 4));
        values.push_back({{"drive", s.label},
                          {"test", name},
                          {"direction", std::string(dir) == "read" ? "Read" : "Write"},
                          {"mb_s", R6(Num(d, "mb_s"))},
                          {"iops", R6(Num(d, "iops"))},
                          {"mean_us", R6(Num(d, "mean_us"))},
                          {"best_pass", Num(d, "best_pass")}});
      }
      rows.push_back(rw);
    }
    blocks.push_back(
        TableBlock(ctx.Id("cdm-table"),
                   fmt::format("{}: best of {:g} passes per test and direction", s.label,
                               Num(s.res(), "passes")),
                   json::array({"Test", "Read, MB/s", "Read, IOPS", "Read, mean µs", "Write, MB/s",
                                "Write, IOPS", "Write, mean µs"}),
                   rows,
                   json::array({"MB/s = 1,000,000 bytes/s, as CrystalDiskMark prints; SEQ = "
                                "sequential, RND = random, Q = queue depth, T = threads."})));
  }
  if (values.empty()) return blocks;
  Ctx sub = SubCtx(ctx, g.series);
  json s = BarSpec("CrystalDiskMark-style: MB/s per test", values, O("test", "Test", tests),
                   Q("mb_s", "MB/s"), N("direction", "Direction"), sub, "direction", false,
                   sub.multi ? 320 : 260);
  blocks.push_back(
      ChartBlock(ctx.Id("cdm-bars"), "Best-pass throughput of each test, read and write", s));
  return blocks;
}

// ---------------------------------------------------------------- ATTO

json AttoBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), sizes = json::array();
  std::set<double> seen;
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Span",
           [](const Series& s) {
             return FmtBytes(Num(s.res(), "span_bytes")) +
                    ", sequential write then read at each block size";
           }},
          {"Queue depth", [](const Series& s) { return fmt::format("{:g}", Num(s.res(), "qd")); }},
      }));
  for (const Series& s : g.series) {
    json rows = json::array(), notes = json::array();
    for (const json& r : Get(s.res(), "rows")) {
      double bs = Num(r, "block_bytes");
      if (seen.insert(bs).second) sizes.push_back(bs);
      rows.push_back(json::array({SizeLabel(bs), fmt::format("{:.1f}", Num(r, "write_mb_s")),
                                  fmt::format("{:.1f}", Num(r, "read_mb_s")),
                                  FmtInt(Num(r, "write_iops")), FmtInt(Num(r, "read_iops"))}));
      for (const char* dir : {"write", "read"}) {
        values.push_back({{"drive", s.label},
                          {"block_bytes", bs},
                          {"size", SizeLabel(bs)},
                          {"direction", dir},
                          {"mb_s", R6(Num(r, std::string(dir) + "_mb_s"))},
                          {"iops", R6(Num(r, std::string(dir) + "_iops"))}});
      }
    }
    for (const json& k : Get(s.res(), "skipped"))
      notes.push_back(SizeLabel(Num(k, "block_bytes")) + " skipped: " + Str(k, "reason"));
    blocks.push_back(TableBlock(
        ctx.Id("atto-table"), s.label + ": throughput and IOPS by block size",
        json::array({"Block size", "Write, MB/s", "Read, MB/s", "Write, IOPS", "Read, IOPS"}), rows,
        notes));
  }
  if (values.empty()) return blocks;
  std::sort(sizes.begin(), sizes.end());
  Ctx sub = SubCtx(ctx, g.series);
  json x = {{"field", "block_bytes"},
            {"type", "quantitative"},
            {"title", "Block size (log2 scale)"},
            {"scale", {{"type", "log"}, {"base", 2}}},
            {"axis",
             {{"values", sizes},
              {"labelAngle", -45},
              {"labelExpr",
               "datum.value >= 1048576 ? format(datum.value / 1048576, 'd') + ' MiB' : datum.value "
               ">= 1024 ? "
               "format(datum.value / 1024, 'd') + ' KiB' : format(datum.value, 'd') + ' B'"}}}};
  json s = LineSpec("ATTO-style: throughput against block size", values, x, Q("mb_s", "MB/s"),
                    "direction", "Direction", sub, json::array({"write", "read"}));
  blocks.push_back(ChartBlock(ctx.Id("atto-curve"),
                              "Sequential write and read throughput at each block size (log2 axis)",
                              s));
  return blocks;
}

// ---------------------------------------------------------------- AS SSD

json AsSsdBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), scores = json::array(),
       notes = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Test file", [](const Series& s) { return FmtBytes(Num(s.res(), "test_file_bytes")); }},
          {"Timed tests",
           [](const Series& s) {
             return FmtDurationNs(Num(s.res(), "time_ns")) + " each (4K, 4K-64Thrd, access time)";
           }},
      }));
  const std::vector<std::pair<std::string, std::string>> tests = {
      {"seq", "Seq"}, {"4k", "4K"}, {"4k_64thrd", "4K-64Thrd"}};
  for (const Series& s : g.series) {
    const json& res = s.res();
    json rows = json::array();
    for (const auto& [key, name] : tests) {
      const json& t = Get(res, key);
      std::string title = name;
      if (key == "seq") title += " (" + SizeLabel(Num(t, "block_bytes")) + " blocks)";
      rows.push_back(json::array({title + ", MB/s", fmt::format("{:.2f}", Num(t, "read_mb_s")),
                                  fmt::format("{:.2f}", Num(t, "write_mb_s"))}));
      for (const char* dir : {"read", "write"}) {
        values.push_back({{"drive", s.label},
                          {"test", name},
                          {"direction", std::string(dir) == "read" ? "Read" : "Write"},
                          {"mb_s", R6(Num(t, std::string(dir) + "_mb_s"))}});
      }
    }
    const json& acc = Get(res, "access_time_ms");
    rows.push_back(json::array({"Acc.time, ms", fmt::format("{:.3f}", Num(acc, "read")),
                                fmt::format("{:.3f}", Num(acc, "write"))}));
    const json& sc = Get(res, "score");
    rows.push_back(json::array({"Score", FmtInt(Num(sc, "read")), FmtInt(Num(sc, "write"))}));
    rows.push_back(json::array({"Total score", FmtInt(Num(sc, "total")), ""}));
    for (const char* k : {"read", "write", "total"}) {
      std::string name = std::string(k) == "read"    ? "Read"
                         : std::string(k) == "write" ? "Write"
                                                     : "Total";
      scores.push_back({{"drive", s.label}, {"score", name}, {"value", Num(sc, k)}});
    }
    if (notes.empty() && !Str(res, "score_formula").empty())
      notes.push_back("Score: " + Str(res, "score_formula") + ".");
    blocks.push_back(
        TableBlock(ctx.Id("as-ssd-table"), s.label + ": AS SSD-style results",
                   json::array({"Test", "Read", "Write"}), rows,
                   json::array({fmt::format("Acc.time: {} writes in the test file and 4 KiB reads "
                                            "over the whole target, one at a time.",
                                            SizeLabel(Num(acc, "write_block_bytes")))})));
  }
  if (values.empty()) return blocks;
  Ctx sub = SubCtx(ctx, g.series);
  json order = json::array({"Seq", "4K", "4K-64Thrd"});
  json mb = BarSpec("AS SSD-style: MB/s", values, O("test", "Test", order), Q("mb_s", "MB/s"),
                    N("direction", "Direction"), sub, "direction", false, sub.multi ? 240 : 200);
  json score_order = json::array({"Read", "Write", "Total"});
  json sc =
      BarSpec("AS SSD-style score", scores, O("score", "Score", score_order), Q("value", "Points"),
              N("score", "Score", score_order), sub, "", false, sub.multi ? 300 : 220);
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("as-ssd-bars"),
                  "Sequential, 4K QD1 and 4K with 64 threads, read and write", mb),
       ChartBlock(ctx.Id("as-ssd-score"), "Read, write and total score (formula below)", sc)})));
  if (!notes.empty()) blocks.push_back(TextBlock(notes[0].get<std::string>()));
  return blocks;
}

// ---------------------------------------------------------------- surface

json SurfaceBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), rows = json::array(), cliffs = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Segments",
           [](const Series& s) {
             return fmt::format(
                 "{} of {}, {} blocks at QD {:g}; write the whole surface, then read it",
                 Get(s.res(), "points").size(), FmtBytes(Num(s.res(), "segment_bytes")),
                 SizeLabel(Num(s.res(), "block_bytes")), Num(s.res(), "qd"));
           }},
      }));
  for (const Series& s : g.series) {
    const json& res = s.res();
    double wmin = -1, rmin = -1;
    for (const json& p : Get(res, "points")) {
      double w = Num(p, "write_mb_s"), r = Num(p, "read_mb_s");
      wmin = wmin < 0 ? w : std::min(wmin, w);
      rmin = rmin < 0 ? r : std::min(rmin, r);
      for (const auto& [dir, v] : {std::pair<const char*, double>{"write", w}, {"read", r}}) {
        values.push_back({{"drive", s.label},
                          {"position_pct", R6(Num(p, "position_pct"))},
                          {"position_gb", R6(Num(p, "position_bytes") / 1e9)},
                          {"direction", dir},
                          {"mb_s", R6(v)}});
      }
    }
    const json& cliff = Get(res, "cliff");
    bool found = Get(cliff, "found").is_boolean() && cliff["found"].get<bool>();
    if (found) {
      cliffs.push_back({{"drive", s.label},
                        {"position_pct", R6(Num(cliff, "position_pct"))},
                        {"before_mb_s", R6(Num(cliff, "before_mb_s"))},
                        {"after_mb_s", R6(Num(cliff, "after_mb_s"))}});
    }
    rows.push_back(json::array(
        {s.label, fmt::format("{:.0f}", Num(res, "write_mean_mb_s")),
         fmt::format("{:.0f}", std::max(0.0, wmin)),
         fmt::format("{:.0f}", Num(res, "read_mean_mb_s")),
         fmt::format("{:.0f}", std::max(0.0, rmin)),
         found ? Cell(fmt::format("at {:.0f}% ({:.1f} GB): {:.0f} MB/s before, {:.0f} MB/s after",
                                  Num(cliff, "position_pct"), Num(cliff, "position_bytes") / 1e9,
                                  Num(cliff, "before_mb_s"), Num(cliff, "after_mb_s")),
                      "bad")
               : Cell("none", "muted")}));
  }
  if (values.empty()) return blocks;
  double ratio = Num(g.series.front().res(), "cliff_ratio", 0.6);
  blocks.push_back(TableBlock(
      ctx.Id("surface-table"), "Linear write and read over the whole target (MB/s)",
      json::array({"Drive", "Write, mean", "Write, min", "Read, mean", "Read, min", "Write cliff"}),
      rows,
      json::array({fmt::format("The cliff: the first segment below {:g} x the median of the "
                               "segments before it, with the rest of "
                               "the surface also below that level (an SLC cache running out).",
                               ratio)})));
  Ctx sub = SubCtx(ctx, g.series);
  json s = LineSpec("Surface: MB/s against position", values,
                    Q("position_pct", "Position, % of the capacity"), Q("mb_s", "MB/s"),
                    "direction", "Direction", sub, json::array({"write", "read"}));
  s["mark"] = {{"type", "line"}, {"point", {{"size", 10}}}, {"tooltip", true}};
  std::string caption =
      "Throughput of each segment, sequential write then read (AIDA64-style linear test)";
  if (!cliffs.empty()) {
    // The write cliff as a dashed rule at its position.
    json rule = {
        {"data", {{"values", cliffs}}},
        {"mark",
         {{"type", "rule"}, {"color", "#b3261e"}, {"strokeDash", {4, 4}}, {"tooltip", true}}},
        {"encoding", {{"x", Q("position_pct", "Position, % of the capacity")}}}};
    s["layer"] = json::array({{{"mark", s["mark"]}, {"encoding", s["encoding"]}}, rule});
    s.erase("mark");
    s.erase("encoding");
    caption += "; the dashed red line marks the write cliff";
  }
  blocks.push_back(ChartBlock(ctx.Id("surface-curve"), caption, s));
  return blocks;
}

// ---------------------------------------------------------------- sysbench fileio

json FileioBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), iops = json::array(), lat = json::array(), modes = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Load",
           [](const Series& s) {
             return fmt::format("{:g} threads, one {} I/O at a time each, O_DIRECT; {} per mode",
                                Num(s.res(), "threads"), SizeLabel(Num(s.res(), "block_bytes")),
                                FmtDurationNs(Num(s.res(), "time_ns")));
           }},
          {"Files",
           [](const Series& s) {
             return FmtBytes(Num(s.res(), "range_bytes")) + " in total, written first (prepare)";
           }},
          {"rndrw",
           [](const Series& s) {
             return fmt::format("{:g} reads per write", Num(s.res(), "rndrw_reads_per_write"));
           }},
      }));
  const std::vector<std::pair<std::string, std::string>> stats = {
      {"min", "min"}, {"mean", "mean"}, {"p95", "95%"}, {"p99", "99%"}, {"max", "max"}};
  for (const Series& s : g.series) {
    json rows = json::array();
    for (const json& m : Get(s.res(), "modes")) {
      std::string mode = Str(m, "mode");
      AddOnce(modes, mode);
      const json& l = Get(m, "lat_ns");
      json rw = json::array({mode, FmtInt(Num(m, "read_iops")), FmtInt(Num(m, "write_iops")),
                             fmt::format("{:.2f}", Num(m, "read_mib_s")),
                             fmt::format("{:.2f}", Num(m, "write_mib_s"))});
      int order = 0;
      for (const auto& [k, name] : stats) {
        rw.push_back(FmtUs(Num(l, k)));
        if (Num(l, k) > 0)
          lat.push_back({{"drive", s.label},
                         {"mode", mode},
                         {"stat", name},
                         {"order", order++},
                         {"us", R6(Num(l, k) / 1000)}});
      }
      rows.push_back(rw);
      for (const char* dir : {"read", "write"}) {
        double v = Num(m, std::string(dir) + "_iops");
        if (v > 0)
          iops.push_back({{"drive", s.label}, {"mode", mode}, {"direction", dir}, {"iops", R6(v)}});
      }
    }
    blocks.push_back(TableBlock(ctx.Id("fileio-table"),
                                s.label + ": IOPS, throughput and latency (µs) per mode",
                                json::array({"Mode", "Read IOPS", "Write IOPS", "Read MiB/s",
                                             "Write MiB/s", "Min", "Mean", "95%", "99%", "Max"}),
                                rows));
  }
  if (iops.empty()) return blocks;
  Ctx sub = SubCtx(ctx, g.series);
  json b = BarSpec("fileio: IOPS per mode", iops, O("mode", "Mode", modes), Q("iops", "IOPS"),
                   N("direction", "Direction", json::array({"read", "write"})), sub, "", true,
                   sub.multi ? kNarrow : 300);
  json l = LineSpec("fileio: latency per mode", lat,
                    O("stat", "Statistic", json::array({"min", "mean", "95%", "99%", "max"})),
                    Q("us", "Latency, µs", true), "mode", "Mode", sub, modes, "", kNarrow, kTall);
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("fileio-iops"), "Read and write IOPS of each mode (stacked)", b),
       ChartBlock(ctx.Id("fileio-lat"),
                  "Minimum, mean, 95%, 99% and maximum latency of each mode (log scale)", l)})));
  return blocks;
}

// ---------------------------------------------------------------- vdbench-style curves

std::string MixText(const json& mix) {
  std::string bs;
  for (const json& b : Get(mix, "block_sizes")) {
    bs += (bs.empty() ? "" : " + ") + SizeLabel(Num(b, "bytes"));
    if (Num(b, "pct") < 100) bs += fmt::format(" ({:g}%)", Num(b, "pct"));
  }
  std::string dist = Str(Get(mix, "dist"), "kind", "uniform");
  return fmt::format("{} {}, {:g}% read, {}{}", Str(mix, "pattern"), bs, Num(mix, "read_pct"),
                     dist == "uniform" ? "" : dist + " access, ",
                     fmt::format("{:g} outstanding I/Os", Num(mix, "threads")));
}

json CurveBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), workloads = json::array(),
       summary = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Workload",
           [](const Series& s) {
             return Str(*s.test, "name") + ": " + MixText(Get(s.res(), "mix"));
           }},
          {"Working section",
           [](const Series& s) {
             const json& p = Get(s.res(), "preparation");
             std::string t = fmt::format("the first {:g}% ({})", Num(s.res(), "section_pct"),
                                         FmtBytes(Num(s.res(), "section_bytes")));
             if (p.is_object())
               t +=
                   fmt::format(", after filling {} sequentially", FmtBytes(Num(p, "filled_bytes")));
             return t;
           }},
          {"Each point",
           [](const Series& s) {
             return fmt::format("{} warm-up + {} measured; {:g} jobs x QD {:g}",
                                FmtDurationNs(Num(s.res(), "ramp_ns")),
                                FmtDurationNs(Num(s.res(), "time_ns")), Num(s.res(), "jobs"),
                                Num(s.res(), "qd"));
           }},
      }));
  std::vector<double> max_iops;
  for (const Series& s : g.series) {
    const json& res = s.res();
    std::string wl = Str(*s.test, "name");
    AddOnce(workloads, wl);
    const json& mx = Get(res, "max");
    max_iops.push_back(Num(mx, "iops"));
    json rows = json::array();
    for (const json& p : Get(res, "points")) {
      double pct = Num(p, "target_pct");
      values.push_back({{"drive", s.label},
                        {"workload", wl},
                        {"target_pct", pct},
                        {"iops", R6(Num(p, "iops"))},
                        {"mb_s", R6(Num(p, "mb_s"))},
                        {"mean_ms", R6(Num(p, "mean_ns") / 1e6)},
                        {"p99_ms", R6(Num(p, "p99_ns") / 1e6)}});
      rows.push_back(
          json::array({fmt::format("{:g}%", pct), FmtInt(Num(p, "rate_iops")),
                       FmtInt(Num(p, "iops")), FmtNum(Num(p, "mb_s"), 4),
                       FmtNum(Num(p, "mean_ns") / 1e6, 3), FmtNum(Num(p, "p99_ns") / 1e6, 3)}));
    }
    rows.push_back(
        json::array({"uncapped", "-", FmtInt(Num(mx, "iops")), FmtNum(Num(mx, "mb_s"), 4),
                     FmtNum(Num(mx, "mean_ns") / 1e6, 3), FmtNum(Num(mx, "p99_ns") / 1e6, 3)}));
    summary.push_back(
        json::array({s.label, wl, FmtInt(Num(mx, "iops")), FmtNum(Num(mx, "mb_s"), 4),
                     FmtNum(Num(mx, "mean_ns") / 1e6, 3), FmtNum(Num(mx, "p99_ns") / 1e6, 3)}));
    blocks.push_back(
        TableBlock(ctx.Id("curve-points"),
                   fmt::format("{}: {} at each paced rate (latency in ms)", s.label, wl),
                   json::array({"Target", "Rate, IOPS", "IOPS", "MB/s", "Mean", "99%"}), rows));
  }
  if (values.empty()) return blocks;
  // One table of the maxima, before the per-curve tables.
  blocks.insert(
      blocks.begin() + 1,
      TableBlock(ctx.Id("curve-max"), "Uncapped maximum of each curve (latency in ms)",
                 json::array({"Drive", "Workload", "IOPS", "MB/s", "Mean", "99%"}), summary));
  Ctx sub = SubCtx(ctx, g.series);
  // Workloads of very different rates share the chart on a log axis.
  auto [lo, hi] = std::minmax_element(max_iops.begin(), max_iops.end());
  bool log_x = *lo > 0 && *hi / *lo > 10;
  json charts = json::array();
  for (const auto& [field, title] : std::vector<std::pair<std::string, std::string>>{
           {"mean_ms", "Mean latency"}, {"p99_ms", "99% latency"}}) {
    json s = LineSpec("Curves: " + title + " against IOPS", values,
                      Q("iops", log_x ? "IOPS (log scale)" : "IOPS", log_x),
                      Q(field, title + ", ms (log scale)", true), "workload", "Workload", sub,
                      workloads, "target_pct", kNarrow + 60, kTall);
    charts.push_back(ChartBlock(ctx.Id("curve-" + field.substr(0, field.size() - 3)),
                                title + " against IOPS; each point one paced rate (10%..120% of "
                                        "the uncapped maximum), one curve per workload",
                                s));
  }
  blocks.push_back(RowBlock(charts));
  return blocks;
}

// ---------------------------------------------------------------- fill

json FillProfileBlocks(Ctx& ctx, const Group& g) {
  json rows = json::array();
  for (const Series& s : g.series) {
    const json& res = s.res();
    const json& l = Get(Get(Get(res, "metrics"), "total"), "lat_ns");
    rows.push_back(json::array(
        {s.label, FmtBytes(Num(res, "filled_bytes")), fmt::format("{:g}%", Num(res, "percent")),
         fmt::format("{:.1f}", Num(res, "mb_s")), FmtUs(Num(l, "mean")), FmtUs(Num(l, "p99"))}));
  }
  return json::array({TableBlock(
      ctx.Id("fill-profile"), "Sequential fill (1 MiB writes from the start of the target)",
      json::array({"Drive", "Written", "Share of the capacity", "MB/s", "Mean, µs", "99%, µs"}),
      rows)});
}

// ---------------------------------------------------------------- OP advisor

json OpAdvisorBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), time = json::array(), levels = json::array(), ops = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Per setting",
           [](const Series& s) {
             return fmt::format(
                 "purge, then 4 KiB random writes ({:g} threads x QD {:g}) for {} over the target "
                 "reduced by the setting; IOPS every {}",
                 Num(s.res(), "threads"), Num(s.res(), "qd"),
                 FmtDurationNs(Num(s.res(), "time_ns")),
                 FmtDurationNs(Num(s.res(), "interval_ns")));
           }},
          {"Rule", [](const Series& s) { return Str(Get(s.res(), "recommendation"), "rule"); }},
      }));
  std::vector<double> op_values;
  for (const Series& s : g.series) {
    const json& res = s.res();
    const json& rec = Get(res, "recommendation");
    double base = Num(rec, "baseline_sustained_iops");
    json rows = json::array();
    for (const json& p : Get(res, "points")) {
      double op = Num(p, "op_pct");
      std::string name = fmt::format("OP {:g}%", op);
      if (std::find(op_values.begin(), op_values.end(), op) == op_values.end())
        op_values.push_back(op);
      for (const json& v : ThinSeries(Get(p, "series"), "t_s", "iops", 240)) {
        time.push_back({{"drive", s.label},
                        {"op", name},
                        {"t_s", R6(Num(v, "t_s"))},
                        {"iops", R6(Num(v, "iops"))}});
      }
      levels.push_back({{"drive", s.label},
                        {"op_pct", op},
                        {"measure", "initial (first tenth)"},
                        {"iops", R6(Num(p, "initial_iops"))}});
      levels.push_back({{"drive", s.label},
                        {"op_pct", op},
                        {"measure", "sustained (last third)"},
                        {"iops", R6(Num(p, "sustained_iops"))}});
      bool recommended = op == Num(rec, "op_pct");
      double drop = Num(p, "drop_at_s", -1);
      rows.push_back(json::array(
          {fmt::format("{:g}%", op), FmtBytes(Num(p, "range_bytes")),
           FmtBytes(Num(p, "capacity_cost_bytes")), FmtInt(Num(p, "initial_iops")),
           FmtInt(Num(p, "sustained_iops")), drop >= 0 ? FmtDurationNs(drop * 1e9) : "-",
           base > 0 ? fmt::format("{:+.1f}%", (Num(p, "sustained_iops") / base - 1) * 100) : "-",
           recommended ? Cell("recommended", "good") : Cell("", "")}));
    }
    blocks.push_back(TableBlock(
        ctx.Id("op-advisor-table"),
        s.label + ": sustained 4 KiB random-write IOPS at each over-provisioning setting",
        json::array({"OP", "Range written", "Capacity given up", "Initial IOPS", "Sustained IOPS",
                     "Drop after", "vs smallest OP", ""}),
        rows));
    blocks.push_back(TextBlock(fmt::format(
        "{}: recommended over-provisioning {:g}%: sustained {} IOPS, {:+.1f}% over {:g}% ({} "
        "IOPS), at the cost of {} of capacity.",
        s.label, Num(rec, "op_pct"), FmtInt(Num(rec, "sustained_iops")), Num(rec, "gain_pct"),
        Num(rec, "baseline_op_pct"), FmtInt(Num(rec, "baseline_sustained_iops")),
        FmtBytes(Num(rec, "capacity_cost_bytes")))));
  }
  if (time.empty()) return blocks;
  std::sort(op_values.begin(), op_values.end());
  for (double op : op_values) ops.push_back(fmt::format("OP {:g}%", op));
  Ctx sub = SubCtx(ctx, g.series);
  json t = LineSpec("OP advisor: IOPS against time", time, Q("t_s", "Time, s"), Q("iops", "IOPS"),
                    "op", "Spare area", sub, ops, "", kNarrow + 120, kTall);
  t["mark"] = {{"type", "line"}, {"tooltip", true}};
  json l = LineSpec("OP advisor: initial and sustained IOPS", levels,
                    Q("op_pct", "Capacity left unused, %"), Q("iops", "IOPS"), "measure", "IOPS",
                    sub, nullptr, "", kNarrow, kTall);
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("op-advisor-time"),
                  "4 KiB random-write IOPS against time at each over-provisioning setting: fast "
                  "while fresh, then the drop",
                  t),
       ChartBlock(ctx.Id("op-advisor-levels"),
                  "Initial (first tenth of the run) and sustained (last third) IOPS against the "
                  "share of capacity left unused",
                  l)})));
  return blocks;
}

// ---------------------------------------------------------------- user profiles

json UserBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(
      {ParamsBlock(ctx, g, {{"Phases", [](const Series& s) {
                               return std::to_string(Get(s.res(), "phases").size()) + " from " +
                                      Str(Get(Get(s.run->doc, "context"), "config"), "profile");
                             }}})});
  json values = json::array(), phases = json::array();
  for (const Series& s : g.series) {
    json rows = json::array();
    for (const json& p : Get(s.res(), "phases")) {
      std::string name = Str(p, "name");
      AddOnce(phases, name);
      rows.push_back(
          json::array({name, Str(p, "workload"), FmtInt(Num(p, "iops")), FmtNum(Num(p, "mb_s"), 4),
                       FmtUs(Num(p, "mean_ns")), FmtUs(Num(p, "p99_ns"))}));
      values.push_back({{"drive", s.label},
                        {"phase", name},
                        {"iops", R6(Num(p, "iops"))},
                        {"mb_s", R6(Num(p, "mb_s"))}});
    }
    blocks.push_back(TableBlock(
        ctx.Id("user-table"), s.label + ": phases in order",
        json::array({"Phase", "Workload", "IOPS", "MB/s", "Mean, µs", "99%, µs"}), rows));
  }
  if (values.empty()) return blocks;
  Ctx sub = SubCtx(ctx, g.series);
  json b = BarSpec("IOPS per phase", values, O("phase", "Phase", phases), Q("iops", "IOPS"),
                   nullptr, sub, "", false, sub.multi ? kNarrow : 300);
  blocks.push_back(ChartBlock(ctx.Id("user-bars"), "IOPS of each phase", b));
  return blocks;
}

struct KindInfo {
  const char* kind;
  const char* title;
  const char* intro;
  json (*blocks)(Ctx&, const Group&);
};

const KindInfo kKinds[] = {
    {"cdm", "CrystalDiskMark-style",
     "CrystalDiskMark's default set on a test file: sequential 1 MiB and random 4 KiB at its queue "
     "depths, best of the passes.",
     CdmBlocks},
    {"cdm-nvme", "CrystalDiskMark-style, NVMe set",
     "CrystalDiskMark's NVMe set: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1, best of the "
     "passes.",
     CdmBlocks},
    {"atto", "ATTO-style block-size sweep",
     "Sequential write and read of a span at block sizes doubling from the smallest to the "
     "largest, at a fixed queue depth.",
     AttoBlocks},
    {"as-ssd", "AS SSD-style",
     "Sequential 16 MiB, 4K at QD1, 4K with 64 threads and access time on a test file, with AS "
     "SSD's score.",
     AsSsdBlocks},
    {"surface", "Surface test (linear write and read)",
     "The whole target written sequentially segment by segment, then read: MB/s against position "
     "shows where a write cache runs out.",
     SurfaceBlocks},
    {"fileio", "sysbench fileio-style",
     "Many threads, one I/O each at a time, on files of a filesystem (O_DIRECT): IOPS and latency "
     "percentiles per mode.",
     FileioBlocks},
    {"curve", "vdbench-style curves",
     "Each workload on a section of a filled target: one uncapped run for the maximum, then runs "
     "paced at a share of it; latency against IOPS (the DC450R review).",
     CurveBlocks},
    {"fill", "Fill", "Sequential fill of part of the target.", FillProfileBlocks},
    {"op-advisor", "Over-provisioning advisor",
     "For each share of the capacity left unused after a purge, sustained 4 KiB random writes over "
     "the rest; the recommendation is the setting with the best "
     "sustained IOPS (the DC500M over-provisioning study).",
     OpAdvisorBlocks},
    {"user", "Profile", "", UserBlocks},
};

}  // namespace

json ProfileSections(Ctx& ctx) {
  json sections = json::array();
  for (const Group& g : Groups(ctx)) {
    const KindInfo* info = &kKinds[std::size(kKinds) - 1];
    for (const KindInfo& k : kKinds) {
      if (g.kind == k.kind) info = &k;
    }
    json blocks = info->blocks(ctx, g);
    Append(blocks, FillBlocks(ctx, g));
    std::string title = info->title;
    std::string intro = info->intro;
    if (g.kind != "curve") title += " (" + g.key + ")";
    if (intro.empty()) intro = Str(Get(*g.tests.front(), "results"), "description");
    sections.push_back(Section("profile-" + Anchor(g.key), title, intro, blocks));
  }
  return sections;
}

json ProfileRunFacts(const ReportRun& run) {
  const json& config = Get(Get(run.doc, "context"), "config");
  if (Get(config, "app").is_string()) return AppRunFacts(run);
  if (Get(config, "trace").is_string() && Get(config, "timing").is_string())
    return ReplayRunFacts(run);
  if (Get(config, "trace_stats").is_string()) return TraceStatsRunFacts(run);
  if (!Get(config, "profile").is_string()) return nullptr;
  std::string description;
  for (const json& t : Get(run.doc, "tests")) {
    if (IsProfileTest(t)) description = Str(Get(t, "results"), "description");
  }
  std::string fills;
  for (const json& f : Get(Opts(run), "fill_pcts"))
    fills += (fills.empty() ? "" : ", ") + fmt::format("{:g}%", f.get<double>());
  return {
      {"spec", "ssdlab profile " + Str(config, "profile") +
                   (description.empty() ? "" : ": " + description)},
      {"active_range", "the profile's test area (see its section)"},
      {"preconditioning",
       fills.empty() ? std::string("none: the target as found (the profile writes what it reads)")
                     : "purge, then sequential fill to " + fills +
                           " of the capacity; the profile runs at each level"},
      {"rounds", "none: fixed phases"},
      {"steady_state", "not applicable (profile)"}};
}

}  // namespace ssdlab::report
