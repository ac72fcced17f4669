#include "workload/parse.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "base/strings.h"
#include "base/units.h"

namespace ssdlab {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A size or a percentage of `whole`.
Result<uint64_t> ParsePosition(const std::string& text, uint64_t whole) {
  if (EndsWith(text, "%")) {
    auto pct = ParsePercent(text);
    if (!pct.ok()) return pct.status();
    return static_cast<uint64_t>(std::llround(pct.value() / 100.0 * static_cast<double>(whole)));
  }
  return ParseBytes(text);
}

}  // namespace

const char* DirectionName(Direction d) {
  switch (d) {
    case Direction::kRead:
      return "read";
    case Direction::kWrite:
      return "write";
    case Direction::kTrim:
      return "trim";
  }
  return "?";
}

uint64_t WorkloadSpec::MinBlockBytes() const {
  uint64_t m = UINT64_MAX;
  for (const auto& b : block_sizes) m = std::min(m, b.bytes);
  return m;
}

uint64_t WorkloadSpec::MaxBlockBytes() const {
  uint64_t m = 0;
  for (const auto& b : block_sizes) m = std::max(m, b.bytes);
  return m;
}

WorkloadSpec PrefillOf(const WorkloadSpec& spec) {
  WorkloadSpec fill = spec;
  const uint64_t span = spec.range_end_bytes - spec.range_begin_bytes;
  const uint64_t unit = std::min<uint64_t>(4096, spec.MinBlockBytes());
  // The largest block up to 1 MiB that divides the range: a sequential pass then ends exactly
  // at the range's end.
  const uint64_t bs =
      unit * std::gcd(std::max<uint64_t>(span / unit, 1), (uint64_t{1} << 20) / unit);
  fill.pattern = Pattern::kSequential;
  fill.source = nullptr;  // a fill is generated, never taken from a trace
  fill.read_pct = 0;
  fill.trim = false;
  fill.block_sizes = {BlockShare{bs, 100}};
  fill.verify_unit_bytes = unit;
  fill.queue_depth = 16;
  fill.jobs = 1;
  fill.runtime_ns = 0;
  fill.io_bytes = span;
  fill.ramp_ns = fill.ramp_bytes = 0;
  fill.rate_iops = 0;
  fill.interval_ns = 0;
  return fill;
}

Result<std::vector<BlockShare>> ParseBlockSizes(const std::string& text) {
  std::vector<BlockShare> out;
  auto parts = Split(text, ',');
  for (const auto& part : parts) {
    auto kv = Split(part, ':');
    if (kv.size() > 2) return Status::Invalid("--bs: malformed entry '" + part + "'");
    auto bytes = ParseBytes(kv[0]);
    if (!bytes.ok()) return bytes.status().WithContext("--bs");
    if (bytes.value() == 0) return Status::Invalid("--bs: block size must be positive");
    if (bytes.value() > 256 * kMiB) return Status::Invalid("--bs: block size above 256 MiB");
    double pct = 100;
    if (kv.size() == 2) {
      auto p = ParsePercent(kv[1]);
      if (!p.ok()) return p.status().WithContext("--bs '" + part + "'");
      pct = p.value();
    } else if (parts.size() > 1) {
      return Status::Invalid("--bs: entry '" + part + "' of a mix needs a share, e.g. 4KiB:67");
    }
    out.push_back({bytes.value(), pct});
  }
  double total = 0;
  for (const auto& b : out) total += b.pct;
  if (std::fabs(total - 100) > 0.01) {
    return Status::Invalid("--bs: shares add up to " + std::to_string(total) + "%, not 100%");
  }
  return out;
}

namespace {

// The distributions: name, its parameter's syntax and an example value (none for uniform).
struct DistDef {
  DistKind kind;
  const char* name;
  const char* syntax;
  const char* example;
};
constexpr DistDef kDists[] = {{DistKind::kUniform, "uniform", "", ""},
                              {DistKind::kZipf, "zipf", ":S", ":1.2"},
                              {DistKind::kPareto, "pareto", ":H", ":0.9"},
                              {DistKind::kZoned, "zoned", ":A/R:...", ":50/5:50/95"}};

const DistDef& DistDefOf(DistKind k) {
  for (const DistDef& d : kDists)
    if (d.kind == k) return d;
  return kDists[0];
}

}  // namespace

