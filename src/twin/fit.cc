#include "twin/fit.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "twin/fit_internal.h"

namespace ssdlab::twin {

using namespace fit_internal;  // the fit's shared parts (twin/fit_internal.h)

namespace {

// The values of the categorical key gc (the GC victim policy) the search tries.
constexpr const char* kVictimPolicies[] = {"greedy", "fifo", "dchoices", "costbenefit"};
// The coordinate sweep's step, normalised (a key to base x/÷ max_factor^0.35).
constexpr double kSweepStep = 0.35;
// A key whose sweep step moves the training figures (what the keys already chosen do not
// explain) by an RMS log-change below this is not pinned by them.
constexpr double kMinPinnedNorm = 0.01;

}  // namespace

double FigureFit::RelError() const {
  return figure.value > 0 ? std::fabs(simulated - figure.value) / figure.value : 1;
}

std::vector<std::string> DefaultFitKeys(const sim::SimParams& base) {
  static const std::vector<std::string> keys = {"cmd_us",
                                                "ctrl_read_us",
                                                "ctrl_write_us",
                                                "ctrl_gc_us",
                                                "ctrl_unit_us",
                                                "ctrl_read_kib_us",
                                                "ctrl_write_kib_us",
                                                "t_read_us",
                                                "t_prog_us",
                                                "ch_mb_s",
                                                "op",
                                                "link_mb_s",
                                                "link_cap_mb_s",
                                                "gc",
                                                "gc_lazy",
                                                "gc_yield"};
  std::vector<std::string> out;
  for (const std::string& k : keys)
    if (Fittable(base, k) &&
        (k != "link_cap_mb_s" || base.interface != sim::HostInterface::kSata))  // half duplex
      out.push_back(k);
  return out;
}

Status CheckFitKeys(const std::vector<std::string>& keys, const sim::SimParams& base) {
  if (keys.empty()) return Status::Invalid("--fit: no parameter keys given");
  for (const std::string& k : keys) {
    const sim::ParamDef* d = sim::FindParam(k);
    if (!d)
      return Status::Invalid("--fit: unknown sim parameter '" + k +
                             "' (the keys: ssdlab sim presets)");
    if (IsCategorical(k)) continue;
    if (d->kind != sim::ParamKind::kNumber)
      return Status::Invalid("--fit: sim parameter '" + k +
                             "' is not a number (of the named ones only gc, gc_lazy and gc_yield "
                             "can be fitted)");
    if (k == "scale" || k == "capacity" || k == "seed" || k == "mem_limit" || k == "logical_block")
      return Status::Invalid("--fit: sim parameter '" + k +
                             "' describes the simulation or the drive's size, not its "
                             "behaviour; it is not fitted");
    if (!Fittable(base, k))
      return Status::Invalid("--fit: sim parameter '" + k +
                             "' is 0 in the base preset; set a starting value with "
                             "--base PRESET?" +
                             k + "=VALUE");
  }
  return Status::Ok();
}

std::vector<std::string> PinnedKeys(const std::vector<std::string>& keys,
                                    std::vector<std::vector<double>> columns, size_t max_keys) {
  auto norm2 = [](const std::vector<double>& c) {
    double s = 0;
    for (double x : c) s += x * x;
    return s;
  };
  std::vector<std::string> out;
  std::vector<bool> taken(keys.size());
  while (out.size() < max_keys) {
    size_t pick = keys.size();
    double best = kMinPinnedNorm * kMinPinnedNorm;
    for (size_t k = 0; k < keys.size(); ++k)
      if (!taken[k] && norm2(columns[k]) >= best) best = norm2(columns[k]), pick = k;
    if (pick == keys.size()) break;
    taken[pick] = true;
    out.push_back(keys[pick]);
    // The other columns less their component along the chosen one.
    const std::vector<double> q = columns[pick];
    const double qq = norm2(q);
    for (size_t k = 0; k < keys.size(); ++k) {
      if (taken[k]) continue;
      double dot = 0;
      for (size_t f = 0; f < q.size(); ++f) dot += columns[k][f] * q[f];
      for (size_t f = 0; f < q.size(); ++f) columns[k][f] -= dot / qq * q[f];
    }
  }
  return out;
}

namespace {

// One fit (Fit's steps, in order): the figures split, the keys the training figures pin, the
// starts per GC mode swept, the local search, the re-anchored correction, the final figures and
// the guard.
class Fitter {
 public:
  Fitter(const sim::SimParams& base, const std::vector<Figure>& figures, const RunShape& shape,
         const FitOptions& o, std::vector<bool> held)
      : base_(base), figures_(figures), shape_(shape), o_(o), held_(std::move(held)) {
    PartOf(false, &train_, &train_where_);
    // (No full-test values (base_exact all 0, e.g. --correct off): nothing to re-anchor on.)
    full_ = o.full_tests &&
            std::any_of(o.base_exact.begin(), o.base_exact.end(), [](double v) { return v > 0; });
    exact_of_ = {{TargetOf(base),
                  o.base_exact.empty() ? std::vector<double>(figures.size(), 0.0) : o.base_exact}};
    for (const std::string& k : o.keys) (IsCategorical(k) ? cats_ : numbers_).push_back(k);
  }

