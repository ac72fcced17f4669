#!/usr/bin/env bash
# How well does `ssdlab sim fit` predict what it was not fitted to? Prints two scoreboards:
#
# 1. Hidden drive: a preset with perturbed parameters (controller and NAND times ~30% off,
#    another OP and GC policy) runs the review battery (10 s rounds at the preset's scale); a twin is
#    fitted from the dc-sata-read-intensive preset to its IOPS, LAT and WSAT tests only, and the
#    held-out TP, LVI and HIR figures are compared (median relative error), both with the cheap
#    evaluator `sim fit` uses and with the run's tests re-run on the twin (`sim compare --exact`).
# 2. Published tables: bench/fidelity/seed_000.csv (Kingston DC400) and seed_002.csv (Seagate
#    Nytro 3732) imported (their lab ran the whole IOPS matrix in a minute per round, on a drive
#    still fresh from its sequential preconditioning: --iops-state fresh) and fitted from the
#    hand-calibrated presets, two ways: on their calibration rows, the predicted rows held
#    out (the preset was calibrated on the same rows: a twin from it can at best tie); and by
#    5-fold cross-validation (`--fold I/5`, I = 0 .. 4, seed 1: every row of a test of several
#    cells held out once, fitted on the other four fifths whatever its role), pooled. Each time
#    the held-out rows' median error of the twin and of the preset, on the same rows, and
#    (bench/twin_heldout.py) their mean absolute log-ratio and how many held-out rows the twin
#    predicts better and worse. The preset's error on a calibration row is in-sample, the
#    twin's never is.
#
# Usage: bench/twin_accuracy.sh [BUILD_DIR]   (about 60 minutes on 2 cores)
# PART=1 or PART=2 runs one part only; TABLES (default "000 002") part 2's tables; FOLDS
# (default 5, 0: none) and FOLD_SEEDS (default 1) part 2's cross-validation; SPLIT_SEEDS
# (default none) seeds of fits on a random half of each test's rows (`--holdout 0.5`);
# LOSSES (default "squared") part 2's losses (or abs, soft); FIT_ARGS more options of every
# sim fit.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ssdlab=${SSDLAB:-$build/ssdlab}
# WORK=DIR keeps the database and twins there (and reuses a hidden-drive run already in it).
if [ -n "${WORK:-}" ]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
db=$work/r.db

part=${PART:-all}
if [ "$part" != 2 ]; then
  # The hidden drive: every changed key ~30% from dc-sata-read-intensive's value.
  hidden="sim:dc-sata-read-intensive?cmd_us=58&ctrl_read_us=10&ctrl_write_us=27&ctrl_gc_us=13"
  hidden+="&ctrl_unit_us=2&t_read_us=60&t_prog_us=1800&ch_mb_s=150&op=24&gc=costbenefit&gc_lazy=0"
  echo "== 1. hidden drive: $hidden"
  if ! "$ssdlab" show hidden --db "$db" >/dev/null 2>&1; then
    "$ssdlab" pts --target "$hidden" --spec review --db "$db" --run hidden \
      --tests iops,tp,lat,lvi,wsat,hir --round 10s --wsat-round 10s --lvi-warmup 2s \
      --lvi-measure 8s --hir-cycles 30 --hir-baseline 120s --progress none 2>/dev/null >/dev/null
  fi
  start=$(date +%s)
  "$ssdlab" sim fit hidden --db "$db" --base dc-sata-read-intensive --train-tests iops,lat,wsat \
    ${FIT_ARGS:-} -o "$work/hidden.toml" 2>/dev/null
  echo "sim fit: $(($(date +%s) - start)) s"
  echo "-- held-out tests re-run exactly on the twin (sim compare --exact):"
  "$ssdlab" sim compare hidden --db "$db" --target "sim:$work/hidden.toml" --exact |
    grep "median error"
  echo "-- the hidden drive itself with the cheap evaluator (its bias against the full tests):"
  "$ssdlab" sim compare hidden --db "$db" --target "$hidden" | grep "median error"
  echo "-- the base preset, exactly:"
  "$ssdlab" sim compare hidden --db "$db" --target sim:dc-sata-read-intensive --exact |
    grep "median error"
fi

[ "$part" = 1 ] && exit 0
for table in 000:dc-sata-read-intensive:1600321314816 002:dc-sas-write-intensive:800166076416; do
  IFS=: read -r n preset cap <<<"$table"
  [[ " ${TABLES:-000 002} " == *" $n "* ]] || continue
  echo "== 2. published table seed_$n.csv, from $preset"
  "$ssdlab" show "seed$n" --db "$db" >/dev/null 2>&1 ||
    "$ssdlab" import "$here/bench/fidelity/seed_$n.csv" --db "$db" --run "seed$n" \
      --capacity "$cap" --iops-state fresh >/dev/null
  for loss in ${LOSSES:-squared}; do
    echo "-- --loss $loss, fitted on the calibration rows, the predicted rows held out:"
    "$ssdlab" sim fit "seed$n" --db "$db" --base "$preset" --loss $loss \
      ${FIT_ARGS:-} -o "$work/seed$n.toml" 2>/dev/null
    python3 "$here/bench/twin_heldout.py" "$work/seed$n.toml"
    folds=${FOLDS:-5}
    for seed in $([ "$folds" -gt 0 ] && echo "${FOLD_SEEDS:-1}"); do
      echo "-- --loss $loss, $folds-fold cross-validation (--fold I/$folds --seed $seed), pooled:"
      twins=()
      for ((i = 0; i < folds; i++)); do
        "$ssdlab" sim fit "seed$n" --db "$db" --base "$preset" --loss $loss --fold "$i/$folds" \
          --seed "$seed" ${FIT_ARGS:-} -o "$work/seed$n-fold$seed-$i.toml" >/dev/null 2>&1
        twins+=("$work/seed$n-fold$seed-$i.toml")
      done
      python3 "$here/bench/twin_heldout.py" --pool "${twins[@]}"
    done
    for split in ${SPLIT_SEEDS:-}; do
      echo "-- --loss $loss, fitted on half of each test's rows (--holdout 0.5 --seed $split):"
      "$ssdlab" sim fit "seed$n" --db "$db" --base "$preset" --loss $loss --holdout 0.5 \
        --seed "$split" ${FIT_ARGS:-} -o "$work/seed$n-half$split.toml" 2>/dev/null
      python3 "$here/bench/twin_heldout.py" "$work/seed$n-half$split.toml"
    done
  done
done
