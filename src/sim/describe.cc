// ListPresets and DescribeSim: the simulator's self-description for `ssdlab sim ...`.
#include <cstdio>

#include "sim/analytic.h"
#include "sim/params.h"
#include "sim/preset_file.h"
#include "sim/sim.h"

namespace ssdlab {
namespace {

std::string Num(double v, const char* fmt = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::vector<PresetInfo> ListPresets() {
  std::vector<PresetInfo> out;
  for (const sim::SimParams& p : sim::Presets()) {
    out.push_back(PresetInfo{p.preset, p.description, sim::ParamPairs(p), p.sources});
  }
  return out;
}

std::pair<std::string, std::string> SimParamDoc(const std::string& key) {
  return sim::ParamDoc(key);
}

Result<std::string> SimPresetToml(const std::string& target) {
  auto parsed = sim::ParseSimTarget(target);
  if (!parsed.ok()) return parsed.status();
  return sim::PresetToml(parsed.value());
}

Result<std::vector<SimFigure>> DescribeSim(const std::string& target) {
  auto parsed = sim::ParseSimTarget(target);
  if (!parsed.ok()) return parsed.status();
  const sim::SimParams& p = parsed.value();
  const sim::Geometry g = sim::DeriveGeometry(p);
  const sim::AnalyticFigures a = sim::Analyze(p, g);
  const double scale = p.scale;
  std::vector<SimFigure> rows;
  auto add = [&](std::string key, std::string value, std::string unit) {
    rows.push_back(SimFigure{std::move(key), std::move(value), std::move(unit)});
  };
  add("preset", p.preset, "");
  add("interface", sim::InterfaceName(p.interface), "");
  add("link_mb_s", Num(p.link_mb_s), "MB/s");
  add("dies", std::to_string(g.dies), "");
  add("block_bytes", std::to_string(uint64_t{g.pages_per_block} * sim::kUnitBytes), "bytes");
  add("pages_per_block", std::to_string(g.pages_per_block), "4 KiB pages");
  add("scale", std::to_string(p.scale), "x");
  add("user_bytes_full", Num(static_cast<double>(g.user_bytes()) * scale, "%.0f"), "bytes");
  add("raw_bytes_full", Num(static_cast<double>(g.physical_bytes()) * scale, "%.0f"), "bytes");
  add("user_bytes_simulated", std::to_string(g.user_bytes()), "bytes");
  add("raw_bytes_simulated", std::to_string(g.physical_bytes()), "bytes");
  add("blocks_simulated", std::to_string(g.blocks), "");
  add("blocks_per_die_simulated", Num(static_cast<double>(g.blocks) / g.dies), "");
  add("op", Num(g.op_pct()), "% of user");
  add("spare_factor", Num(100 * g.spare_factor()), "% of raw");
  add("free_blocks_reserved", std::to_string(g.low_free_blocks), "blocks");
  add("background_gc_target", std::to_string(g.bg_free_blocks), "blocks");
  add("gc", std::string(sim::PolicyName(p.gc)) + (p.gc_lazy ? " (lazy)" : ""), "");
  add("alpha_effective", Num(sim::EffectiveAlpha(g), "%.5g"), "physical/user");
  add("analytic_wa", Num(a.wa_steady), "");
  add("write_iops_4k_fresh", Num(a.write_iops_fresh, "%.0f"), "IOPS");
  add("write_iops_4k_steady", Num(a.write_iops_steady, "%.0f"), "IOPS");
  add("write_steady_bound", a.write_bound_steady, "");
  add("read_iops_4k", Num(a.read_iops, "%.0f"), "IOPS");
  add("seq_write_128k", Num(a.seq_write_mb_s, "%.0f"), "MB/s");
  add("seq_read_128k", Num(a.seq_read_mb_s, "%.0f"), "MB/s");
  add("nand_program_bandwidth", Num(a.nand_program_mb_s, "%.0f"), "MB/s");
  add("slc_cache_static_simulated", std::to_string(g.slc_static_pages * sim::kUnitBytes), "bytes");
  add("slc_dynamic", Num(p.slc_dynamic_pct), "% of unused user space");
  add("model_memory", std::to_string(g.memory_bytes), "bytes");
  return rows;
}

}  // namespace ssdlab