  Result<FitResult> Run() {
    SSDLAB_RETURN_IF_ERROR(Prepare());
    SSDLAB_RETURN_IF_ERROR(Starts());
    SSDLAB_RETURN_IF_ERROR(LocalSearch());
    SSDLAB_RETURN_IF_ERROR(Reanchor());
    SSDLAB_RETURN_IF_ERROR(Conclude());
    SSDLAB_RETURN_IF_ERROR(FinalFigures());
    Guard();
    return std::move(res_);
  }

 private:
  // The figures held out (h) or not: their indices, and the figures.
  void PartOf(bool h, std::vector<Figure>* part, std::vector<size_t>* where) const {
    for (size_t i = 0; i < figures_.size(); ++i) {
      if (held_[i] != h) continue;
      part->push_back(figures_[i]);
      where->push_back(i);
    }
  }

  // The correction factors of the figures `where`, simulated together with options `so`,
  // anchored at drive `at`: exact / cheap there (the full-test values of a drive other than the
  // base from o.full_tests, once each); *corrected: those cheap values corrected.
  Result<std::vector<double>> FactorsAt(const sim::SimParams& at, const std::vector<size_t>& where,
                                        const SimulateOptions& so, std::vector<double>* corrected) {
    auto exact = exact_of_.find(TargetOf(at));
    if (exact == exact_of_.end()) {
      SSDLAB_ASSIGN_OR_RETURN(std::vector<double> v, o_.full_tests(at));
      if (v.size() != figures_.size())
        return Status::Invalid("sim fit: one full-test value per figure expected");
      exact = exact_of_.emplace(TargetOf(at), std::move(v)).first;
    }
    std::vector<Figure> part;
    std::vector<double> part_exact;
    for (size_t i : where) {
      part.push_back(figures_[i]);
      part_exact.push_back(exact->second[i]);
    }
    SSDLAB_ASSIGN_OR_RETURN(std::vector<double> cheap, SimulateFigures(at, part, shape_, so));
    std::vector<double> f = CorrectionFactors(part_exact, &cheap);
    if (corrected) *corrected = std::move(cheap);
    return f;
  }

