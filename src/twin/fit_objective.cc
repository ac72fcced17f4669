// The fit's objective and its prior towards the base (twin/fit_internal.h): the drive at a
// normalised point, the figures' losses, and the bias correction's factors.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "twin/fit_internal.h"

namespace ssdlab::twin::fit_internal {
namespace {

// A figure off by more than a factor e counts as if off by e: a few cells the model cannot
// reproduce (a stall or not in a short window) must not outweigh all the others.
constexpr double kMaxLoss = 1.0;
// The bias correction's factors (FitOptions::base_exact) are clamped to this range.
constexpr double kMinCorrection = 0.25, kMaxCorrection = 4.0;
// The soft-L1 loss's scale: quadratic in log-ratios well below it, linear above.
constexpr double kSoftL1Scale = 0.05;

double BaseValue(const sim::SimParams& p, const std::string& key) {
  return std::strtod(sim::FindParam(key)->get(p).c_str(), nullptr);
}

// The GC policy keys of p other than the base's: gc, gc_lazy, and gc_yield when p is lazy (a
// yield without lazy GC is the same drive).
int PolicyKeysChanged(const sim::SimParams& p, const sim::SimParams& base) {
  return (p.gc != base.gc) + (p.gc_lazy != base.gc_lazy) +
         (p.gc_lazy && p.gc_yield != base.gc_yield);
}

// The per-KiB controller times: 0 in a base (no cost beyond the first 4 KiB) is a value the fit
// can move from (ValueAt).
bool IsPerKibTime(const std::string& key) {
  return key == "ctrl_read_kib_us" || key == "ctrl_write_kib_us";
}

// A number key's value at normalised coordinate u in [-1, 1]: base x max_factor^u, but above the
// base link_mb_s reaches the interface's line rate (if lower) at u = 1 (a SATA link above
// 600 MB/s is no SATA drive; a scale, not a clamp, so that no stretch of u is flat); a per-KiB
// controller time 0 in the base: 0 for u <= 0, else (max_factor^u - 1) x the link's time per
// KiB (at most (max_factor - 1) x it: twice the link's time with the default factor 3).
double ValueAt(const sim::SimParams& base, const std::string& key, double u, double max_factor) {
  const double b = BaseValue(base, key);
  const double line = sim::LineRateMbS(base.interface);
  if (key == "link_mb_s" && u > 0 && line > 0)
    return b * std::pow(std::clamp(line / b, 1.0, max_factor), u);
  if (b > 0 || !IsPerKibTime(key)) return b * std::pow(max_factor, u);
  return u > 0 ? (std::pow(max_factor, u) - 1) * 1024.0 / base.link_mb_s : 0.0;
}

// Sets a number key, rounding for keys that take whole numbers.
Status SetNumber(sim::SimParams& p, const std::string& key, double v) {
  const sim::ParamDef* d = sim::FindParam(key);
  Status st = d->set(p, Format(v));
  if (!st.ok()) st = d->set(p, std::to_string(std::llround(v)));
  return st;
}

double LogRatio(double sim, double meas) {
  if (!(sim > 0) || !(meas > 0)) return std::log(100.0);
  return std::log(sim / meas);
}

// A figure's loss at log-ratio lr (FitOptions::Loss), capped at kMaxLoss.
double FigureLoss(double lr, FitOptions::Loss loss) {
  const double a = std::fabs(lr);
  switch (loss) {
    case FitOptions::Loss::kSquared:
      return std::min(lr * lr, kMaxLoss);
    case FitOptions::Loss::kAbsolute:
      return std::min(a, kMaxLoss);
    case FitOptions::Loss::kSoftL1:
      return std::min(kSoftL1Scale * (std::sqrt(1 + (a / kSoftL1Scale) * (a / kSoftL1Scale)) - 1),
                      kMaxLoss);
  }
  return kMaxLoss;
}

}  // namespace

std::string Format(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

bool IsCategorical(const std::string& key) {
  return key == "gc" || key == "gc_lazy" || key == "gc_yield";
}

// The drive's GC policies (gc, gc_lazy, gc_yield), as one string.
std::string PolicyOf(const sim::SimParams& p) {
  std::string s;
  for (const char* k : {"gc", "gc_lazy", "gc_yield"}) s += sim::FindParam(k)->get(p) + ";";
  return s;
}

// The prior's term for the policy of p: each key changed weighs as one of the n number keys at
// the end of its range.
double PolicyPrior(const sim::SimParams& p, const sim::SimParams& base, double weight, size_t n) {
  return weight * PolicyKeysChanged(p, base) / static_cast<double>(std::max<size_t>(n, 1));
}

// A key the fit can move from the base's value (a 0 has no log scale, but for ValueAt's).
bool Fittable(const sim::SimParams& base, const std::string& key) {
  return IsCategorical(key) || BaseValue(base, key) > 0 || IsPerKibTime(key);
}

// A figure's cell: its name without the metric.
std::string CellOf(const Figure& f) {
  Figure c = f;
  c.metric.clear();
  return c.Name();
}

// The objective: the mean over tests of the mean capped loss of their figures.
double Score(const std::vector<Figure>& figs, const std::vector<double>& sim,
             FitOptions::Loss loss) {
  std::map<std::string, std::pair<double, int>> per_test;
  for (size_t i = 0; i < figs.size(); ++i) {
    const double lr = LogRatio(sim[i], figs[i].value);
    auto& t = per_test[figs[i].test];
    t.first += FigureLoss(lr, loss);
    t.second += 1;
  }
  double sum = 0;
  for (const auto& [test, v] : per_test) sum += v.first / v.second;
  return per_test.empty() ? 0 : sum / static_cast<double>(per_test.size());
}

Result<sim::SimParams> Problem::At(const std::vector<double>& u, const sim::SimParams& cat) const {
  sim::SimParams p = cat;
  for (size_t i = 0; i < keys_.size(); ++i) {
    SSDLAB_RETURN_IF_ERROR(SetNumber(p, keys_[i], ValueAt(base_, keys_[i], u[i], o_.max_factor)));
  }
  SSDLAB_RETURN_IF_ERROR(sim::ValidateParams(p));
  return p;
}

double Problem::Prior(const std::vector<double>& u) const {
  double prior = 0;
  for (double x : u) prior += x * x;
  return u.empty() ? 0 : prior_weight_ * prior / static_cast<double>(u.size());
}

double Problem::Total(const sim::SimParams& p, const std::vector<double>& u,
                      std::vector<double>* residuals) {
  const std::vector<double>* values = Values(p);
  const double raw = values ? Score(train_, *values, o_.loss) : kFailedObjective;
  if (raw < best_) best_ = raw;
  if (o_.progress && !stopped_) o_.progress(evals_, budget_, best_);
  const double total = raw + Prior(u) + PolicyPrior(p, base_, prior_weight_, u.size());
  if (total < best_total_) {
    best_total_ = total;
    best_raw_ = raw;
    best_params_ = p;
    best_u_ = u;
  }
  if (residuals) *residuals = values ? ResidualsOf(*values, u) : std::vector<double>{};
  return total;
}

std::vector<double> Problem::ResidualsOf(const std::vector<double>& sim,
                                         const std::vector<double>& u) const {
  std::map<std::string, int> per_test;
  for (const Figure& f : train_) per_test[f.test] += 1;
  std::vector<double> r;
  r.reserve(train_.size() + u.size());
  for (size_t i = 0; i < train_.size(); ++i) {
    const double lr = LogRatio(sim[i], train_[i].value);
    const double loss = FigureLoss(lr, o_.loss);
    const double weight = 1.0 / (static_cast<double>(per_test.size()) * per_test[train_[i].test]);
    r.push_back(std::copysign(std::sqrt(weight * loss), lr));
  }
  for (double x : u) r.push_back(std::sqrt(prior_weight_ / static_cast<double>(u.size())) * x);
  return r;
}

const std::vector<double>* Problem::Values(const sim::SimParams& p) {
  if (o_.stop && o_.stop->load()) {  // interrupted: no budget left for any step
    Halt();
    return nullptr;
  }
  ++evals_;
  const std::string key = TargetOf(p);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    auto values = SimulateFigures(p, train_, shape_, o_.sim);
    std::vector<double> v;
    if (values.ok()) {
      v = std::move(values.value());
      const std::vector<double>& f =
          other_factor_ && p.gc_lazy != factor_lazy_ ? *other_factor_ : factor_;
      for (size_t i = 0; i < f.size(); ++i) v[i] *= f[i];
    }
    it = cache_.emplace(key, std::move(v)).first;
  }
  return it->second.empty() ? nullptr : &it->second;
}

void Problem::Halt() {
  if (!stopped_) evals_at_stop_ = evals_;
  stopped_ = true;
  evals_ = std::max(evals_, budget_);
}

// Per figure, exact / cheap at the base clamped to kMinCorrection .. kMaxCorrection (1 where either
// is unknown or not positive); multiplies `cheap` by them.
std::vector<double> CorrectionFactors(const std::vector<double>& exact,
                                      std::vector<double>* cheap) {
  std::vector<double> f(cheap->size(), 1.0);
  for (size_t i = 0; i < f.size() && i < exact.size(); ++i) {
    if (exact[i] > 0 && (*cheap)[i] > 0)
      f[i] = std::clamp(exact[i] / (*cheap)[i], kMinCorrection, kMaxCorrection);
    (*cheap)[i] *= f[i];
  }
  return f;
}

}  // namespace ssdlab::twin::fit_internal
