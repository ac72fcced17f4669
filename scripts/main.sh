#!/usr/bin/env bash
# The main job: installs packages, builds, and runs ssdlab's workloads. Touches no real disk.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
out="$here/out"
mkdir -p "$out"
tmp=$(mktemp -d "$here/build/main.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$here/build/ssdlab" run --target "$tmp/drive.img" --size 1GiB --rw randrw --rwmix-read 70 \
  --bs 4KiB --qd 8 --jobs 2 --runtime 10s --json "$out/run.json"
echo "results: $out/run.json"