  // The training figures at the base (their correction factors and first evaluation), the keys
  // fitted (with few figures, only the number keys they pin best, from the figures' log-change
  // when each key alone takes the sweep's first step from the base; nor the GC policies), the
  // prior's weight, the budget, and the base's objective.
  Status Prepare() {
    SSDLAB_ASSIGN_OR_RETURN(train_factor_, FactorsAt(base_, train_where_, o_.sim, &train_at_base_));
    std::set<std::string> train_cells;  // a cell's metrics (LAT's mean and tails) move together
    for (const Figure& f : train_) train_cells.insert(CellOf(f));
    const size_t max_numbers = std::max<size_t>(1, train_cells.size() / kCellsPerKey);
    const bool select = numbers_.size() > max_numbers;
    few_cells_ = select;
    // The GC policies shape the WSAT fall and the HIR recovery: kept when a few cells cannot pin
    // them, or when no such figure is fitted (the cheap evaluator's steady states would then
    // judge them alone).
    if (select || std::none_of(train_.begin(), train_.end(),
                               [](const Figure& f) { return f.test == "wsat" || f.test == "hir"; }))
      cats_.clear();
    budget_ = o_.max_evals ? o_.max_evals
                           : (select ? static_cast<uint32_t>(numbers_.size()) + 1 : 0) + 40 +
                                 16 * static_cast<uint32_t>(
                                          (select ? max_numbers : numbers_.size()) + cats_.size());
    std::map<std::string, std::vector<double>> probed = {{TargetOf(base_), train_at_base_}};
    uint32_t probe_evals = 0;
    if (select) {
      Problem probe(base_, train_, train_factor_, shape_, o_, numbers_);
      probe.cache_ = std::move(probed);
      probe.budget_ = budget_;
      const std::vector<double>* at_base = probe.Values(base_);
      if (at_base) {
        const std::vector<double> v0 = *at_base;
        std::map<std::string, double> per_test;
        for (const Figure& f : train_) per_test[f.test] += 1;
        std::vector<std::vector<double>> columns;
        for (size_t k = 0; k < numbers_.size(); ++k) {
          std::vector<double> t(numbers_.size(), 0.0);
          t[k] = kSweepStep;
          auto p = probe.At(t, base_);
          const std::vector<double>* v = p.ok() ? probe.Values(p.value()) : nullptr;
          std::vector<double> column(train_.size(), 0.0);
          for (size_t f = 0; v && f < train_.size(); ++f)
            if (v0[f] > 0 && (*v)[f] > 0)
              column[f] =
                  std::log((*v)[f] / v0[f]) /
                  std::sqrt(per_test[train_[f].test] * static_cast<double>(per_test.size()));
          columns.push_back(std::move(column));
        }
        numbers_ = PinnedKeys(numbers_, std::move(columns), max_numbers);
      }
      probe_evals = probe.evals_;
      probed = std::move(probe.cache_);
    }
    // The prior's weight: given, or with few cells (at least kMinCvCells) chosen by
    // cross-validation on the training cells.
    res_.prior_weight = o_.prior_weight >= 0 ? o_.prior_weight : kPriorWeight;
    if (o_.prior_weight < 0 && select && train_cells.size() >= kMinCvCells && !numbers_.empty())
      res_.prior_weight = CrossValidatedWeight(base_, train_, train_factor_, shape_, o_, numbers_,
                                               &res_.prior_cv, &res_.cv_evaluations);
    pb_ = std::make_unique<Problem>(base_, train_, train_factor_, shape_, o_, numbers_,
                                    res_.prior_weight);
    pb_->cache_ = std::move(probed);
    pb_->evals_ = probe_evals;
    pb_->budget_ = budget_;
    for (const std::string& k : o_.keys)
      for (const auto* kept : {&numbers_, &cats_})
        if (std::find(kept->begin(), kept->end(), k) != kept->end()) res_.fitted_keys.push_back(k);
    mode_anchor_[base_.gc_lazy] = base_;
    mode_factors_[base_.gc_lazy] = &train_factor_;
    if (full_ && std::find(cats_.begin(), cats_.end(), "gc_lazy") != cats_.end()) {
      // The cheap evaluator's bias differs between the GC modes (a short window of a lazy
      // drive catches its batches or not; an eager one's copies are steady): factors taken at
      // the base's mode misjudge the other (a hidden eager drive's own parameters scored 0.047
      // with a lazy base's, against 0.0014 uncorrected). The other mode's candidates are
      // corrected at the base's numbers in that mode, by its own full tests.
      sim::SimParams other = base_;
      other.gc_lazy = !base_.gc_lazy;
      other.gc_yield = false;
      std::vector<double> at_other;
      SSDLAB_ASSIGN_OR_RETURN(std::vector<double> f,
                              FactorsAt(other, train_where_, o_.sim, &at_other));
      anchor_factors_.push_back(std::move(f));
      mode_anchor_[other.gc_lazy] = other;
      mode_factors_[other.gc_lazy] = &anchor_factors_.back();
      pb_->SetOtherModeFactors(base_.gc_lazy, mode_factors_[other.gc_lazy]);
      pb_->cache_.emplace(TargetOf(other), std::move(at_other));
    }
    u_.assign(numbers_.size(), 0.0);
    res_.base_objective = pb_->Total(base_, u_);
    best_ = res_.base_objective;
    cur_ = pb_.get();
    cur_budget_ = budget_;
    return Status::Ok();
  }

  // The evaluations left to the problem searched (the re-anchored one's in Reanchor).
  uint32_t Left() const { return cur_budget_ > cur_->evals_ ? cur_budget_ - cur_->evals_ : 0; }

