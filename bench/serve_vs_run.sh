#!/usr/bin/env bash
# fio on a served simulated drive (`ssdlab sim serve --fuse --loop`, real time) against
# `ssdlab run` on the same preset in virtual time: 4 KiB random reads and writes at a few queue
# depths, each on a fresh drive whose first RANGE was written once sequentially. Prints IOPS
# and mean latency side by side and the serve's share of late replies (docs/serve.md).
# Usage (root: loop devices): bench/serve_vs_run.sh [PRESET] [RUNTIME_S] [RANGE]
set -euo pipefail
preset=${1:-dc-sata-mixed}
runtime=${2:-10}
range=${3:-1GiB}
root=$(cd "$(dirname "$0")/.." && pwd)
ssdlab=${SSDLAB:-$root/build/ssdlab}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/serve_vs_run.XXXXXX")
dir=$tmp/fuse
server=""
cleanup() {
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  "$ssdlab" sim serve --cleanup "$dir" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

printf '%-10s %3s | %10s %10s | %10s %10s | %6s %s\n' workload qd run_iops run_lat_us \
  fio_iops fio_lat_us late% paced
for case in randread:1 randwrite:1 randwrite:8 randread:8; do
  rw=${case%%:*}
  qd=${case##*:}
  run=$("$ssdlab" run --target "sim:$preset" --rw "$rw" --bs 4KiB --qd "$qd" \
    --runtime "${runtime}s" --range "0-$range" --prefill --json - 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]["total"]; print(r["iops"], r["lat_ns"]["mean"]/1e3)')
  mkdir -p "$dir"
  rm -f "$tmp/out" && mkfifo "$tmp/out"
  "$ssdlab" sim serve "sim:$preset" --fuse "$dir" --loop --json "$tmp/s.json" >"$tmp/out" \
    2>"$tmp/err" &
  server=$!
  exec 3<"$tmp/out"
  dev=""
  while read -r line <&3; do
    case $line in
      "loop: "*) dev=${line#loop: } ;;
      ready) break ;;
    esac
  done
  [ -n "$dev" ] || { cat "$tmp/err" >&2; exit 1; }
  fio --name=fill --filename="$dev" --rw=write --bs=128k --size="$range" --direct=1 \
    --ioengine=libaio --iodepth=8 >/dev/null
  fio --name=t --filename="$dev" --rw="$rw" --bs=4k --size="$range" --direct=1 \
    --ioengine=libaio --iodepth="$qd" --runtime="$runtime" --time_based --randrepeat=0 \
    --output-format=json --output="$tmp/fio.json" >/dev/null
  kill -TERM "$server"
  cat <&3 >/dev/null || true
  exec 3<&-
  wait "$server" || true
  server=""
  fio=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]; print(j["iops"], j["lat_ns"]["mean"]/1e3)' \
    "$tmp/fio.json" "$([ "$rw" = randread ] && echo read || echo write)")
  late=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(100*d["late_share"],2), d["paced"], round(d["transport_round_trip_ns"]/1e3,1))' "$tmp/s.json")
  read -r riops rlat <<<"$run"
  read -r fiops flat <<<"$fio"
  read -r lshare paced rtt <<<"$late"
  printf '%-10s %3s | %10.0f %10.1f | %10.0f %10.1f | %6s %s (transport %s us)\n' "$rw" "$qd" \
    "$riops" "$rlat" "$fiops" "$flat" "$lshare" "$paced" "$rtt"
done
