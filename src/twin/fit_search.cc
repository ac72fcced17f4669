// The fit's local searches (twin/fit_internal.h): NLopt's Subplex and Levenberg-Marquardt.
#include <algorithm>
#include <cmath>
#include <exception>
#include <nlopt.hpp>

#include "twin/fit_internal.h"

namespace ssdlab::twin::fit_internal {
namespace {

// Levenberg-Marquardt (after Subplex with every key fitted; the cross-validation's fold fits): the
// Jacobian's difference step (normalised: a key x/÷ max_factor^0.1), the largest step per
// coordinate, and the relative fall of the total below which it stops.
constexpr double kJacobianStep = 0.1;
constexpr double kMaxLmStep = 0.5;
constexpr double kLmTolerance = 1e-3;

// Solves m x = b (n x n, row-major) by Gaussian elimination with partial pivoting; false when
// m is singular.
bool Solve(std::vector<double> m, std::vector<double> b, std::vector<double>* x) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(m[r * n + c]) > std::fabs(m[piv * n + c])) piv = r;
    if (!(std::fabs(m[piv * n + c]) > 1e-300)) return false;
    for (size_t k = 0; k < n; ++k) std::swap(m[c * n + k], m[piv * n + k]);
    std::swap(b[c], b[piv]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = m[r * n + c] / m[c * n + c];
      for (size_t k = c; k < n; ++k) m[r * n + k] -= f * m[c * n + k];
      b[r] -= f * b[c];
    }
  }
  x->assign(n, 0.0);
  for (size_t c = n; c-- > 0;) {
    double v = b[c];
    for (size_t k = c + 1; k < n; ++k) v -= m[c * n + k] * (*x)[k];
    (*x)[c] = v / m[c * n + c];
  }
  return true;
}

}  // namespace

// Subplex from `u0` on [-1, 1]^n for at most `evals` evaluations; returns the best point.
std::vector<double> Minimise(Problem& pb, const sim::SimParams& cat, std::vector<double> u0,
                             uint32_t evals, double* best) {
  const size_t n = u0.size();
  if (n == 0) {
    auto p = pb.At(u0, cat);
    *best = p.ok() ? pb.Total(p.value(), u0) : kFailedObjective;
    return u0;
  }
  nlopt::opt opt(nlopt::LN_SBPLX, static_cast<unsigned>(n));
  opt.set_lower_bounds(std::vector<double>(n, -1.0));
  opt.set_upper_bounds(std::vector<double>(n, 1.0));
  opt.set_initial_step(std::vector<double>(n, 0.25));
  opt.set_maxeval(static_cast<int>(std::max<uint32_t>(evals, 1)));
  opt.set_xtol_abs(1e-3);
  opt.set_ftol_rel(1e-5);
  struct Ctx {
    Problem* pb;
    const sim::SimParams* cat;
  } ctx{&pb, &cat};
  opt.set_min_objective(
      [](const std::vector<double>& u, std::vector<double>&, void* data) {
        auto* c = static_cast<Ctx*>(data);
        auto p = c->pb->At(u, *c->cat);
        if (!p.ok()) return ++c->pb->evals_, kFailedObjective;
        const double total = c->pb->Total(p.value(), u);
        if (c->pb->stopped_) throw nlopt::forced_stop();
        return total;
      },
      &ctx);
  double f = kFailedObjective;
  try {
    opt.optimize(u0, f);
  } catch (const std::exception&) {
    // nlopt throws on roundoff-limited or forced stops; the best point is the Problem's.
  }
  (void)f;
  *best = pb.best_total_;
  return pb.best_u_;
}

// Levenberg-Marquardt on the residuals (Problem::ResidualsOf) from `u`, within [-1, 1]^n, for
// at most `evals` evaluations: per iteration a forward-difference Jacobian (one evaluation per
// key, a backward step at the upper bound), then damped Gauss-Newton steps (Marquardt's scaling,
// at most kMaxLmStep per coordinate) until one lowers the total; stops when none does or the
// total falls by less than kLmTolerance of itself. Returns the best point; *best its total.
std::vector<double> LevenbergMarquardt(Problem& pb, const sim::SimParams& cat,
                                       std::vector<double> u, uint32_t evals, double* best) {
  const size_t n = u.size();
  const uint32_t stop = pb.evals_ + evals;
  auto left = [&] { return stop > pb.evals_ ? stop - pb.evals_ : 0; };
  auto eval = [&](const std::vector<double>& t, std::vector<double>* r) {
    auto p = pb.At(t, cat);
    if (!p.ok()) {
      ++pb.evals_;
      r->clear();
      return kFailedObjective;
    }
    return pb.Total(p.value(), t, r);
  };
  if (n == 0 || left() < n + 2) return u;
  std::vector<double> r0;
  double f0 = eval(u, &r0);  // usually a cached point
  if (r0.empty()) return u;
  double lambda = 1e-2;
  while (left() >= n + 1) {
    // J[k][i]: d residual i / d u_k.
    std::vector<std::vector<double>> jac(n, std::vector<double>(r0.size(), 0.0));
    for (size_t k = 0; k < n; ++k) {
      const double h = u[k] + kJacobianStep <= 1 ? kJacobianStep : -kJacobianStep;
      std::vector<double> t = u, rk;
      t[k] += h;
      eval(t, &rk);
      if (rk.size() != r0.size()) continue;  // the drive does not open there: no direction
      for (size_t i = 0; i < r0.size(); ++i) jac[k][i] = (rk[i] - r0[i]) / h;
    }
    std::vector<double> a(n * n, 0.0), g(n, 0.0);
    for (size_t k = 0; k < n; ++k) {
      for (size_t i = 0; i < r0.size(); ++i) g[k] += jac[k][i] * r0[i];
      for (size_t l = 0; l <= k; ++l) {
        double s = 0;
        for (size_t i = 0; i < r0.size(); ++i) s += jac[k][i] * jac[l][i];
        a[k * n + l] = a[l * n + k] = s;
      }
    }
    const double before = f0;
    bool improved = false;
    while (!improved && left() > 0 && lambda < 1e6) {
      std::vector<double> m = a, minus_g(n), step;
      for (size_t k = 0; k < n; ++k) {
        m[k * n + k] = a[k * n + k] * (1 + lambda) + 1e-12;
        minus_g[k] = -g[k];
      }
      if (!Solve(m, minus_g, &step)) break;
      double largest = 0;
      for (double x : step) largest = std::max(largest, std::fabs(x));
      const double scale = largest > kMaxLmStep ? kMaxLmStep / largest : 1.0;
      std::vector<double> t = u, rt;
      for (size_t k = 0; k < n; ++k) t[k] = std::clamp(u[k] + scale * step[k], -1.0, 1.0);
      if (t == u) {  // against the bounds: a shorter, turned step
        lambda *= 4;
        continue;
      }
      const double ft = eval(t, &rt);
      if (ft < f0 && rt.size() == r0.size()) {
        u = t;
        r0 = std::move(rt);
        f0 = ft;
        lambda = std::max(lambda / 4, 1e-6);
        improved = true;
      } else {
        lambda *= 4;
      }
    }
    if (!improved || before - f0 < kLmTolerance * before) break;
  }
  *best = pb.best_total_;
  return pb.best_u_;
}

}  // namespace ssdlab::twin::fit_internal