  // The total at the point (t, c); kFailedObjective when the drive does not open there.
  double TotalAt(const std::vector<double>& t, const sim::SimParams& c) {
    auto p = cur_->At(t, c);
    return p.ok() ? cur_->Total(p.value(), t) : kFailedObjective;
  }

  // Categorical keys: every combination of their values at the point t (the policies act
  // together: from a lazy GC that yields, an eager one can be better where a lazy one that does
  // not yield is not), those with gc_lazy = `lazy` only unless it is -1; returns the best of
  // them and c (whose total is *f), *f its total. gc_yield=1 without gc_lazy is the same drive
  // as gc_yield=0, so it is not tried.
  Result<sim::SimParams> TryCategories(const std::vector<double>& t, sim::SimParams c, double* f,
                                       int lazy) {
    std::vector<std::vector<std::string>> values;
    for (const std::string& k : cats_)
      values.push_back(k == "gc" ? std::vector<std::string>(std::begin(kVictimPolicies),
                                                            std::end(kVictimPolicies))
                                 : std::vector<std::string>{"0", "1"});
    const std::string evaluated = PolicyOf(c);
    std::vector<size_t> pick(cats_.size(), 0);
    for (bool more = !cats_.empty(); more;) {
      sim::SimParams alt = c;
      for (size_t i = 0; i < cats_.size(); ++i)
        SSDLAB_RETURN_IF_ERROR(sim::FindParam(cats_[i])->set(alt, values[i][pick[i]]));
      if (PolicyOf(alt) != evaluated && !(alt.gc_yield && !alt.gc_lazy) &&
          (lazy < 0 || alt.gc_lazy == (lazy == 1))) {
        if (Left() == 0) return c;
        const double g = TotalAt(t, alt);
        if (g < *f - 1e-12) {
          *f = g;
          c = alt;
        }
      }
      more = false;  // the next combination, the last key fastest
      for (size_t i = cats_.size(); i-- > 0;) {
        if (++pick[i] < values[i].size()) {
          more = true;
          break;
        }
        pick[i] = 0;
      }
    }
    return c;
  }

  // One sweep of coordinate steps from (t, c) (each key to base x/÷ max_factor^0.35, kept when
  // it lowers *f): a coarse start that the local search (Subplex, whose first simplex is
  // small) refines.
  std::vector<double> Sweep(std::vector<double> t, const sim::SimParams& c, double* f) {
    for (size_t i = 0; i < numbers_.size(); ++i) {
      for (double step : {kSweepStep, -kSweepStep}) {
        if (Left() < 2) break;
        std::vector<double> s = t;
        s[i] += step;
        const double g = TotalAt(s, c);
        if (g < *f - 1e-12) {
          *f = g;
          t = s;
          break;
        }
      }
    }
    return t;
  }

  // 1. The policies at the base point: they change the curves' shape (WSAT's fall, HIR's
  //    recovery) more than any time does, so they are chosen before the times. An eager GC and
  //    lazy batches are told apart by the times and the spare area as much as by the policy
  //    (at the base's numbers the other mode can look worse than it is once those move), so
  //    with gc_lazy fitted each mode's best combination is a start of its own; 2. each start
  //    is swept, and the best swept start goes on.
  Status Starts() {
    const bool per_mode = std::find(cats_.begin(), cats_.end(), "gc_lazy") != cats_.end();
    const std::vector<double> start_u = u_;
    bool first = true;  // the base's mode, or the one start
    for (int lazy : per_mode ? std::vector<int>{base_.gc_lazy ? 1 : 0, base_.gc_lazy ? 0 : 1}
                             : std::vector<int>{-1}) {
      double f = first ? res_.base_objective : HUGE_VAL;
      SSDLAB_ASSIGN_OR_RETURN(sim::SimParams c, TryCategories(start_u, base_, &f, lazy));
      if (f < HUGE_VAL) {  // else no drive of this mode opens
        std::vector<double> t = Sweep(start_u, c, &f);
        if (first || f < best_ - 1e-12) best_ = f, cat_ = c, u_ = std::move(t);
      }
      first = false;
    }
    return Status::Ok();
  }

