#!/usr/bin/env bash
# Compares the read results of `ssdlab profile cdm` on a file with fio runs of the same
# parameters (same file, same block size, queue depth, threads, O_DIRECT, io_uring, time per
# pass, best of the passes), and prints ssdlab/fio ratios of MB/s, IOPS and mean latency.
# A benchmark, not a test: the shared virtual disk varies from minute to minute, so the two
# tools run alternately, --rounds times (each round: ssdlab's passes, then fio's), and the
# medians of the per-round ratios are printed after the rounds.
#
# --ram: instead of a file on the (noisy, shared) disk, a loop device over a file in /dev/shm,
# set up and removed here: O_DIRECT reaches the loop driver, so both engines are measured
# against the same steady memory-backed device (the engines' own cost, not the disk's mood).
#
# Usage: bench/cdm_vs_fio.sh [--ssdlab PATH] [--dir DIR] [--size 1GiB] [--passes 3] [--time 5s] [--set cdm|cdm-nvme] [--rounds 1] [--ram]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ssdlab="$here/build/ssdlab"
dir="$here/build/bench-tmp"
size=1GiB
passes=3
time=5s
set=cdm
rounds=1
ram=0
while (($#)); do
  case "$1" in
    --ssdlab) ssdlab=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --time) time=$2; shift 2 ;;
    --set) set=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ram) ram=1; shift ;;
    *) echo "cdm_vs_fio: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$ssdlab" ] || "$here/scripts/build.sh" >/dev/null
command -v fio >/dev/null || { echo "cdm_vs_fio: installing fio" >&2; apt-get install -y -qq fio >/dev/null; }
mkdir -p "$dir"
file="$dir/cdm_vs_fio.img"
# The target is twice the test size; cdm uses its first --size bytes (it writes them first).
twice=$(python3 -c "
import re
s='$size'; m=re.match(r'([0-9.]+)\s*([A-Za-z]*)', s); u={'':1,'K':1024,'KiB':1024,'M':1<<20,'MiB':1<<20,'G':1<<30,'GiB':1<<30}[m.group(2)]
print(int(float(m.group(1))*u*2))")
target_args=(--target-size "$twice")
if ((ram)); then
  img=/dev/shm/ssdlab-cdm-vs-fio.img
  truncate -s "$twice" "$img"
  file=$(losetup -f --show "$img")
  trap 'losetup -d "$file"; rm -f "$img"' EXIT
  target_args=(--destructive)  # our own loop device, made above
fi
db="$dir/cdm_vs_fio.db"
ratios="$dir/cdm_vs_fio.ratios"
rm -f "$db" "$ratios"
secs=${time%s}
for ((round = 1; round <= rounds; round++)); do
rm -f "$db"
"$ssdlab" profile "$set" --target "$file" "${target_args[@]}" --size "$size" --passes "$passes" \
  --time "$time" --pause 1s --db "$db" --run bench --json "$dir/cdm.json" --progress none >/dev/null
python3 - "$dir/cdm.json" "$file" "$size" "$passes" "$secs" "$ratios" <<'PY'
import json, subprocess, sys
doc = json.load(open(sys.argv[1]))
path, size, passes, secs = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
items = doc["tests"][0]["results"]["levels"][0]["results"]["items"]
begin = doc["tests"][0]["results"]["levels"][0]["workspace_begin_bytes"]
size_bytes = doc["tests"][0]["results"]["levels"][0]["results"]["test_file_bytes"]
print(f"{'test':<16} {'ssdlab MB/s':>12} {'fio MB/s':>10} {'ratio':>7} {'IOPS ratio':>10} {'mean lat ratio':>15}")
for it in items:
    rw = "read" if it["name"].startswith("SEQ") else "randread"
    best = None
    for p in range(passes):
        out = subprocess.run(["fio", "--name=cdm", f"--filename={path}", f"--rw={rw}", f"--bs={it['block_bytes']}",
                              f"--iodepth={it['qd']}", f"--numjobs={it['threads']}", "--group_reporting",
                              "--direct=1", "--ioengine=io_uring", f"--offset={begin}", f"--size={size_bytes}",
                              "--time_based", f"--runtime={secs}", "--output-format=json"],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out)["jobs"][0]["read"]
        mbs = r["bw_bytes"] / 1e6
        if best is None or mbs > best[0]:
            best = (mbs, r["iops"], r["lat_ns"]["mean"])
    s = it["read"]
    print(f"{it['name']:<16} {s['mb_s']:>12.1f} {best[0]:>10.1f} {s['mb_s']/best[0]:>7.3f} {s['iops']/best[1]:>10.3f} "
          f"{s['mean_us']*1e3/best[2]:>15.3f}")
    with open(sys.argv[6], "a") as f:
        f.write(json.dumps({"test": it["name"], "mb_s": s["mb_s"] / best[0],
                            "lat": s["mean_us"] * 1e3 / best[2]}) + "\n")
PY
done
python3 - "$ratios" "$rounds" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"medians over {sys.argv[2]} alternated rounds (ssdlab/fio):")
print(f"{'test':<16} {'MB/s ratio':>10} {'mean lat ratio':>15} {'min..max MB/s ratio':>22}")
for name in dict.fromkeys(r["test"] for r in rows):
    m = [r["mb_s"] for r in rows if r["test"] == name]
    l = [r["lat"] for r in rows if r["test"] == name]
    print(f"{name:<16} {statistics.median(m):>10.3f} {statistics.median(l):>15.3f} "
          f"{min(m):>10.3f}..{max(m):.3f}")
PY