const char* DistKindName(DistKind k) { return DistDefOf(k).name; }

bool DistKindFromName(std::string_view name, DistKind* out) {
  if (name == "random") name = DistDefOf(DistKind::kUniform).name;
  for (const DistDef& d : kDists) {
    if (name == d.name) {
      *out = d.kind;
      return true;
    }
  }
  return false;
}

std::string DistSyntaxes(const std::string& sep) {
  std::string out;
  for (const DistDef& d : kDists) out += (out.empty() ? "" : sep) + d.name + d.syntax;
  return out;
}

Result<Distribution> ParseDistribution(const std::string& text) {
  Distribution d;
  auto colon = text.find(':');
  std::string kind = text.substr(0, colon);
  std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (!DistKindFromName(kind, &d.kind)) {
    return Status::Invalid("--dist: unknown distribution '" + kind + "' (" + DistSyntaxes(", ") +
                           ")");
  }
  const std::string name = DistKindName(d.kind);
  if (d.kind == DistKind::kUniform) {
    if (!arg.empty()) return Status::Invalid("--dist " + name + " takes no parameter");
    return d;
  }
  if (d.kind == DistKind::kZipf || d.kind == DistKind::kPareto) {
    auto v = ParseDouble(arg);
    if (!v.ok())
      return Status::Invalid("--dist " + name + ": needs a number, e.g. " + name +
                             DistDefOf(d.kind).example);
    d.param = v.value();
    if (d.kind == DistKind::kZipf) {
      if (!(d.param > 0) || std::fabs(d.param - 1.0) < 1e-9) {
        return Status::Invalid("--dist " + name + ": exponent must be > 0 and not 1");
      }
    } else {
      if (!(d.param > 0 && d.param < 1))
        return Status::Invalid("--dist " + name + ": h must lie in (0, 1)");
    }
    return d;
  }
  // zoned
  double access = 0, range = 0;
  for (const auto& z : Split(arg, ':')) {
    auto ar = Split(z, '/');
    if (ar.size() != 2)
      return Status::Invalid("--dist " + name + ": zone '" + z + "' is not ACCESS%/RANGE%");
    auto a = ParsePercent(ar[0]);
    auto r = ParsePercent(ar[1]);
    if (!a.ok() || !r.ok())
      return Status::Invalid("--dist " + name + ": zone '" + z + "' has a bad percentage");
    if (r.value() <= 0)
      return Status::Invalid("--dist " + name + ": zone '" + z + "' covers no range");
    d.zones.push_back({a.value(), r.value()});
    access += a.value();
    range += r.value();
  }
  if (std::fabs(access - 100) > 0.01 || std::fabs(range - 100) > 0.01) {
    return Status::Invalid("--dist " + name + ": access and range shares must each add up to 100");
  }
  return d;
}

Result<DataPattern> ParseDataPattern(const std::string& text) {
  DataPattern p;
  auto colon = text.find(':');
  std::string kind = text.substr(0, colon);
  std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "random" || kind == "zero") {
    if (!arg.empty()) return Status::Invalid("--data " + kind + " takes no parameter");
    p.kind = kind == "random" ? DataKind::kRandom : DataKind::kZero;
    return p;
  }
  if (kind == "compressible" || kind == "dedupe") {
    auto pct = ParsePercent(arg);
    if (!pct.ok()) return pct.status().WithContext("--data " + kind);
    p.kind = kind == "compressible" ? DataKind::kCompressible : DataKind::kDedupe;
    p.pct = pct.value();
    return p;
  }
  return Status::Invalid("--data: unknown pattern '" + kind +
                         "' (random, zero, compressible:N, dedupe:N)");
}

Result<uint64_t> ParseAmount(const std::string& text, uint64_t unit_bytes) {
  if (EndsWith(text, "x")) {
    auto m = ParseDouble(text.substr(0, text.size() - 1));
    if (!m.ok() || m.value() < 0)
      return Status::Invalid("'" + text + "' is not a multiple like 3x");
    return static_cast<uint64_t>(std::llround(m.value() * static_cast<double>(unit_bytes)));
  }
  return ParseBytes(text);
}

