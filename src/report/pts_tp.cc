// The TP test's section: sequential read and write throughput per block size (results/tp.h).
#include <fmt/format.h>

#include <map>
#include <set>

#include "report/pts_sections.h"
#include "results/tp.h"

namespace ssdlab::report::pts {

// The rows of the section's parameter table.
static std::vector<ParamFact<results::TpResults>> TpFacts() {
  return {
      {"Stimulus",
       [](const PtsOptions&, const results::TpResults& t) {
         return StimulusOf("sequential", t.by_block.empty() ? std::vector<results::CellResult>{}
                                                            : t.by_block.front().cells);
       }},
      {"Block sizes",
       [](const PtsOptions& o, const results::TpResults&) { return ListBytes(o.tp_block_bytes); }},
  };
}

json TpSection(Ctx& ctx, const std::string& name) {
  auto [runs, blocks] = OpenSection(ctx, name, results::TpResultsFromJson, TpFacts());
  json values = json::array();
  std::set<std::pair<uint64_t, std::string>> bss;
  std::map<std::pair<uint64_t, std::string>, std::vector<std::string>>
      cells;  // (bs, dir) -> per run
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    const size_t i = static_cast<size_t>(run - ctx.runs.data());  // the run's column
    for (const results::TpBlock& b : res->by_block) {
      const uint64_t bs = b.block_bytes;
      for (const MatrixCell& c : MatrixCells(b.cells)) {
        std::string dir = c.read_pct >= 100 ? "Read"
                          : c.read_pct <= 0 ? "Write"
                                            : MixLabel(c.read_pct);
        double bw = c.cell->metrics.total.bw_bytes_per_s;
        values.push_back({{"drive", run->label},
                          {"block", BlockLabel(bs)},
                          {"direction", dir},
                          {"rate", R6(ctx.Rate(bw))}});
        bss.insert({bs, BlockLabel(bs)});
        auto& v = cells[{bs, dir}];
        v.resize(ctx.runs.size(), "-");
        v[i] = fmt::format("{:.1f} {}", ctx.Rate(bw), ctx.RateUnit());
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
                      Q("rate", ctx.RateUnit()), N("direction", "Direction"), ctx, "direction",
                      false, ctx.multi ? 260 : 220);
  blocks.push_back(ChartBlock(ctx.Id("tp-bars"), "Throughput by block size, read and write", spec));
  return SteadySection(
      ctx, name, blocks, "throughput",
      "Sequential read and write, each block size after its own purge and preconditioning.");
}

}  // namespace ssdlab::report::pts
