#!/usr/bin/env python3
"""The load engine's scoreboard: `ssdlab run` against fio, side by side, same targets, same run.

Targets: a file on a real filesystem (`--dir`), a RAM block device (`--ram DEV`, set up by
vs_fio.sh: /dev/zram0, or a loop device over /dev/shm) and a file on ext4 on that RAM device
(`--ramfs DIR`, mounted by vs_fio.sh after the RAM device's cases: the filesystem's O_DIRECT
path without a disk's limit, so the tools are the bottleneck). Cases: 4 KiB random read at QD 1, 32
and 128 with 1 and 2 jobs, 4 KiB random write QD32, 128 KiB sequential read QD8.

Two like-for-like pairs, each run once per round in an order that rotates from round to round:
- exact: `ssdlab run --batch-complete 1` against fio tuned with iodepth_batch_complete_min=1.
  Both wait for one completion per system call, so every I/O's interval ends at the first reap
  after its completion.
- auto: `ssdlab run` (its default: each system call waits for a quarter of the depth, 1..32,
  engine/options.h AdaptiveWaitMin) against fio tuned with iodepth_batch_complete_min set to
  the same number. Both let an interval include waiting for the rest of its batch.
fio tuned is otherwise the same in both: iodepth_batch_submit=QD, iodepth_batch_complete_max=QD,
fixedbufs, registerfiles (ssdlab refills every free slot each turn, reaps all completions
available, and registers its buffers and files by default). ssdlab's engine choices that fio
leaves off by default stay on in both of its runs (requests forced async where the target
blocks, docs/engine.md "Devices that block").

Printed per case: ssdlab's medians (default policy), then per pair the ssdlab/fio ratios of
IOPS (>1: ssdlab faster), CPU microseconds per I/O (process CPU of the child, user + system,
getrusage, io-wq workers included; <1: ssdlab cheaper) and mean latency (fio's lat_ns,
submission to reap; <1: ssdlab lower). Each ratio is taken within a round (the two tools ran
minutes apart at most) and the median over the rounds is printed, the IOPS ratio with its
spread (min-max over the rounds). With --counters every run goes under `perf stat` and the
medians per I/O of context switches, system calls and io_uring_enter calls are printed for
each tool (the counters cost both tools alike; hardware counters such as instructions are
used where the machine has them).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

# name, rw (fio and ssdlab spell them alike), block size in KiB, queue depth, jobs
CASES = [
    ("4k-randread-qd1", "randread", 4, 1, 1),
    ("4k-randread-qd32", "randread", 4, 32, 1),
    ("4k-randread-qd128", "randread", 4, 128, 1),
    ("4k-randread-qd1-j2", "randread", 4, 1, 2),
    ("4k-randread-qd32-j2", "randread", 4, 32, 2),
    ("4k-randread-qd128-j2", "randread", 4, 128, 2),
    ("4k-randwrite-qd32", "randwrite", 4, 32, 1),
    ("128k-seqread-qd8", "read", 128, 8, 1),
]
TOOLS = ("fio-exact", "ssdlab-exact", "fio-auto", "ssdlab")
PAIRS = (("exact", "ssdlab-exact", "fio-exact"), ("auto", "ssdlab", "fio-auto"))
# Software events only need no PMU; instructions and cycles are added where perf has them.
COUNTERS = ["context-switches", "cpu-migrations", "raw_syscalls:sys_enter",
            "syscalls:sys_enter_io_uring_enter"]
HW_COUNTERS = ["instructions"]


def adaptive_wait_min(qd):
    """engine/options.h AdaptiveWaitMin at a full queue: a quarter of the depth, 1..32."""
    return min(32, max(1, qd // 4))


def perf_events():
    """The counters this machine's perf can read (hardware ones are absent in many VMs)."""
    events = list(COUNTERS)
    for e in HW_COUNTERS:
        p = subprocess.run(["perf", "stat", "-x,", "-e", e, "--", "true"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode == 0 and "<not supported>" not in p.stderr and "<not counted>" not in p.stderr:
            events.append(e)
    return events


def run_measured(cmd, events):
    counts = {}
    out_file = None
    if events:
        fd, out_file = tempfile.mkstemp(prefix="vs_fio_perf.")
        os.close(fd)
        cmd = ["perf", "stat", "-x,", "-o", out_file, "-e", ",".join(events), "--"] + cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out_file:
        with open(out_file) as f:
            for line in f:
                parts = line.strip().split(",")
                if len(parts) > 2 and not line.startswith("#"):
                    try:
                        counts[parts[2]] = float(parts[0])
                    except ValueError:
                        pass
        os.unlink(out_file)
    if p.returncode != 0:
        sys.exit(f"vs_fio: command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu, counts


def per_io(sample, counts, ios):
    for name, value in counts.items():
        sample["per_io:" + name] = value / ios if ios else float("nan")
    return sample


def fio_run(fio, path, size, runtime, case, complete_min, events):
    _, rw, bs, qd, jobs = case
    cmd = [fio, "--name=bench", f"--filename={path}", f"--size={size}", "--ioengine=io_uring",
           "--direct=1", f"--rw={rw}", f"--bs={bs}k", f"--iodepth={qd}", f"--numjobs={jobs}",
           "--group_reporting", f"--runtime={runtime}", "--time_based", "--output-format=json",
           "--randrepeat=0", "--norandommap",
           "--fixedbufs=1", "--registerfiles=1", f"--iodepth_batch_submit={qd}",
           f"--iodepth_batch_complete_min={complete_min}", f"--iodepth_batch_complete_max={qd}"]
    out, cpu, counts = run_measured(cmd, events)
    job = json.loads(out[out.index("{"):])["jobs"][0]
    ios = job["read"]["total_ios"] + job["write"]["total_ios"]
    secs = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000.0
    # Total latency (fio's lat_ns = slat + clat), as ssdlab measures it: from before the
    # submitting system call to the reap of the completion.
    mean = sum(job[d]["lat_ns"]["mean"] * job[d]["total_ios"] for d in ("read", "write")) / ios
    return per_io({"iops": ios / secs, "mean_ns": mean, "cpu_us_per_io": cpu * 1e6 / ios}, counts, ios)


def ssdlab_run(ssdlab, path, runtime, case, block, exact, events, extra=()):
    _, rw, bs, qd, jobs = case
    cmd = [ssdlab, "run", "--target", path, "--rw", rw, "--bs", f"{bs}KiB", "--qd", str(qd),
           "--jobs", str(jobs), "--runtime", f"{runtime}s", "--interval", "0", "--json", "-"]
    cmd += list(extra)
    if exact:
        cmd += ["--batch-complete", "1"]
    if block and rw != "read" and rw != "randread":
        cmd.append("--destructive")
    out, cpu, counts = run_measured(cmd, events)
    tot = json.loads(out)["results"]["total"]
    return per_io({"iops": tot["iops"], "mean_ns": tot["lat_ns"]["mean"],
                   "cpu_us_per_io": cpu * 1e6 / tot["ios"]}, counts, tot["ios"])


def fill(ssdlab, path, size, block):
    """Writes the whole target once with incompressible data, so that both tools read data."""
    cmd = [ssdlab, "run", "--target", path, "--rw", "write", "--bs", "1MiB", "--qd", "16",
           "--interval", "0"]
    if block:
        cmd.append("--destructive")
    else:
        cmd += ["--size", size]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ssdlab", required=True)
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--dir", default=None, help="directory of the test file (a real filesystem)")
    ap.add_argument("--ram", default="", help="RAM block device (set up by vs_fio.sh)")
    ap.add_argument("--size", default="1GiB")
    ap.add_argument("--runtime", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--ramfs", default="", help="mount point for ext4 on the RAM device (made here)")
    ap.add_argument("--targets", default="file,ram,ramfs", help="comma-separated: file, ram, ramfs")
    ap.add_argument("--json", default="", help="also write every sample and median to FILE")
    ap.add_argument("--ssdlab-args", default="",
                    help="more flags for both ssdlab runs, e.g. '--pin-workers off' (one string)")
    ap.add_argument("--counters", action="store_true",
                    help="run every tool under perf stat; print per-I/O context switches and system calls")
    args = ap.parse_args()

    def file_target(name, directory, size):
        path = os.path.join(directory, "vs_fio.dat")
        fill(args.ssdlab, path, size, False)
        return (name, path, os.path.getsize(path), False)

    def ram_target():
        fill(args.ssdlab, args.ram, args.size, True)
        with open(f"/sys/class/block/{os.path.basename(args.ram)}/size") as f:
            return ("ram", args.ram, int(f.read()) * 512, True)

    def ramfs_target():
        # After the raw device's cases: ext4 over the same RAM device, a file of 3/4 of it.
        os.makedirs(args.ramfs, exist_ok=True)
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard", args.ram], check=True)
        subprocess.run(["mount", args.ram, args.ramfs], check=True)
        mounted.append(args.ramfs)
        with open(f"/sys/class/block/{os.path.basename(args.ram)}/size") as f:
            size = int(f.read()) * 512 * 3 // 4 // (1 << 20)
        return file_target("ramfs", args.ramfs, f"{size}MiB")

    want = args.targets.split(",")
    targets = []  # set up lazily, in order: the RAM file system replaces the raw RAM device
    if "file" in want:
        os.makedirs(args.dir, exist_ok=True)
        targets.append(lambda: file_target("file", args.dir, args.size))
    if "ram" in want and args.ram:
        targets.append(ram_target)
    if "ramfs" in want and args.ram and args.ramfs:
        targets.append(ramfs_target)
    mounted = []
    only = set(filter(None, args.only.split(",")))
    cases = [c for c in CASES if not only or c[0] in only]
    events = perf_events() if args.counters else []
    load = os.getloadavg()
    print(f"vs_fio: {args.rounds} rounds x {args.runtime} s per tool and case, ratios within a "
          f"round, medians [min-max] over the rounds; load average at start "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    print("exact: ssdlab --batch-complete 1 / fio iodepth_batch_complete_min=1; auto: ssdlab's "
          "default / fio iodepth_batch_complete_min=QD/4 (1..32); fio otherwise tuned alike"
          + (f"; ssdlab also with {args.ssdlab_args}" if args.ssdlab_args else ""))
    print(f"{'case':<22}{'target':<7}{'ssdlab IOPS':>12}{'CPU us/IO':>10}{'mean':>9}"
          f" | {'exact: IOPS [spread]':>22}{'CPU':>6}{'lat':>6} | {'auto: IOPS [spread]':>22}{'CPU':>6}{'lat':>6}")
    record = {"rounds": args.rounds, "runtime_s": args.runtime, "load_at_start": load,
              "counters": events, "ssdlab_args": args.ssdlab_args, "cases": []}
    try:
        for setup in targets:
            tname, path, size, block = setup()
            for case in cases:
                samples = {t: [] for t in TOOLS}
                wait = adaptive_wait_min(case[3])
                for r in range(args.rounds):
                    order = TOOLS[r % len(TOOLS):] + TOOLS[:r % len(TOOLS)]  # rotate who goes first
                    for tool in order:
                        if tool.startswith("ssdlab"):
                            s = ssdlab_run(args.ssdlab, path, args.runtime, case, block,
                                           tool == "ssdlab-exact", events, args.ssdlab_args.split())
                        else:
                            s = fio_run(args.fio, path, size, args.runtime, case,
                                        1 if tool == "fio-exact" else wait, events)
                        samples[tool].append(s)
                med = {t: {m: statistics.median(x[m] for x in v) for m in v[0]} for t, v in samples.items()}
                ratio = {}
                for pair, mine, theirs in PAIRS:
                    per_round = {m: [a[m] / b[m] if b[m] else float("nan")
                                     for a, b in zip(samples[mine], samples[theirs])]
                                 for m in ("iops", "cpu_us_per_io", "mean_ns")}
                    ratio[pair] = {m: statistics.median(v) for m, v in per_round.items()}
                    ratio[pair]["iops_min"] = min(per_round["iops"])
                    ratio[pair]["iops_max"] = max(per_round["iops"])
                    ratio[pair]["per_round"] = per_round
                s = med["ssdlab"]
                cols = ""
                for pair, _, _ in PAIRS:
                    x = ratio[pair]
                    spread = f"{x['iops']:.2f} [{x['iops_min']:.2f}-{x['iops_max']:.2f}]"
                    cols += f" | {spread:>22}{x['cpu_us_per_io']:>6.2f}{x['mean_ns']:>6.2f}"
                print(f"{case[0]:<22}{tname:<7}{s['iops']:>12.0f}{s['cpu_us_per_io']:>10.2f}"
                      f"{s['mean_ns'] / 1e3:>8.1f}u{cols}", flush=True)
                if events:
                    for tool in TOOLS:
                        m = med[tool]
                        figs = "  ".join(f"{k[len('per_io:'):]} {m[k]:.3f}" for k in m
                                         if k.startswith("per_io:"))
                        print(f"    {tool:<13} {m['iops']:>9.0f} IOPS  per I/O: {figs}", flush=True)
                record["cases"].append({"case": case[0], "target": tname, "adaptive_wait": wait,
                                        "samples": samples, "median": med, "ratio": ratio})
    finally:
        for m in mounted:  # a process that just exited may still hold it for a moment
            for _ in range(20):
                if subprocess.run(["umount", m], stderr=subprocess.DEVNULL).returncode == 0:
                    break
                time.sleep(0.5)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(record, f, indent=1)
    print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          "ratios are ssdlab/fio: IOPS >1 better, CPU and lat <1 better")


if __name__ == "__main__":
    main()
