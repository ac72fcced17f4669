#include "workload/generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ssdlab {
namespace {

constexpr double kTwo32 = 4294967296.0;

double Helper1(double x) {  // log1p(x) / x
  return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}
double Helper2(double x) {  // expm1(x) / x
  return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3.0 * (1 + 0.25 * x));
}

uint64_t ScaleToThreshold(double fraction) {
  return static_cast<uint64_t>(std::llround(std::clamp(fraction, 0.0, 1.0) * kTwo32));
}

}  // namespace

ZipfSampler::ZipfSampler(uint64_t n, double s) : n_(std::max<uint64_t>(n, 1)), s_(s) {
  if (s_ <= 0 || s_ == 1.0) s_ = 1.0 + 1e-9;  // placeholder when unused; parse rejects these
  h_integral_x1_ = H(1.5) - 1;
  h_integral_n_ = H(static_cast<double>(n_) + 0.5);
  threshold_ = 2 - HInverse(H(2.5) - h(2));
}

double ZipfSampler::h(double x) const { return std::exp(-s_ * std::log(x)); }
double ZipfSampler::H(double x) const {
  double lx = std::log(x);
  return Helper2((1 - s_) * lx) * lx;
}
double ZipfSampler::HInverse(double x) const {
  double t = std::max(-1.0, x * (1 - s_));
  return std::exp(Helper1(t) * x);
}

uint64_t ZipfSampler::Sample(Rng& rng) const {
  for (;;) {
    double u = h_integral_n_ + rng.Uniform() * (h_integral_x1_ - h_integral_n_);
    double x = HInverse(u);
    double kd = std::floor(x + 0.5);
    if (kd < 1) kd = 1;
    if (kd > static_cast<double>(n_)) kd = static_cast<double>(n_);
    if (kd - x <= threshold_ || u >= H(kd + 0.5) - h(kd)) return static_cast<uint64_t>(kd);
  }
}

OffsetDistribution::OffsetDistribution(const Distribution& dist, uint64_t units)
    : dist_(dist),
      units_(std::max<uint64_t>(units, 1)),
      zipf_(units_, dist.kind == DistKind::kZipf ? dist.param : 2.0) {
  // A multiplier coprime to units_ makes rank -> rank * m mod units a permutation.
  multiplier_ = 0x9e3779b97f4a7c15ULL % units_;
  if (multiplier_ == 0) multiplier_ = 1;
  while (std::gcd(multiplier_, units_) != 1) multiplier_ = (multiplier_ + 1) % units_;
  if (dist.kind == DistKind::kPareto) pareto_pow_ = std::log(dist.param) / std::log(1 - dist.param);
  if (dist.kind == DistKind::kZoned) {
    double access = 0, range = 0;
    zone_begin_.push_back(0);
    for (const Zone& z : dist.zones) {
      access += z.access_pct / 100.0;
      range += z.range_pct / 100.0;
      zone_access_threshold_.push_back(ScaleToThreshold(access));
      uint64_t end = static_cast<uint64_t>(std::floor(range * static_cast<double>(units_)));
      end = std::clamp<uint64_t>(end, zone_begin_.back() + 1, units_);
      zone_begin_.push_back(end);
    }
    zone_access_threshold_.back() = UINT64_MAX;
    zone_begin_.back() = units_;
  }
}

uint64_t OffsetDistribution::Scatter(uint64_t rank) const {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rank) * multiplier_) % units_);
}

uint64_t OffsetDistribution::Pick(Rng& rng) const {
  switch (dist_.kind) {
    case DistKind::kUniform:
      return rng.Below(units_);
    case DistKind::kZipf:
      return Scatter(zipf_.Sample(rng) - 1);
    case DistKind::kPareto: {
      // Share h of the I/Os goes to the hottest share (1 - h) of the units (fio's pareto:h).
      double x = std::pow(rng.Uniform(), pareto_pow_);
      uint64_t rank = static_cast<uint64_t>((1.0 - x) * static_cast<double>(units_));
      return Scatter(std::min(rank, units_ - 1));
    }
    case DistKind::kZoned: {
      uint64_t r = rng.Next() >> 32;
      size_t z = 0;
      while (r >= zone_access_threshold_[z]) ++z;
      uint64_t begin = zone_begin_[z];
      return begin + rng.Below(zone_begin_[z + 1] - begin);
    }
  }
  return 0;
}

