#!/usr/bin/env bash
# Multi-client load against one process: `mpirun -n 2 ssdlab run --mpi` (two clients, each
# with --jobs J, the same file) against one `ssdlab run` with --jobs 2J, alternately, --rounds
# times; prints each round's aggregate IOPS of both and the median ratio (mpi / single).
# A benchmark, not a test: the shared disk varies, so the two run side by side in each round.
#
# --ram: the file lives in /dev/shm (page cache: --buffered, since tmpfs has no O_DIRECT), so
# the clients' own cost is measured rather than the disk's.
#
# Usage: bench/mpi_clients.sh [--ssdlab PATH] [--dir DIR] [--size 1GiB] [--time 5s] [--jobs 1]
#                             [--qd 16] [--rw randread] [--rounds 3] [--ram]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ssdlab="$here/build/ssdlab"
dir="$here/build/bench-tmp"
size=1GiB
time=5s
jobs=1
qd=16
rw=randread
rounds=3
extra=()
while (($#)); do
  case "$1" in
    --ssdlab) ssdlab=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --time) time=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --rw) rw=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ram) dir=/dev/shm/ssdlab-bench-mpi; extra=(--buffered); shift ;;
    *) echo "mpi_clients: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$ssdlab" ] || "$here/scripts/build.sh" >/dev/null
command -v mpirun >/dev/null || { echo "mpi_clients: mpirun missing (apt-get install openmpi-bin)" >&2; exit 2; }
mkdir -p "$dir"
file="$dir/mpi_clients.img"
out="$dir/mpi_clients.out"
trap 'rm -f "$file" "$dir"/mpi_clients.*.json "$out"' EXIT
# Written once, so that reads find data and neither side pays for allocation.
"$ssdlab" run --target "$file" --size "$size" --rw write --bs 1MiB --qd 4 --io-size 1x \
  "${extra[@]}" >/dev/null
common=(--target "$file" --rw "$rw" --bs 4KiB --qd "$qd" --runtime "$time" "${extra[@]}")
iops() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d["results"][k]["iops"] for k in ("read","write","trim") if k in d["results"]))' "$1"; }
ratios=()
for ((i = 1; i <= rounds; i++)); do
  mpirun --allow-run-as-root --oversubscribe -n 2 "$ssdlab" run --mpi "${common[@]}" \
    --jobs "$jobs" --json "$dir/mpi_clients.mpi.json" >"$out" 2>&1 || { cat "$out"; exit 1; }
  "$ssdlab" run "${common[@]}" --jobs $((2 * jobs)) --json "$dir/mpi_clients.one.json" \
    >"$out" 2>&1 || { cat "$out"; exit 1; }
  m=$(iops "$dir/mpi_clients.mpi.json")
  s=$(iops "$dir/mpi_clients.one.json")
  skew=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mpi"]["start_skew_ns"]/1e3)' "$dir/mpi_clients.mpi.json")
  r=$(python3 -c "print($m / $s)")
  ratios+=("$r")
  printf 'round %d: mpirun -n 2 x %d jobs %.0f IOPS (start skew %.0f us), one process x %d jobs %.0f IOPS, ratio %.3f\n' \
    "$i" "$jobs" "$m" "$skew" $((2 * jobs)) "$s" "$r"
done
python3 -c 'import statistics,sys; print("median ratio (mpi / single): %.3f" % statistics.median(map(float, sys.argv[1:])))' "${ratios[@]}"
