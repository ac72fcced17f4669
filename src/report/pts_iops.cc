// The IOPS test's section: the IOPS of every block size and read/write mix (results/matrix.h).
#include <fmt/format.h>

#include <map>
#include <set>

#include "report/pts_sections.h"
#include "results/matrix.h"

namespace ssdlab::report::pts {

std::vector<ParamFact<results::MatrixResults>> MatrixFacts(const std::string& test) {
  using results::MatrixResults;
  return {
      {"Stimulus",
       [](const PtsOptions&, const MatrixResults& t) { return StimulusOf("random", t.cells); }},
      {"Block sizes",
       [test](const PtsOptions& o, const MatrixResults&) {
         return ListBytes(test == "iops" ? o.iops_block_bytes : o.lat_block_bytes);
       }},
      {"Read/write mixes",
       [test](const PtsOptions& o, const MatrixResults&) {
         return ListMixes(test == "iops" ? o.iops_mixes : o.lat_mixes);
       }},
  };
}

json IopsSection(Ctx& ctx, const std::string& name) {
  using results::MatrixResults;
  const auto runs = ReadResults<MatrixResults>(ctx, name, results::MatrixResultsFromJson);
  json blocks = json::array();
  std::vector<ParamFact<MatrixResults>> facts = MatrixFacts(name);
  facts.push_back({"Round", [](const PtsOptions& o, const MatrixResults&) {
                     return FullDriveOf(o).Duration(results::IopsCellNs(o)) + " per cell";
                   }});
  blocks.push_back(ParamsTable(ctx, name, runs, facts));
  json values = json::array();
  json tables = json::array();
  std::set<std::pair<uint64_t, std::string>> bss;
  std::set<double> all_mixes;
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    std::set<double> mixes;
    std::set<uint64_t> sizes;
    std::map<std::pair<double, uint64_t>, double> iops;
    for (const MatrixCell& c : MatrixCells(res->cells)) {
      mixes.insert(c.read_pct);
      sizes.insert(c.bs);
      const results::DirectionMetrics& total = c.cell->metrics.total;
      iops[{c.read_pct, c.bs}] = total.iops;
      values.push_back({{"drive", run->label},
                        {"block", BlockLabel(c.bs)},
                        {"block_bytes", c.bs},
                        {"mix", MixLabel(c.read_pct)},
                        {"read_pct", c.read_pct},
                        {"iops", R6(total.iops)},
                        {"mb_s", R6(total.bw_bytes_per_s / 1e6)}});
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
    tables.push_back(TableBlock(
        ctx.Id("iops-table"),
        fmt::format(
            "{}: IOPS by block size and read/write mix, average over the steady-state window ({})",
            run->label, VerdictText(Get(*test, "steady_state"))),
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
  return SteadySection(
      ctx, name, blocks, "IOPS",
      "Random access over the whole active range with every block size and read/write "
      "mix; each figure is the average over the steady-state window.");
}

}  // namespace ssdlab::report::pts