  // 3. Subplex over the numbers; 4. the policies again at its best point, and refine; then
  //    Levenberg-Marquardt from there (at most half of what is left) and a compass search
  //    (Polish) with the rest. Subplex stops in the valley where the spare area, the GC copy
  //    time and the write times trade against each other; the Jacobian of the residuals
  //    follows it (when it was added: hidden drive 1's objective by its full tests 0.0035 ->
  //    0.0024, its held-out sequential writes from 20% fast to within 3%). With few cells (the
  //    keys selected, the policies not fitted) Subplex has the whole budget and neither
  //    follows: their small gains on a few training cells are noise to the held-out ones (the
  //    DC400 review's table by roles: held-out median 7.6% with the compass search, 6.8%
  //    without, the preset's 7.3%).
  Status LocalSearch() {
    const uint32_t local = few_cells_ ? Left() : cats_.empty() ? Left() * 3 / 4 : Left() / 2;
    if (local > 0) u_ = Minimise(*cur_, cat_, u_, local, &best_);
    SSDLAB_ASSIGN_OR_RETURN(sim::SimParams refined, TryCategories(u_, cat_, &best_, -1));
    const bool changed = PolicyOf(refined) != PolicyOf(cat_);
    cat_ = refined;
    if (changed && Left() > 0) u_ = Minimise(*cur_, cat_, u_, Left() / 2, &best_);
    if (!few_cells_ && Left() > 0) u_ = LevenbergMarquardt(*cur_, cat_, u_, Left() / 2, &best_);
    if (!few_cells_) Polish();
    return Status::Ok();
  }

  // A compass search from (u_, cat_): each number stepped by +h or -h, on in that direction
  // while the total falls, h from kSweepStep / 2 halved after each pass down to kSweepStep / 8.
  // Subplex on the cheap evaluator's rugged objective stops in a basin near its start and can
  // leave a key where the sweep put it once the others have moved (a hidden drive's per-KiB
  // read time stayed at its sweep step, 4.11 against the drive's 3.3 us: its large random reads
  // 19% slow, although that key alone took the full tests' objective from 0.0089 to 0.0058).
  void Polish() {
    for (double h = kSweepStep / 2; h >= kSweepStep / 8 - 1e-12; h /= 2) {
      for (size_t i = 0; i < numbers_.size(); ++i) {
        for (double step : {h, -h}) {
          bool moved = false;
          for (;;) {
            if (Left() == 0) return;
            std::vector<double> s = u_;
            s[i] = std::clamp(s[i] + step, -1.0, 1.0);
            if (s[i] == u_[i]) break;
            const double g = TotalAt(s, cat_);
            if (!(g < best_ - 1e-12)) break;
            best_ = g;
            u_ = std::move(s);
            moved = true;
          }
          if (moved) break;
        }
      }
    }
  }

  // The objective of the training figures' full-test values on drive `at` (where one is not
  // known, its value in `corrected`, the cheap values corrected at `at`): unlike the corrected
  // values, not limited by the factors' clamp.
  double FullObjective(const sim::SimParams& at, const std::vector<double>& corrected) const {
    const std::vector<double>& exact = exact_of_.at(TargetOf(at));
    std::vector<double> v = corrected;
    for (size_t k = 0; k < train_where_.size(); ++k)
      if (exact[train_where_[k]] > 0) v[k] = exact[train_where_[k]];
    return Score(train_, v, o_.loss);
  }

  // What policies and anchors are judged by: drive `at`'s FullObjective plus the prior's term
  // for its policy (as the search's Total has it), so that a policy other than the base's must
  // fit the full tests better by more than that term.
  double JudgedObjective(const sim::SimParams& at, const std::vector<double>& corrected) const {
    return FullObjective(at, corrected) +
           PolicyPrior(at, base_, res_.prior_weight, numbers_.size());
  }

