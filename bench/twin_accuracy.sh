#!/usr/bin/env bash
# How well does `ssdlab sim fit` predict what it was not fitted to? Prints two scoreboards:
#
# 1. Hidden drive: a preset with perturbed parameters (controller and NAND times ~30% off,
#    another OP and GC policy) runs the review battery (scripts/main.sh's durations); a twin is
#    fitted from the dc-sata-read-intensive preset to its IOPS, LAT and WSAT tests only, and the
#    held-out TP, LVI and HIR figures are compared (median relative error), both with the cheap
#    evaluator `sim fit` uses and with the run's tests re-run on the twin (`sim compare --exact`).
# 2. Published tables: bench/fidelity/seed_000.csv (Kingston DC400) and seed_002.csv (Seagate
#    Nytro 3732) imported and fitted on their calibration rows from the hand-calibrated presets;
#    the held-out (predicted) rows' median error of the twin against the preset's.
#
# Usage: bench/twin_accuracy.sh [BUILD_DIR]   (about 15-25 minutes on 2 cores)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ssdlab=${SSDLAB:-$build/ssdlab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/r.db

# The hidden drive: every changed key ~30% from dc-sata-read-intensive's value.
hidden="sim:dc-sata-read-intensive?cmd_us=58&ctrl_read_us=10&ctrl_write_us=27&ctrl_gc_us=18"
hidden+="&ctrl_unit_us=2&t_read_us=60&t_prog_us=1800&ch_mb_s=150&op=24&gc=costbenefit&gc_lazy=0"
echo "== 1. hidden drive: $hidden"
"$ssdlab" pts --target "$hidden" --spec review --db "$db" --run hidden \
  --tests iops,tp,lat,lvi,wsat,hir --round 10s --wsat-round 10s --lvi-warmup 2s \
  --lvi-measure 8s --hir-cycles 30 --hir-baseline 120s --progress none 2>/dev/null >/dev/null
start=$(date +%s)
"$ssdlab" sim fit hidden --db "$db" --base dc-sata-read-intensive --train-tests iops,lat,wsat \
  -o "$work/hidden.toml" 2>/dev/null
echo "sim fit: $(($(date +%s) - start)) s"
echo "-- held-out tests re-run exactly on the twin (sim compare --exact):"
"$ssdlab" sim compare hidden --db "$db" --target "sim:$work/hidden.toml" --exact |
  grep "median error"
echo "-- the hidden drive itself with the cheap evaluator (its bias against the full tests):"
"$ssdlab" sim compare hidden --db "$db" --target "$hidden" | grep "median error"
echo "-- the base preset, exactly:"
"$ssdlab" sim compare hidden --db "$db" --target sim:dc-sata-read-intensive --exact |
  grep "median error"

for seed in 000:dc-sata-read-intensive:1600321314816 002:dc-sas-write-intensive:800166076416; do
  IFS=: read -r n preset cap <<<"$seed"
  echo "== 2. published table seed_$n.csv, from $preset"
  "$ssdlab" import "$here/bench/fidelity/seed_$n.csv" --db "$db" --run "seed$n" \
    --capacity "$cap" >/dev/null
  "$ssdlab" sim fit "seed$n" --db "$db" --base "$preset" -o "$work/seed$n.toml" 2>/dev/null
done