Result<std::pair<uint64_t, uint64_t>> ParseRange(const std::string& text, uint64_t target_bytes) {
  auto dash = text.find('-');
  if (dash == std::string::npos || dash == 0) {
    return Status::Invalid("--range '" + text + "' is not BEGIN-END, e.g. 0%-25%");
  }
  auto b = ParsePosition(text.substr(0, dash), target_bytes);
  auto e = ParsePosition(text.substr(dash + 1), target_bytes);
  if (!b.ok()) return b.status().WithContext("--range");
  if (!e.ok()) return e.status().WithContext("--range");
  if (b.value() >= e.value()) return Status::Invalid("--range '" + text + "' is empty");
  if (e.value() > target_bytes) {
    return Status::Invalid("--range '" + text + "' ends at byte " + std::to_string(e.value()) +
                           ", beyond the target's " + std::to_string(target_bytes) + " bytes");
  }
  return std::make_pair(b.value(), e.value());
}

Result<WorkloadSpec> ResolveWorkload(const WorkloadArgs& a, uint64_t target_bytes,
                                     uint32_t align_bytes) {
  WorkloadSpec s;
  const std::string& rw = a.rw;
  if (rw == "read" || rw == "randread") {
    s.read_pct = 100;
  } else if (rw == "write" || rw == "randwrite") {
    s.read_pct = 0;
  } else if (rw == "trim" || rw == "randtrim") {
    s.read_pct = 0;
    s.trim = true;
  } else if (rw == "rw" || rw == "randrw") {
    s.read_pct = 50;
  } else {
    return Status::Invalid("--rw: unknown workload '" + rw +
                           "' (read, write, randread, randwrite, rw, randrw, trim, randtrim)");
  }
  s.pattern = rw.rfind("rand", 0) == 0 ? Pattern::kRandom : Pattern::kSequential;
  if (!a.rwmix_read.empty()) {
    if (rw != "rw" && rw != "randrw")
      return Status::Invalid("--rwmix-read only applies to --rw rw or randrw");
    auto p = ParsePercent(a.rwmix_read);
    if (!p.ok()) return p.status().WithContext("--rwmix-read");
    s.read_pct = p.value();
  }

  auto bs = ParseBlockSizes(a.bs);
  if (!bs.ok()) return bs.status();
  s.block_sizes = bs.value();
  for (const auto& b : s.block_sizes) {
    if (align_bytes > 1 && b.bytes % align_bytes != 0) {
      return Status::Invalid(
          "--bs " + std::to_string(b.bytes) + " bytes is not a multiple of the target's " +
          std::to_string(align_bytes) + "-byte logical block (required by O_DIRECT)");
    }
  }
  if (s.trim && s.block_sizes.size() > 1)
    return Status::Invalid("--bs: trims take a single block size");

  if (a.qd == 0) return Status::Invalid("--qd must be at least 1");
  if (a.qd > 65536) return Status::Invalid("--qd must be at most 65536");
  if (a.jobs == 0) return Status::Invalid("--jobs must be at least 1");
  if (a.jobs > 4096) return Status::Invalid("--jobs must be at most 4096");
  s.queue_depth = a.qd;
  s.jobs = a.jobs;

  auto range = ParseRange(a.range, target_bytes);
  if (!range.ok()) return range.status();
  s.range_begin_bytes = range.value().first;
  s.range_end_bytes = range.value().second;
  if (align_bytes > 1 && a.range.find('%') != std::string::npos) {
    // Percentages land anywhere: round both ends down to the logical block.
    s.range_begin_bytes = s.range_begin_bytes / align_bytes * align_bytes;
    s.range_end_bytes = s.range_end_bytes / align_bytes * align_bytes;
    if (s.range_begin_bytes >= s.range_end_bytes)
      return Status::Invalid("--range '" + a.range + "' holds no whole " +
                             std::to_string(align_bytes) + "-byte block");
  }
  if (align_bytes > 1 && (s.range_begin_bytes % align_bytes || s.range_end_bytes % align_bytes)) {
    return Status::Invalid("--range '" + a.range + "' is not aligned to the target's " +
                           std::to_string(align_bytes) + "-byte logical block");
  }
  uint64_t range_bytes = s.range_end_bytes - s.range_begin_bytes;
  if (range_bytes < s.MaxBlockBytes()) {
    return Status::Invalid("--range '" + a.range + "' (" + std::to_string(range_bytes) +
                           " bytes) is smaller than the largest block size");
  }

  if (!a.runtime.empty()) {
    auto r = ParseDurationNs(a.runtime);
    if (!r.ok()) return r.status().WithContext("--runtime");
    s.runtime_ns = r.value();
    if (s.runtime_ns < kNsPerMs)
      return Status::Invalid("--runtime '" + a.runtime +
                             "' is shorter than 1ms: nothing could be measured");
  }
  if (!a.io_size.empty()) {
    auto r = ParseAmount(a.io_size, range_bytes);
    if (!r.ok()) return r.status().WithContext("--io-size");
    s.io_bytes = r.value();
    if (s.io_bytes == 0) return Status::Invalid("--io-size must be positive");
  }
  if (s.runtime_ns == 0 && s.io_bytes == 0) {
    if (s.pattern == Pattern::kSequential) {
      s.io_bytes = range_bytes;  // like fio: one pass over the range
    } else {
      s.runtime_ns = 10 * kNsPerS;
    }
  }
  if (!a.ramp.empty()) {
    auto dur = ParseDurationNs(a.ramp);
    if (dur.ok()) {
      s.ramp_ns = dur.value();
    } else {
      auto amt = ParseAmount(a.ramp, range_bytes);
      if (!amt.ok())
        return Status::Invalid("--ramp '" + a.ramp +
                               "' is neither a duration (2s) nor an amount (2x, 1GiB)");
      s.ramp_bytes = amt.value();
    }
  }

  auto dist = ParseDistribution(a.dist);
  if (!dist.ok()) return dist.status();
  s.dist = dist.value();
  if (s.dist.kind != DistKind::kUniform && s.pattern == Pattern::kSequential) {
    return Status::Invalid("--dist applies to random workloads only");
  }

  if (!a.rate_iops.empty()) {
    auto r = ParseDouble(a.rate_iops);
    if (!r.ok() || r.value() <= 0)
      return Status::Invalid("--rate-iops '" + a.rate_iops + "' is not a positive number");
    if (r.value() > kMaxRateIops)
      return Status::Invalid(
          "--rate-iops '" + a.rate_iops + "' is above " +
          std::to_string(static_cast<uint64_t>(kMaxRateIops)) +
          " (no device comes near it; a schedule that dense only measures the tool)");
    s.rate_iops = r.value();
  }
  auto data = ParseDataPattern(a.data);
  if (!data.ok()) return data.status();
  s.data = data.value();
  s.seed = a.seed;
  s.verify = a.verify;
  if (s.verify && s.trim) return Status::Invalid("--verify cannot check trims");
  if (s.verify && s.MinBlockBytes() < 512)
    return Status::Invalid("--verify needs blocks of at least 512 bytes");
  SSDLAB_ASSIGN_OR_RETURN(s.interval_ns, ParseIntervalNs(a.interval));
  return s;
}

Result<uint64_t> ParseIntervalNs(const std::string& text) {
  auto iv = ParseDurationNs(text);
  if (!iv.ok()) return iv.status().WithContext("--interval");
  if (iv.value() != 0 && iv.value() < kMinIntervalNs)
    return Status::Invalid("--interval " + text +
                           " is below 10ms (the finest time series; 0 for none)");
  return iv.value();
}

std::string DescribeWorkload(const WorkloadSpec& s) {
  std::ostringstream o;
  o << (s.pattern == Pattern::kRandom ? "rand" : "seq ");
  if (s.trim) {
    o << "trim";
  } else if (s.read_pct >= 100) {
    o << "read";
  } else if (s.read_pct <= 0) {
    o << "write";
  } else {
    o << "rw " << s.read_pct << "/" << 100 - s.read_pct;
  }
  o << " bs=";
  for (size_t i = 0; i < s.block_sizes.size(); ++i) {
    if (i) o << ",";
    o << FormatBytes(s.block_sizes[i].bytes);
    if (s.block_sizes.size() > 1) o << ":" << s.block_sizes[i].pct << "%";
  }
  o << " qd=" << s.queue_depth << " jobs=" << s.jobs;
  return o.str();
}

}  // namespace ssdlab