JobGenerator::JobGenerator(const WorkloadSpec& spec, uint32_t job)
    : spec_(spec),
      rng_(Mix64(spec.seed * 0x100000001b3ULL + job)),
      data_seed_(Mix64(spec.seed ^ (0xda7aULL << 32) ^ job)),
      dist_(spec.dist, (spec.range_end_bytes - spec.range_begin_bytes) / spec.MinBlockBytes()),
      unit_bytes_(spec.MinBlockBytes()) {
  double cum = 0;
  for (const auto& b : spec.block_sizes) {
    cum += b.pct / 100.0;
    bs_threshold_.push_back(ScaleToThreshold(cum));
  }
  bs_threshold_.back() = UINT64_MAX;
  read_threshold_ = ScaleToThreshold(spec.read_pct / 100.0);
  // Sequential jobs start at evenly spaced points of the range, aligned to the largest block.
  uint64_t range = spec.range_end_bytes - spec.range_begin_bytes;
  uint64_t max_bs = spec.MaxBlockBytes();
  uint64_t start = range / spec.jobs * job;
  seq_pos_ = spec.range_begin_bytes + start / max_bs * max_bs;
  uniform_one_size_ = spec.pattern == Pattern::kRandom && spec.dist.kind == DistKind::kUniform &&
                      spec.block_sizes.size() == 1;
  non_read_dir_ = spec.trim ? Direction::kTrim : Direction::kWrite;
  one_dir_ = read_threshold_ == 0 || read_threshold_ >= static_cast<uint64_t>(kTwo32);
  dir_ = read_threshold_ == 0 ? non_read_dir_ : Direction::kRead;
  range_begin_bytes_ = spec.range_begin_bytes;
  units_ = std::max<uint64_t>(range / unit_bytes_, 1);
}

void JobGenerator::Fill(IoRequest* out, size_t n) {
  if (!uniform_one_size_) {
    for (size_t i = 0; i < n; ++i) out[i] = NextGeneral();
    return;
  }
  // Next()'s fast path with the generator's state in locals.
  Rng rng = rng_;
  const uint64_t read_threshold = read_threshold_, begin = range_begin_bytes_, units = units_;
  const uint64_t unit = unit_bytes_;
  const Direction non_read = non_read_dir_, dir = dir_;
  if (one_dir_) {
    for (size_t i = 0; i < n; ++i) {
      out[i].dir = dir;
      out[i].bytes = static_cast<uint32_t>(unit);
      out[i].offset = begin + rng.Below(units) * unit;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t r = rng.Next();
      out[i].dir = (r & 0xffffffffULL) < read_threshold ? Direction::kRead : non_read;
      out[i].bytes = static_cast<uint32_t>(unit);
      out[i].offset = begin + rng.Below(units) * unit;
    }
  }
  rng_ = rng;
}

IoRequest JobGenerator::NextGeneral() {
  IoRequest req;
  // One draw decides direction and block size; none is needed when neither varies (0 decides
  // both the one way).
  const uint64_t r = one_dir_ && bs_threshold_[0] > 0xffffffffULL ? 0 : rng_.Next();
  uint64_t dir_draw = r & 0xffffffffULL;
  if (dir_draw < read_threshold_) {
    req.dir = Direction::kRead;
  } else {
    req.dir = spec_.trim ? Direction::kTrim : Direction::kWrite;
  }
  uint64_t bs_draw = r >> 32;
  size_t i = 0;
  while (bs_draw >= bs_threshold_[i]) ++i;
  uint64_t bs = spec_.block_sizes[i].bytes;
  req.bytes = static_cast<uint32_t>(bs);

  const uint64_t begin = spec_.range_begin_bytes;
  const uint64_t end = spec_.range_end_bytes;
  if (spec_.pattern == Pattern::kSequential) {
    if (seq_pos_ + bs > end) seq_pos_ = begin;
    req.offset = seq_pos_;
    seq_pos_ += bs;
  } else {
    uint64_t rel = dist_.Pick(rng_) * unit_bytes_;
    if (bs != unit_bytes_) {  // a multiple of the unit: align down to its own size
      rel = rel / bs * bs;
      if (begin + rel + bs > end) rel = (end - begin - bs) / bs * bs;
    }
    req.offset = begin + rel;
  }
  return req;
}

}  // namespace ssdlab
