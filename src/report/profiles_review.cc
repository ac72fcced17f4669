// The review programs' profiles in the report: CrystalDiskMark, ATTO, AS SSD and the surface
// test (report/profiles_internal.h).
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "report/profiles_internal.h"

namespace ssdlab::report::profiles {

// ---------------------------------------------------------------- CrystalDiskMark

json CdmBlocks(Ctx& ctx, const Group& g) {
  using results::CdmResults;
  json blocks = json::array(), values = json::array(), tests = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Test file",
           [](const Series& s) {
             return FmtBytes(static_cast<double>(s.Res<CdmResults>().test_file_bytes)) +
                    " at offset " + FmtInt(static_cast<double>(s.level->workspace_begin_bytes)) +
                    ", random data";
           }},
          {"Passes",
           [](const Series& s) {
             const CdmResults& r = s.Res<CdmResults>();
             return fmt::format("{:g} of {} with {} pauses; the best by MB/s",
                                static_cast<double>(r.passes),
                                FmtDurationNs(static_cast<double>(r.pass_ns)),
                                FmtDurationNs(static_cast<double>(r.pause_ns)));
           }},
      }));
  for (const Series& s : g.series) {
    json rows = json::array();
    for (const results::CdmItem& it : s.Res<CdmResults>().items) {
      AddOnce(tests, it.name);
      json rw = json::array({it.name});
      for (const auto& [dir, d] :
           {std::pair<std::string, const results::CdmDirection*>{"Read", &it.read},
            {"Write", &it.write}}) {
        rw.push_back(fmt::format("{:.2f}", d->mb_s));
        rw.push_back(FmtInt(d->iops));
        rw.push_back(FmtNum(d->mean_us, 4));
        values.push_back({{"drive", s.label},
                          {"test", it.name},
                          {"direction", dir},
                          {"mb_s", R6(d->mb_s)},
                          {"iops", R6(d->iops)},
                          {"mean_us", R6(d->mean_us)},
                          {"best_pass", static_cast<double>(d->best_pass)}});
      }
      rows.push_back(rw);
    }
    blocks.push_back(
        TableBlock(ctx.Id("cdm-table"),
                   fmt::format("{}: best of {:g} passes per test and direction", s.label,
                               static_cast<double>(s.Res<CdmResults>().passes)),
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
  using results::AttoResults;
  json blocks = json::array(), values = json::array(), sizes = json::array();
  std::set<double> seen;
  blocks.push_back(
      ParamsBlock(ctx, g,
                  {
                      {"Span",
                       [](const Series& s) {
                         return FmtBytes(static_cast<double>(s.Res<AttoResults>().span_bytes)) +
                                ", sequential write then read at each block size";
                       }},
                      {"Queue depth",
                       [](const Series& s) {
                         return fmt::format("{:g}", static_cast<double>(s.Res<AttoResults>().qd));
                       }},
                  }));
  for (const Series& s : g.series) {
    json rows = json::array(), notes = json::array();
    for (const results::AttoRow& r : s.Res<AttoResults>().rows) {
      double bs = static_cast<double>(r.block_bytes);
      if (seen.insert(bs).second) sizes.push_back(bs);
      rows.push_back(json::array({SizeLabel(bs), fmt::format("{:.1f}", r.write_mb_s),
                                  fmt::format("{:.1f}", r.read_mb_s), FmtInt(r.write_iops),
                                  FmtInt(r.read_iops)}));
      for (const auto& [dir, mb, iops] :
           {std::tuple<const char*, double, double>{"write", r.write_mb_s, r.write_iops},
            {"read", r.read_mb_s, r.read_iops}}) {
        values.push_back({{"drive", s.label},
                          {"block_bytes", bs},
                          {"size", SizeLabel(bs)},
                          {"direction", dir},
                          {"mb_s", R6(mb)},
                          {"iops", R6(iops)}});
      }
    }
    for (const results::AttoSkipped& k : s.Res<AttoResults>().skipped)
      notes.push_back(SizeLabel(static_cast<double>(k.block_bytes)) + " skipped: " + k.reason);
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
  using results::AsSsdResults;
  json blocks = json::array(), values = json::array(), scores = json::array(),
       notes = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Test file",
           [](const Series& s) {
             return FmtBytes(static_cast<double>(s.Res<AsSsdResults>().test_file_bytes));
           }},
          {"Timed tests",
           [](const Series& s) {
             return FmtDurationNs(static_cast<double>(s.Res<AsSsdResults>().time_ns)) +
                    " each (4K, 4K-64Thrd, access time)";
           }},
      }));
  for (const Series& s : g.series) {
    const AsSsdResults& res = s.Res<AsSsdResults>();
    json rows = json::array();
    const std::pair<std::string, const results::ReadWriteMbps*> tests[] = {
        {"Seq", &res.seq}, {"4K", &res.k4}, {"4K-64Thrd", &res.k4_64thrd}};
    for (const auto& [name, t] : tests) {
      std::string title = name;
      if (t == &res.seq)
        title += " (" + SizeLabel(static_cast<double>(res.seq_block_bytes)) + " blocks)";
      rows.push_back(json::array({title + ", MB/s", fmt::format("{:.2f}", t->read_mb_s),
                                  fmt::format("{:.2f}", t->write_mb_s)}));
      for (const auto& [dir, v] :
           {std::pair<const char*, double>{"Read", t->read_mb_s}, {"Write", t->write_mb_s}}) {
        values.push_back({{"drive", s.label}, {"test", name}, {"direction", dir}, {"mb_s", R6(v)}});
      }
    }
    rows.push_back(json::array({"Acc.time, ms", fmt::format("{:.3f}", res.access_read_ms),
                                fmt::format("{:.3f}", res.access_write_ms)}));
    rows.push_back(json::array({"Score", FmtInt(res.score_read), FmtInt(res.score_write)}));
    rows.push_back(json::array({"Total score", FmtInt(res.score_total), ""}));
    for (const auto& [name, v] : {std::pair<const char*, double>{"Read", res.score_read},
                                  {"Write", res.score_write},
                                  {"Total", res.score_total}}) {
      scores.push_back({{"drive", s.label}, {"score", name}, {"value", v}});
    }
    if (notes.empty() && !res.score_formula.empty())
      notes.push_back("Score: " + res.score_formula + ".");
    blocks.push_back(TableBlock(
        ctx.Id("as-ssd-table"), s.label + ": AS SSD-style results",
        json::array({"Test", "Read", "Write"}), rows,
        json::array({fmt::format("Acc.time: {} writes in the test file and 4 KiB reads "
                                 "over the whole target, one at a time.",
                                 SizeLabel(static_cast<double>(res.access_write_block_bytes)))})));
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
  using results::SurfaceResults;
  json blocks = json::array(), values = json::array(), rows = json::array(), cliffs = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Segments",
           [](const Series& s) {
             const SurfaceResults& r = s.Res<SurfaceResults>();
             return fmt::format(
                 "{} of {}, {} blocks at QD {:g}; write the whole surface, then read it",
                 r.points.size(), FmtBytes(static_cast<double>(r.segment_bytes)),
                 SizeLabel(static_cast<double>(r.block_bytes)), static_cast<double>(r.qd));
           }},
      }));
  for (const Series& s : g.series) {
    const SurfaceResults& res = s.Res<SurfaceResults>();
    double wmin = -1, rmin = -1;
    for (const results::SurfacePoint& p : res.points) {
      double w = p.write_mb_s, r = p.read_mb_s;
      wmin = wmin < 0 ? w : std::min(wmin, w);
      rmin = rmin < 0 ? r : std::min(rmin, r);
      for (const auto& [dir, v] : {std::pair<const char*, double>{"write", w}, {"read", r}}) {
        values.push_back(
            {{"drive", s.label},
             {"position_pct", R6(p.position_pct)},
             {"position_gb",
              R6(FullDriveOf(*s.run).Bytes(static_cast<double>(p.position_bytes)) / 1e9)},
             {"direction", dir},
             {"mb_s", R6(v)}});
      }
    }
    const results::SurfaceCliff& cliff = res.cliff;
    const FullDrive full = FullDriveOf(*s.run);
    if (cliff.found) {
      cliffs.push_back({{"drive", s.label},
                        {"position_pct", R6(cliff.position_pct)},
                        {"before_mb_s", R6(cliff.before_mb_s)},
                        {"after_mb_s", R6(cliff.after_mb_s)}});
    }
    rows.push_back(json::array(
        {s.label, fmt::format("{:.0f}", res.write_mean_mb_s),
         fmt::format("{:.0f}", std::max(0.0, wmin)), fmt::format("{:.0f}", res.read_mean_mb_s),
         fmt::format("{:.0f}", std::max(0.0, rmin)),
         cliff.found
             ? Cell(fmt::format("at {:.0f}% ({:.1f} GB): {:.0f} MB/s before, {:.0f} MB/s after",
                                cliff.position_pct,
                                full.Bytes(static_cast<double>(cliff.position_bytes)) / 1e9,
                                cliff.before_mb_s, cliff.after_mb_s),
                    "bad")
             : Cell("none", "muted")}));
  }
  if (values.empty()) return blocks;
  double ratio = g.series.front().Res<SurfaceResults>().cliff_ratio;
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

}  // namespace ssdlab::report::profiles
