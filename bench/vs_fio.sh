#!/usr/bin/env bash
# The engine's scoreboard: `ssdlab run` against fio on a file and on a RAM block device, side
# by side, like for like (exact: both wait for one completion per system call; auto: ssdlab's
# default against fio waiting for the same quarter of the depth), alternated rounds, ratios
# within a round, medians and their spread over the rounds (see vs_fio.py).
# Usage: bench/vs_fio.sh [--rounds 3] [--runtime 4] [--size 1GiB] [--only CASE,...]
#                        [--targets file,ram,ramfs] [--json FILE] [--counters]
#                        [--ssdlab-args "--pin-workers off"]
# --counters: every run under `perf stat` (installed from Debian's linux-perf if missing),
# printing per-I/O context switches and system calls per tool.
# Targets: file (on the build directory's filesystem), ram (the RAM block device, raw) and
# ramfs (ext4 made on the RAM device after its raw cases, and a file on it). The RAM device is /dev/zram0 where the kernel has zram (sized here, reset afterwards; an
# already-used zram0 is left alone and a loop device is used instead), otherwise a loop device
# over a file in /dev/shm. Needs root for the RAM device; without it only the file runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh" >/dev/null
command -v fio >/dev/null || { echo "vs_fio: installing fio" >&2; apt-get install -y -qq fio >/dev/null; }
if [[ " $* " == *" --counters "* ]] && ! command -v perf >/dev/null; then
  echo "vs_fio: installing perf" >&2
  apt-get install -y -qq linux-perf >/dev/null
fi
mkdir -p "$here/build/bench-tmp"

size=1GiB
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "--size" ] && size=${args[$((i + 1))]}
done
bytes=$(numfmt --from=iec "${size%B}" 2>/dev/null || numfmt --from=iec "${size%iB}")

ram="" zram_set=0 loop="" shm=""
ramfs="$here/build/bench-tmp/ramfs"
cleanup() {
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    mountpoint -q "$ramfs" || break
    umount "$ramfs" 2>/dev/null || sleep 0.5
  done
  if [ "$zram_set" = 1 ]; then  # udev may still hold it for a moment after the last run
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      (echo 1 > /sys/block/zram0/reset) 2>/dev/null && break
      sleep 0.5
    done
  fi
  if [ -n "$loop" ]; then losetup -d "$loop"; fi
  if [ -n "$shm" ]; then rm -f "$shm"; fi
}
trap cleanup EXIT
if [ "$(id -u)" = 0 ]; then
  [ -e /sys/block/zram0 ] || modprobe zram num_devices=1 2>/dev/null || true
  if [ -w /sys/block/zram0/disksize ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
    echo "$bytes" > /sys/block/zram0/disksize
    zram_set=1 ram=/dev/zram0
    echo "vs_fio: RAM device /dev/zram0 ($size, $(cat /sys/block/zram0/comp_algorithm | grep -o '\[[^]]*\]'))" >&2
  else
    shm=$(mktemp /dev/shm/vs_fio.XXXXXX)
    truncate -s "$bytes" "$shm"
    loop=$(losetup --find --show --direct-io=on "$shm" 2>/dev/null || losetup --find --show "$shm")
    ram=$loop
    echo "vs_fio: RAM device $loop (loop over $shm; /dev/zram0 is absent or in use)" >&2
  fi
else
  echo "vs_fio: not root, so no RAM device: the file only" >&2
fi
python3 "$here/bench/vs_fio.py" --ssdlab "$here/build/ssdlab" --dir "$here/build/bench-tmp" \
  ${ram:+--ram "$ram" --ramfs "$ramfs"} "$@"
