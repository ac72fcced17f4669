#!/usr/bin/env bash
# Trace speed and memory (the replay's speed and memory targets), on generated traces in a temporary directory
# (deleted afterwards):
#   1. reading blktrace binary and MSR CSV from .zst on one core (records/s);
#   2. a large trace (default 100 M records) replayed against sim:dc-sata-mixed with
#      --timing afap: wall time and peak RSS (/usr/bin/time -v);
#   3. --timing original on a file target at 20k IOPS: p99 submission lag.
# Usage: bench/trace_speed.sh [--records N] [--read-records N] [--dir DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="$here/build"
records=100000000
read_records=20000000
tmp_parent="$build"
while (($#)); do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --read-records) read_records=$2; shift 2 ;;
    --dir) tmp_parent=$2; shift 2 ;;
    *) echo "usage: $0 [--records N] [--read-records N] [--dir DIR]" >&2; exit 2 ;;
  esac
done
ninja -C "$build" ssdlab trace_speed >/dev/null
tmp=$(mktemp -d "$tmp_parent/trace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ts="$build/src/trace/trace_speed"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== 1. reading speed (one core, from .zst), $read_records records"
"$ts" gen blktrace "$read_records" "$tmp/r.blktrace.0.zst"
"$ts" gen msr "$read_records" "$tmp/r.msr.csv.zst"
for i in 1 2 3; do taskset -c 1 "$ts" read "$tmp/r.blktrace.0.zst"; done
for i in 1 2 3; do taskset -c 1 "$ts" read "$tmp/r.msr.csv.zst"; done
rm -f "$tmp"/r.*

echo "== 2. $records records, --timing afap --qd 32 on sim:dc-sata-mixed"
"$ts" gen blktrace "$records" "$tmp/big.blktrace.0.zst"
ls -l "$tmp/big.blktrace.0.zst"
/usr/bin/time -v "$build/ssdlab" replay "$tmp/big.blktrace.0.zst" --target sim:dc-sata-mixed \
  --timing afap --qd 32 --remap modulo --interval 0 --json "$tmp/big.json" 2>"$tmp/time.txt" \
  | head -3
grep -E "Elapsed|Maximum resident" "$tmp/time.txt"
python3 -c "import json;d=json.load(open('$tmp/big.json'));print('replayed I/Os:',d['results']['total']['ios'],'records:',d['replay']['trace']['records'])"
rm -f "$tmp/big.blktrace.0.zst"

echo "== 3. --timing original on a file at 20k IOPS (10 s, 200k records)"
python3 - "$tmp/paced.log" <<'PY'
import sys, random
random.seed(1)
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n")
    for i in range(200000):  # 50 us apart = 20k IOPS
        f.write("%d f %s %d 4096\n" % (i * 50, "read" if i % 10 < 7 else "write",
                                        random.randrange(0, 65536) * 4096))
PY
lag() { python3 -c "import json;d=json.load(open('$1'))['replay']['lag_ns'];print('  lag p50 %.1f us, p99 %.1f us, max %.1f us' % (d['p50']/1e3, d['p99']/1e3, d['max']/1e3))"; }
echo "-- on a file of the build's filesystem (O_DIRECT: the device is in the loop)"
fallocate -l 256MiB "$tmp/paced.img"
"$build/ssdlab" replay "$tmp/paced.log" --target "$tmp/paced.img" --timing original --qd 64 \
  --json "$tmp/paced.json" | head -1
lag "$tmp/paced.json"
rm -f "$tmp/paced.img"
echo "-- on a file in /dev/shm (--buffered: the engine's own scheduling)"
shm=$(mktemp /dev/shm/ssdlab-paced.XXXXXX)
trap 'rm -rf "$tmp" "$shm"' EXIT
fallocate -l 256MiB "$shm"
"$build/ssdlab" replay "$tmp/paced.log" --target "$shm" --buffered --timing original --qd 64 \
  --json "$tmp/paced.json" | head -1
lag "$tmp/paced.json"
rm -f "$shm"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
