#include "sim/analytic.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ssdlab::sim {

double LambertW0(double x) {
  const double kInvE = 0.36787944117144233;
  assert(x >= -kInvE - 1e-12);
  if (x <= -kInvE) return -1.0;
  // Initial guess: series around the branch point, or log-based for larger x.
  double w;
  if (x < -0.25) {
    const double p = std::sqrt(2.0 * (std::exp(1.0) * x + 1.0));
    w = -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p;
  } else if (x < 3) {
    w = x * (1 - x);  // close enough near 0; Halley converges fast
    if (x > 0.5) w = std::log1p(x) * 0.75;
  } else {
    const double l = std::log(x);
    w = l - std::log(l);
  }
  // Halley's iteration.
  for (int i = 0; i < 50; ++i) {
    const double e = std::exp(w);
    const double f = w * e - x;
    const double wp1 = w + 1;
    if (std::fabs(wp1) < 1e-300) break;
    const double denom = e * wp1 - (w + 2) * f / (2 * wp1);
    const double dw = f / denom;
    w -= dw;
    if (std::fabs(dw) <= 1e-15 * (1 + std::fabs(w))) break;
  }
  return w;
}

double GreedyWriteAmplification(double alpha) {
  assert(alpha > 1);
  return alpha / (alpha + LambertW0(-alpha * std::exp(-alpha)));
}

double EffectiveAlpha(const Geometry& g, double live_fraction) {
  // The blocks out of the collected population: the free pool below the foreground watermark
  // and the unwritten halves of the host and GC frontiers (sim::ReserveBlocks).
  const double reserve_blocks = ReserveBlocks(g.low_free_blocks);
  const double physical =
      static_cast<double>(g.physical_pages) - reserve_blocks * g.pages_per_block;
  return physical / (static_cast<double>(g.user_pages) * live_fraction);
}

namespace {

struct Bound {
  double iops;
  const char* name;
};

Bound Min(std::initializer_list<Bound> bounds) {
  Bound best{1e300, ""};
  for (const Bound& b : bounds) {
    if (b.iops < best.iops) best = b;
  }
  return best;
}

}  // namespace

AnalyticFigures Analyze(const SimParams& p, const Geometry& g) {
  AnalyticFigures f;
  const double unit = kUnitBytes;
  const double dies = g.dies;
  const double link_bps = p.link_mb_s * 1e6;
  const double ch_bps = p.ch_mb_s * 1e6 * p.channels;
  const double t_prog_s = p.t_prog_us * 1e-6;
  const double t_read_s = p.t_read_us * 1e-6;
  const double t_erase_s = p.t_erase_us * 1e-6;
  f.wa_steady = GreedyWriteAmplification(EffectiveAlpha(g));
  f.nand_program_mb_s = dies * g.units_per_prog * unit / t_prog_s / 1e6;

  auto write_bound = [&](double wa) {
    const double copies = wa - 1;
    const double u = 1 - 1 / wa;  // victim utilisation: WA = 1 / (1 - u)
    const double upg = g.units_per_page;
    const double reads_per_copy = u > 0 ? (1 - std::pow(1 - u, upg)) / (upg * u) : 0;
    const double die_s = wa * t_prog_s / g.units_per_prog + copies * reads_per_copy * t_read_s +
                         wa / g.pages_per_block * t_erase_s;
    const double ctrl_s = (p.ctrl_write_us + copies * p.ctrl_gc_us) * 1e-6;
    return Min({{link_bps / unit, "host link"},
                {ctrl_s > 0 ? 1 / ctrl_s : 1e300, "controller"},
                {dies / die_s, "NAND dies"},
                {ch_bps / (unit * (wa + copies)), "NAND channels"}});
  };
  f.write_iops_fresh = write_bound(1.0).iops;
  Bound steady = write_bound(f.wa_steady);
  f.write_iops_steady = steady.iops;
  f.write_bound_steady = steady.name;
  f.read_iops = Min({{link_bps / unit, ""},
                     {p.ctrl_read_us > 0 ? 1e6 / p.ctrl_read_us : 1e300, ""},
                     {t_read_s > 0 ? dies / t_read_s : 1e300, ""},
                     {ch_bps / unit, ""}})
                    .iops;
  const double seq_units = 32;  // 128 KiB
  const double seq_bytes = seq_units * unit;
  // Controller time per command: the 4 KiB command's plus the per-KiB part of the rest
  // (sim/params.h); sequential reads served by read-ahead skip the per-KiB part.
  const double extra_kib = (seq_units - 1) * unit / 1024;
  const double ctrl_w =
      (p.ctrl_write_us + extra_kib * (p.ctrl_unit_us / 4 + p.ctrl_write_kib_us)) * 1e-6;
  const double ctrl_r =
      (p.ctrl_read_us +
       (p.read_ahead_bytes > 0 ? 0 : extra_kib * (p.ctrl_unit_us / 4 + p.ctrl_read_kib_us))) *
      1e-6;
  f.seq_write_mb_s = std::min({link_bps, ctrl_w > 0 ? seq_bytes / ctrl_w : 1e300,
                               f.nand_program_mb_s * 1e6, ch_bps}) /
                     1e6;
  f.seq_read_mb_s =
      std::min({link_bps, ctrl_r > 0 ? seq_bytes / ctrl_r : 1e300,
                t_read_s > 0 ? dies * g.units_per_prog * unit / t_read_s : 1e300, ch_bps}) /
      1e6;
  return f;
}

}  // namespace ssdlab::sim
