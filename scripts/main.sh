#!/usr/bin/env bash
# The main job: installs packages, builds, and runs the SNIA PTS battery (reviewers' variant)
# on the built-in simulated DC400-class SATA drive. Touches no real disk.
# Results: out/report.html (the review report, with the DC400's datasheet claims beside the
# measured figures), out/results.db (every round), out/pts.json (the whole run).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh" ssdlab  # the binary only; scripts/test.sh builds the tests
out="$here/out"
mkdir -p "$out"
run="dc400-$(date -u +%Y%m%d-%H%M%S)"
# The full drive's battery on a drive of 1/32 of its blocks (--time-scale 32: the simulated
# drive is 50 GB and every duration of the spec is divided by 32, so each round writes the
# share of the drive that the spec's round writes on the 1.6 TB drive; docs/sim.md). Two
# capacities of random writes before the steady-state tests judge their rounds
# (--wdpc-capacity 2x), as the real drive needs them to leave its fresh state.
"$here/build/ssdlab" pts --target sim:dc-sata-read-intensive --spec review \
  --db "$out/results.db" --run "$run" --json "$out/pts.json" \
  --time-scale 32 --wdpc-capacity 2x --sim-threads 0
"$here/build/ssdlab" report "$run" --db "$out/results.db" -o "$out/report.html" \
  --spec "$here/specs/kingston-dc400-1600gb.toml" --title "Simulated DC400-class SATA SSD (sim:dc-sata-read-intensive)"
echo "report: $out/report.html; results: $out/results.db (run $run), $out/pts.json"
