// The LAT test's section: latency at 1 thread, QD 1 of every block size and mix
// (results/matrix.h).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/pts_sections.h"
#include "results/matrix.h"

namespace ssdlab::report::pts {

namespace {

// The direction a cell's latency is read from: its only one, or both for a mix.
const results::LatencySummaryNs& LatOf(const MatrixCell& c) {
  const results::PhaseMetrics& m = c.cell->metrics;
  return (c.read_pct >= 100 ? m.read : c.read_pct <= 0 ? m.write : m.total).lat_ns;
}

}  // namespace

json LatSection(Ctx& ctx, const std::string& name) {
  using results::MatrixResults;
  const auto runs = ReadResults<MatrixResults>(ctx, name, results::MatrixResultsFromJson);
  json blocks = json::array();
  blocks.push_back(ParamsTable(ctx, name, runs, MatrixFacts(name)));
  json values = json::array();
  const std::vector<std::pair<std::string, std::string>> stats = {{"mean", "Mean"},
                                                                  {"p99", "99%"},
                                                                  {"p99_9", "99.9%"},
                                                                  {"p99_99", "99.99%"},
                                                                  {"max", "Maximum"}};
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    const std::vector<MatrixCell> cells = MatrixCells(res->cells);
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
    auto stat_of = [&](double m, uint64_t bs, const std::string& key) -> std::optional<double> {
      for (const MatrixCell& c : cells) {
        if (c.read_pct == m && c.bs == bs) return LatOf(c).Stat(key);
      }
      return std::nullopt;
    };
    json cols = json::array({"Latency, µs"});
    for (uint64_t bs : sizes) cols.push_back(BlockLabel(bs));
    json rows = json::array();
    for (const auto& [key, title] : stats) {
      rows.push_back(GroupRow(title));
      for (double m : mixes) {
        json rw = json::array({MixName(m)});
        for (uint64_t bs : sizes) {
          const std::optional<double> v = stat_of(m, bs, key);
          rw.push_back(v ? FmtUs(*v) : "-");
        }
        rows.push_back(rw);
      }
    }
    blocks.push_back(
        TableBlock(ctx.Id("lat-table"),
                   fmt::format("{}: latency in microseconds at 1 thread, QD 1 (mean and "
                               "percentiles of every I/O in the steady-state window)",
                               run->label),
                   cols, rows));
    for (const MatrixCell& c : cells) {
      int order = 0;
      for (const auto& [key, title] : stats) {
        const std::optional<double> v = LatOf(c).Stat(key);
        if (!v) continue;
        values.push_back({{"drive", run->label},
                          {"cell", BlockLabel(c.bs) + " " + MixName(c.read_pct)},
                          {"stat", title},
                          {"order", order++},
                          {"us", R6(*v / 1000)}});
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
  return SteadySection(
      ctx, name, blocks, "latency",
      "Response time at the minimum load (1 thread, queue depth 1), as in the DC400 "
      "review's table.");
}

}  // namespace ssdlab::report::pts
