#!/usr/bin/env bash
# The simulator's speed as users wait for it: host writes per second of wall time of a whole
# `ssdlab run` command, process start and model start-up included, beside the in-process
# figure of bench/sim_speed (one phase, no start-up).
#
#   bench/sim_speed.sh [--rounds N] [--bin PATH]
#
# Cases (4 KiB random writes at QD 32 after a random ramp of 1x the capacity, then 2x the
# capacity measured; dc-sata-read-intensive at its default scale 256):
#   WA ~1.5  the preset as it is;
#   WA ~2.5  the same drive with op=10.
# Each case runs N times (default 5); the line gives the median and the range. Host writes
# counted are the ramp's and the window's: 3x the capacity in 4 KiB units. Wall-clock
# figures depend on the machine and its load (the load average is printed before and after);
# the figure per CPU second (the process's user + system time) much less so.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/ssdlab"
rounds=5
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--bin PATH]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "sim_speed.sh: $bin: not built (ninja -C build ssdlab)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in "WA~1.5|sim:dc-sata-read-intensive" "WA~2.5|sim:dc-sata-read-intensive?op=10"; do
  label=${c%%|*}
  target=${c#*|}
  rates=()
  for ((i = 0; i < rounds; i++)); do
    t0=$(date +%s%N)
    {
      TIMEFORMAT='%3U %3S'
      time "$bin" run --target "$target" --rw randwrite --bs 4KiB --qd 32 --ramp 1x \
        --io-size 2x --json "$tmp/r.json" >/dev/null 2>&1
    } 2>"$tmp/cpu"
    t1=$(date +%s%N)
    rates+=("$(python3 - "$tmp/r.json" "$t0" "$t1" "$tmp/cpu" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
det = d["context"]["target"]["details"]
units = float(det["capacity"]) / float(det["scale"]) / 4096
s = d["sim"]
wall = (int(sys.argv[3]) - int(sys.argv[2])) / 1e9
cpu = sum(float(x) for x in open(sys.argv[4]).read().split())
print(f"{3 * units / wall / 1e6:.2f} {s['nand_pages_written'] / s['host_pages_written']:.2f} "
      f"{wall:.3f} {3 * units / max(cpu, 1e-3) / 1e6:.2f}")
PY
)")
  done
  printf "%s\n" "${rates[@]}" | python3 -c "
import sys
rows = [l.split() for l in sys.stdin if l.strip()]
r = sorted(float(x[0]) for x in rows)
c = sorted(float(x[3]) for x in rows)
print(f'end to end  $label (WA {rows[0][1]}): median {r[len(r)//2]:.2f} M host writes/s (range {r[0]:.2f}-{r[-1]:.2f}, {len(r)} runs, {float(rows[0][2]):.2f} s a run); {c[len(c)//2]:.2f} M per CPU second (range {c[0]:.2f}-{c[-1]:.2f})')"
done
if [ -x "$here/build/src/sim/sim_speed" ]; then
  echo "in process (bench/sim_speed, sim:tiny capacity=1GiB op=28, one phase):"
  "$here/build/src/sim/sim_speed" "sim:tiny?capacity=1GiB&op=28" 20000000 w32 | sed 's/^/  /'
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
