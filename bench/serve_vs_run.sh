#!/usr/bin/env bash
# fio on a served simulated drive (`ssdlab sim serve --fuse --loop`, real time) against
# `ssdlab run` on the same preset in virtual time (docs/serve.md): 4 KiB random reads and writes
# at QD 1 and 4-16, each on a fresh drive whose first RANGE was written once sequentially.
# Prints, per case, both sides' IOPS and mean latency, their ratios (fio / run: 1.00 is
# agreement; the issue asks for 0.90-1.10 where the transport keeps up) and the serve's share
# of late replies over the measured fio run alone (the fill is served before it, from the same
# state, by another serve), the serve's verdict (NOT PACED: replies late, or the loop device's
# clients' mean latency more than 10% from the model's), its credit, that client excess and
# the share of requests that were waiting for the server (docs/serve.md), and the server's own
# time: the model's answer after a request's arrival, and the turnaround (arrival to reply) of
# the requests already due by then (JSON admission_ns, turnaround_ns).
#
# Usage (root: loop devices; a quiet machine, see docs/serve.md):
#   bench/serve_vs_run.sh [PRESET...]     (default: dc-sata-read-intensive dc-sata-mixed)
# Environment: RUNTIME (s, default 10), RANGE (default 1GiB), QDS (default "1 4 8 16"),
#   RWS (default "randread randwrite"), SSDLAB (default build/ssdlab).
set -euo pipefail
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(dc-sata-read-intensive dc-sata-mixed)
runtime=${RUNTIME:-10}
range=${RANGE:-1GiB}
qds=${QDS:-1 4 8 16}
rws=${RWS:-randread randwrite}
root=$(cd "$(dirname "$0")/.." && pwd)
ssdlab=${SSDLAB:-$root/build/ssdlab}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/serve_vs_run.XXXXXX")
dir=$tmp/fuse
pid_file=$tmp/serve.pid
cleanup() {
  if [ -s "$pid_file" ]; then kill -TERM "$(cat "$pid_file")" 2>/dev/null || true; fi
  for _ in $(seq 100); do [ -s "$pid_file" ] || break; sleep 0.1; done
  "$ssdlab" sim serve --cleanup "$dir" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Serves sim:$1 (state $2) in the background until stop_serve; sets $dev to its loop device.
start_serve() {
  mkdir -p "$dir"
  local out
  out=$("$ssdlab" sim serve "sim:$1?state=$2" --fuse "$dir" --loop --daemon \
    --pid-file "$pid_file" --json "$3" 2>"$tmp/err") || { cat "$tmp/err" >&2; exit 1; }
  dev=$(sed -n 's/^loop: //p' <<<"$out")
  [ -n "$dev" ] || { echo "no loop device: $out" >&2; exit 1; }
}
# SIGTERM to the server; waits (bounded, 120 s) until it has removed its pid file: stopped.
stop_serve() {
  kill -TERM "$(cat "$pid_file")"
  for _ in $(seq 1200); do [ -e "$pid_file" ] || return 0; sleep 0.1; done
  echo "the server did not stop within 120 s" >&2
  exit 1
}

printf '%-22s %-9s %3s | %9s %9s | %9s %9s | %6s %6s | %6s %s\n' preset workload qd \
  run_iops run_lat_us fio_iops fio_lat_us iops_r lat_r late% paced
for preset in "${presets[@]}"; do
  for rw in $rws; do
    for qd in $qds; do
      run=$("$ssdlab" run --target "sim:$preset" --rw "$rw" --bs 4KiB --qd "$qd" \
        --runtime "${runtime}s" --range "0-$range" --prefill --json - 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]["total"]; print(r["iops"], r["lat_ns"]["mean"]/1e3)')
      state=$tmp/drive.st
      rm -f "$state" "$state.data"
      # The fill, served on its own: its replies do not count in the measured serve's figures.
      start_serve "$preset" "$state" "$tmp/fill.json"
      fio --name=fill --filename="$dev" --rw=write --bs=128k --size="$range" --direct=1 \
        --ioengine=libaio --iodepth=8 >/dev/null
      stop_serve
      start_serve "$preset" "$state" "$tmp/s.json"
      fio --name=t --filename="$dev" --rw="$rw" --bs=4k --size="$range" --direct=1 \
        --ioengine=libaio --iodepth="$qd" --runtime="$runtime" --time_based --randrepeat=0 \
        --output-format=json --output="$tmp/fio.json" >/dev/null
      stop_serve
      fio=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]; print(j["iops"], j["lat_ns"]["mean"]/1e3)' \
        "$tmp/fio.json" "$([ "$rw" = randread ] && echo read || echo write)")
      served=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d.get("clients",{}); print(round(100*d["late_share"],2), "paced" if d["paced"] else "NOT_PACED", round(d["transport_round_trip_ns"]/1e3,1), "%+.0f%%" % (100*c["excess"]) if c.get("compared") else "-", round(100*d.get("backlog_share",0)), round(d.get("transport_gap_ns",{}).get("estimate",0)/1e3,1), round(d["lag_ns"]["mean"]/1e3,1), round(d.get("transport_gap_ns",{}).get("mean",0)/1e3,1), round(d.get("transport_gap_ns",{}).get("p50",0)/1e3,1), round(d.get("admission_ns",{}).get("p50",0)/1e3,1), round(d.get("turnaround_ns",{}).get("p50",0)/1e3,1), round(d.get("turnaround_ns",{}).get("mean",0)/1e3,1), d.get("turnaround_ns",{}).get("count",0), d.get("direct_replies",0), "%+.0f%%" % (100*((d["io_round_trip_ns"]+d["io_server_ns"])/d["io_service_ns"]-1)) if d.get("io_service_ns") and d.get("io_round_trip_ns") else "-")' "$tmp/s.json")
      read -r riops rlat <<<"$run"
      read -r fiops flat <<<"$fio"
      read -r lshare paced rtt excess backlog gap lag_mean gap_mean gap_p50 adm_p50 turn_p50 \
        turn_mean turn_n direct estimate <<<"$served"
      ratios=$(python3 -c 'import sys; a=[float(x) for x in sys.argv[1:]]; print(f"{a[2]/a[0]:.2f} {a[3]/a[1]:.2f}")' \
        "$riops" "$rlat" "$fiops" "$flat")
      read -r iops_r lat_r <<<"$ratios"
      printf '%-22s %-9s %3s | %9.0f %9.1f | %9.0f %9.1f | %6s %6s | %6s %s (transport %s us, at QD 1 %s us (gaps: mean %s, p50 %s); replies %s us late on average; clients %s against the model, %s by the server'"'"'s estimate; %s%% waiting; the model answered %s us after arrival (p50); %s replies due by then left %s us after arrival (p50; mean %s); %s replies without a hand-off)\n' \
        "$preset" "$rw" "$qd" "$riops" "$rlat" "$fiops" "$flat" "$iops_r" "$lat_r" "$lshare" \
        "$paced" "$rtt" "$gap" "$gap_mean" "$gap_p50" "$lag_mean" "$excess" "$estimate" "$backlog" \
        "$adm_p50" "$turn_n" "$turn_p50" "$turn_mean" "$direct"
    done
  done
done