  // 5. With the full tests (o.reanchor > 0): the correction re-anchored at the best point (the
  //    run's tests re-run there: its factors, exact / cheap there, for every candidate), or at
  //    another victim policy with its numbers where that policy's full tests are closer, the
  //    point kept only when the full tests find it closer than the last anchor (the base
  //    first), and steps 3 and 4 again from it with half the budget, at most o.reanchor times.
  //    The twin is then the last anchor kept: its figures are its full tests'.
  Status Reanchor() {
    reanchor_ = full_ && o_.reanchor > 0;
    anchor_ = base_;
    anchor_objective_ = reanchor_ ? JudgedObjective(base_, train_at_base_) : 0;
    for (uint32_t round = 0; reanchor_ && !cur_->stopped_; ++round) {
      sim::SimParams candidate = cur_->best_params_;
      // The base's other policies are judged too; a later anchor's were, when it was kept.
      if (round > 0 && TargetOf(candidate) == TargetOf(anchor_)) break;
      u_ = cur_->best_u_;
      std::vector<double> at_candidate;
      SSDLAB_ASSIGN_OR_RETURN(std::vector<double> f,
                              FactorsAt(candidate, train_where_, o_.sim, &at_candidate));
      double objective = JudgedObjective(candidate, at_candidate);
      std::vector<FitResult::PolicyFit> judged;
      SSDLAB_RETURN_IF_ERROR(
          OtherVictimPolicies(&candidate, &f, &at_candidate, &objective, &judged));
      const bool closer = objective < anchor_objective_ - 1e-12;
      // Judged at the twin's numbers: those of a point kept, or of the anchor itself.
      if (closer || TargetOf(cur_->best_params_) == TargetOf(anchor_))
        res_.victim_policies = std::move(judged);
      if (!closer) break;  // no closer by the full tests
      anchor_ = candidate;
      anchor_objective_ = objective;
      if (round == o_.reanchor) break;
      anchor_factors_.push_back(std::move(f));
      mode_anchor_[candidate.gc_lazy] = candidate;
      mode_factors_[candidate.gc_lazy] = &anchor_factors_.back();
      anchored_.emplace_back(base_, train_, anchor_factors_.back(), shape_, o_, numbers_,
                             res_.prior_weight);
      Problem& next = anchored_.back();
      next.SetOtherModeFactors(candidate.gc_lazy, mode_factors_[!candidate.gc_lazy]);
      next.cache_ = {{TargetOf(candidate), std::move(at_candidate)}};
      next.budget_ = budget_ / 2;
      best_ = next.Total(candidate, u_);
      cur_ = &next;
      cur_budget_ = next.budget_;
      cat_ = anchor_;
      SSDLAB_RETURN_IF_ERROR(LocalSearch());
    }
    return Status::Ok();
  }

  // The other victim policies at the candidate's numbers and modes, each judged by its own full
  // tests (the cheap evaluator corrected at a drive of another policy misjudges them: on a
  // hidden cost-benefit drive, a FIFO twin's numbers with cost-benefit were closer by the full
  // tests, 0.00284 against 0.00315, yet farther by the FIFO-corrected cheap values); the closest
  // replaces the candidate, with its factors, corrected values and objective; *judged: every
  // policy's fit, the closest first. Only when gc is fitted.
  Status OtherVictimPolicies(sim::SimParams* candidate, std::vector<double>* factors,
                             std::vector<double>* corrected, double* objective,
                             std::vector<FitResult::PolicyFit>* judged) {
    if (std::find(cats_.begin(), cats_.end(), "gc") == cats_.end()) return Status::Ok();
    const sim::SimParams evaluated = *candidate;
    // With gc_lazy fitted, each policy in the other GC mode too (at the same numbers): the
    // cheap values corrected at one mode misjudge the other as they do another policy. Every
    // entry then names its mode.
    std::vector<bool> modes = {evaluated.gc_lazy};
    if (std::find(cats_.begin(), cats_.end(), "gc_lazy") != cats_.end())
      modes.push_back(!evaluated.gc_lazy);
    const auto named = [&](FitResult::PolicyFit v, bool lazy) {
      if (modes.size() > 1) v.gc += lazy ? ", lazy" : ", eager";
      return v;
    };
    judged->push_back(named(PolicyFitOf(evaluated, *objective), evaluated.gc_lazy));
    for (const bool lazy : modes)
      for (const char* gc : kVictimPolicies) {
        sim::SimParams alt = evaluated;
        SSDLAB_RETURN_IF_ERROR(sim::FindParam("gc")->set(alt, gc));
        alt.gc_lazy = lazy;
        if (PolicyOf(alt) == PolicyOf(evaluated)) continue;
        std::vector<double> at_alt;
        SSDLAB_ASSIGN_OR_RETURN(std::vector<double> f,
                                FactorsAt(alt, train_where_, o_.sim, &at_alt));
        const double g = JudgedObjective(alt, at_alt);
        judged->push_back(named(PolicyFitOf(alt, g), lazy));
        if (g < *objective - 1e-12) {
          *candidate = alt;
          *factors = std::move(f);
          *corrected = std::move(at_alt);
          *objective = g;
        }
      }
    std::stable_sort(judged->begin(), judged->end(),
                     [](const auto& a, const auto& b) { return a.objective < b.objective; });
    return Status::Ok();
  }

