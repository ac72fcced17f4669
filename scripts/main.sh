#!/usr/bin/env bash
# The main job: installs packages, builds, and runs the SNIA PTS battery (reviewers' variant)
# on the built-in simulated DC400-class SATA drive. Touches no real disk.
# Results: out/report.html (the review report, with the DC400's datasheet claims beside the
# measured figures), out/results.db (every round), out/pts.json (the whole run).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
out="$here/out"
mkdir -p "$out"
run="dc400-$(date -u +%Y%m%d-%H%M%S)"
# Rounds of 10 s instead of 60 s and shorter LVI points, HIR cycles and XSR segments: the
# simulated drive is scaled (1/256 of its blocks), so a spec-length battery would write
# hundreds of drive capacities; these durations keep every test's shape in about 2 minutes.
"$here/build/ssdlab" pts --target sim:dc-sata-read-intensive --spec review \
  --db "$out/results.db" --run "$run" --json "$out/pts.json" \
  --round 10s --wsat-round 10s --lvi-warmup 2s --lvi-measure 8s \
  --hir-cycles 30 --hir-baseline 120s --xsr 300s,300s,300s --dirth-hist 30s
"$here/build/ssdlab" report "$run" --db "$out/results.db" -o "$out/report.html" \
  --spec "$here/specs/kingston-dc400-1600gb.toml" --title "Simulated DC400-class SATA SSD (sim:dc-sata-read-intensive)"
echo "report: $out/report.html; results: $out/results.db (run $run), $out/pts.json"
