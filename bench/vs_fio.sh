#!/usr/bin/env bash
# Compares `ssdlab run` with fio on the same file, side by side (see vs_fio.py).
# Usage: bench/vs_fio.sh [--runtime 5] [--rounds 3] [--size 1GiB] [--only 4k-randread-qd32,...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh" >/dev/null
command -v fio >/dev/null || { echo "vs_fio: installing fio" >&2; apt-get install -y -qq fio >/dev/null; }
mkdir -p "$here/build/bench-tmp"
exec python3 "$here/bench/vs_fio.py" --ssdlab "$here/build/ssdlab" --dir "$here/build/bench-tmp" "$@"