  // Drive p's victim policy, training objective and held-out errors by its full tests (run).
  FitResult::PolicyFit PolicyFitOf(const sim::SimParams& p, double objective) const {
    const std::vector<double>& exact = exact_of_.at(TargetOf(p));
    std::vector<FigureFit> held;
    for (size_t i = 0; i < figures_.size(); ++i)
      if (held_[i] && exact[i] > 0) held.push_back({figures_[i], exact[i], true});
    return {sim::PolicyName(p.gc), objective, MedianErrors(held, true)};
  }

  // The result's drive: the best point any step evaluated (the base itself when none beat it),
  // or the last anchor; Interrupted when a stop request ended the search.
  Status Conclude() {
    uint32_t evaluations = 0;
    std::vector<const Problem*> problems = {pb_.get()};
    for (const Problem& a : anchored_) problems.push_back(&a);
    for (const Problem* p : problems) {
      if (p->stopped_)
        return Status::Error(Code::kInterrupted,
                             "sim fit: interrupted after " +
                                 std::to_string(evaluations + p->evals_at_stop_) +
                                 " evaluations; no twin written");
      evaluations += p->evals_;
    }
    res_.params = reanchor_ ? anchor_ : cur_->best_params_;
    res_.objective = reanchor_ ? anchor_objective_ : cur_->best_raw_;
    if (reanchor_) res_.base_objective = FullObjective(base_, train_at_base_);  // alike
    res_.evaluations = evaluations;
    // The full tests found no point closer than the base.
    res_.kept_base = reanchor_ && TargetOf(anchor_) == TargetOf(base_) &&
                     TargetOf(pb_->best_params_) != TargetOf(base_);
    return Status::Ok();
  }

  // The training and held-out figures are simulated apart (cells share a drive in turn, so
  // the training figures come out as the fit saw them); HIR with all the run's cycles. Each
  // part's correction factors from the base (the last anchor for the twin, with o.reanchor)
  // simulated the same way.
  Status FinalFigures() {
    SimulateOptions final_sim = o_.sim;
    final_sim.hir_cycles = shape_.hir_cycles;
    std::vector<double> twin_values(figures_.size()), base_values(figures_.size());
    const bool twin_is_base = TargetOf(res_.params) == TargetOf(base_);
    for (bool h : {false, true}) {
      std::vector<Figure> part;
      std::vector<size_t> where;
      PartOf(h, &part, &where);
      if (part.empty()) continue;
      std::vector<double> at_base;
      SSDLAB_ASSIGN_OR_RETURN(std::vector<double> f, FactorsAt(base_, where, final_sim, &at_base));
      std::vector<double> at_twin = at_base;
      if (!twin_is_base) {
        const bool mode = res_.params.gc_lazy;
        const sim::SimParams& at = reanchor_             ? anchor_
                                   : mode_factors_[mode] ? mode_anchor_[mode]
                                                         : base_;
        if (TargetOf(at) != TargetOf(base_)) {
          SSDLAB_ASSIGN_OR_RETURN(f, FactorsAt(at, where, final_sim, nullptr));
        }
        SSDLAB_ASSIGN_OR_RETURN(at_twin, SimulateFigures(res_.params, part, shape_, final_sim));
        for (size_t k = 0; k < at_twin.size(); ++k) at_twin[k] *= f[k];
      }
      for (size_t k = 0; k < where.size(); ++k) {
        base_values[where[k]] = at_base[k];
        twin_values[where[k]] = at_twin[k];
      }
    }
    // Where a drive's full tests were run, its figures are theirs (a corrected cheap value can
    // differ: its factor is clamped, e.g. a short cell that caught a lazy GC stall).
    auto exact = [this](const sim::SimParams& p, std::vector<double>* values) {
      auto it = exact_of_.find(TargetOf(p));
      if (it == exact_of_.end()) return;
      for (size_t i = 0; i < values->size(); ++i)
        if (it->second[i] > 0) (*values)[i] = it->second[i];
    };
    exact(base_, &base_values);
    exact(res_.params, &twin_values);
    for (size_t i = 0; i < figures_.size(); ++i) {
      res_.figures.push_back({figures_[i], twin_values[i], held_[i]});
      res_.base_figures.push_back({figures_[i], base_values[i], held_[i]});
    }
    return Status::Ok();
  }

  // The guard: a twin no closer to the training figures than the base (by their median
  // error, what `sim fit` reports) is not kept; the search's objective and the median can
  // disagree when a few figures dominate the objective.
  void Guard() {
    // A re-anchored twin's full tests were closer than the base's (the objective, judged by the
    // full tests, not the cheap evaluator): kept. (On seed_002's halves the guard had undone
    // such a twin whose training median rose from 6.1% to 6.5%: its held-out one fell from 7.4%
    // to 5.3%.)
    if (reanchor_) return;
    auto train_median = [](const std::vector<FigureFit>& f) {
      for (const auto& [test, e] : MedianErrors(f, false))
        if (test == "all") return e;
      return 0.0;
    };
    if (TargetOf(res_.params) != TargetOf(base_) &&
        !(train_median(res_.figures) < train_median(res_.base_figures))) {
      res_.kept_base = true;
      res_.rejected_figures = std::move(res_.figures);
      res_.params = base_;
      res_.objective = res_.base_objective;
      res_.figures = res_.base_figures;
    }
  }

  const sim::SimParams& base_;
  const std::vector<Figure>& figures_;
  const RunShape& shape_;
  const FitOptions& o_;
  const std::vector<bool> held_;
  std::vector<Figure> train_;
  std::vector<size_t> train_where_;
  bool full_ = false;  // full-test values to re-anchor on
  // Per drive, every figure's full-test value on it (0: none).
  std::map<std::string, std::vector<double>> exact_of_;
  std::vector<std::string> numbers_, cats_;  // the keys fitted
  std::vector<double> train_factor_, train_at_base_;
  uint32_t budget_ = 0;
  bool few_cells_ = false;  // the number keys were selected (Prepare): few training cells
  std::unique_ptr<Problem> pb_;
  // The problem searched (pb_ or the last re-anchored one) and its budget.
  Problem* cur_ = nullptr;
  uint32_t cur_budget_ = 0;
  // The search's state: the best total, its normalised point and its policies.
  double best_ = HUGE_VAL;
  std::vector<double> u_;
  sim::SimParams cat_ = base_;
  // Re-anchoring: on or not, the last anchor and its full-test objective, the anchored
  // problems (deques: a Problem refers to its factors, and both must stay put).
  bool reanchor_ = false;
  sim::SimParams anchor_;
  double anchor_objective_ = 0;
  std::deque<std::vector<double>> anchor_factors_;
  std::deque<Problem> anchored_;
  // Per GC mode (index gc_lazy), the drive of its latest correction factors and the factors (the
  // base's mode: the base, train_factor_; the other, with gc_lazy fitted and full tests: the
  // base's numbers in that mode, then each anchor of that mode).
  sim::SimParams mode_anchor_[2];
  const std::vector<double>* mode_factors_[2] = {nullptr, nullptr};
  FitResult res_;
};

}  // namespace

Result<FitResult> Fit(const sim::SimParams& base, const std::vector<Figure>& figures,
                      const RunShape& shape, const FitOptions& o) {
  SSDLAB_RETURN_IF_ERROR(CheckFitKeys(o.keys, base));
  SSDLAB_ASSIGN_OR_RETURN(std::vector<bool> held, SplitFigures(figures, o));
  if (!o.base_exact.empty() && o.base_exact.size() != figures.size())
    return Status::Invalid("sim fit: one full-test value at the base per figure expected");
  return Fitter(base, figures, shape, o, std::move(held)).Run();
}

std::vector<std::pair<std::string, double>> MedianErrors(const std::vector<FigureFit>& f,
                                                         bool held_out) {
  std::map<std::string, std::vector<double>> by_test;
  for (const FigureFit& x : f) {
    if (x.held_out != held_out) continue;
    by_test[x.figure.test].push_back(x.RelError());
    by_test["all"].push_back(x.RelError());
  }
  std::vector<std::pair<std::string, double>> out;
  for (auto& [test, v] : by_test) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    out.emplace_back(test, n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
  }
  return out;
}

}  // namespace ssdlab::twin
