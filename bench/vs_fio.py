#!/usr/bin/env python3
"""The load engine's scoreboard: `ssdlab run` against fio, side by side, same targets, same run.

Targets: a file on a real filesystem (`--dir`), a RAM block device (`--ram DEV`, set up by
vs_fio.sh: /dev/zram0, or a loop device over /dev/shm) and a file on ext4 on that RAM device
(`--ramfs DIR`, mounted by vs_fio.sh after the RAM device's cases: the filesystem's O_DIRECT
path without a disk's limit, so the tools are the bottleneck). Cases: 4 KiB random read at QD 1, 32
and 128 with 1 and 2 jobs, 4 KiB random write QD32, 128 KiB sequential read QD8.

Each round runs fio default (io_uring, no options), fio tuned (iodepth_batch_submit=QD,
iodepth_batch_complete_min=1, iodepth_batch_complete_max=QD, fixedbufs, registerfiles) and
`ssdlab run` (its defaults: wait for a quarter of the depth, requests forced async where the
target cannot take them without blocking) and `ssdlab run --batch-complete 1 --force-async off`
(exact intervals, the kernel's own io-wq use: the engine before its adaptive default) once each, in an order that rotates from round to round; the figures
are medians over the rounds. Printed per case, as ssdlab/fio ratios against each fio: IOPS
(>1: ssdlab faster), CPU microseconds per I/O (process CPU of the child, user + system,
getrusage; <1: ssdlab cheaper) and mean latency (fio's lat_ns, submission to reap; <1:
ssdlab lower; the criterion is at QD1, where it is not a function of IOPS).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
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
TOOLS = ("fio", "fio-tuned", "ssdlab", "ssdlab-exact")


def run_measured(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"vs_fio: command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu


def fio_run(fio, path, size, runtime, case, tuned):
    _, rw, bs, qd, jobs = case
    cmd = [fio, "--name=bench", f"--filename={path}", f"--size={size}", "--ioengine=io_uring",
           "--direct=1", f"--rw={rw}", f"--bs={bs}k", f"--iodepth={qd}", f"--numjobs={jobs}",
           "--group_reporting", f"--runtime={runtime}", "--time_based", "--output-format=json",
           "--randrepeat=0", "--norandommap"]
    if tuned:
        cmd += ["--fixedbufs=1", "--registerfiles=1", f"--iodepth_batch_submit={qd}",
                "--iodepth_batch_complete_min=1", f"--iodepth_batch_complete_max={qd}"]
    out, cpu = run_measured(cmd)
    job = json.loads(out[out.index("{"):])["jobs"][0]
    ios = job["read"]["total_ios"] + job["write"]["total_ios"]
    secs = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000.0
    # Total latency (fio's lat_ns = slat + clat), as ssdlab measures it: from before the
    # submitting system call to the reap of the completion.
    mean = sum(job[d]["lat_ns"]["mean"] * job[d]["total_ios"] for d in ("read", "write")) / ios
    return {"iops": ios / secs, "mean_ns": mean, "cpu_us_per_io": cpu * 1e6 / ios}


def ssdlab_run(ssdlab, path, runtime, case, block, exact):
    _, rw, bs, qd, jobs = case
    cmd = [ssdlab, "run", "--target", path, "--rw", rw, "--bs", f"{bs}KiB", "--qd", str(qd),
           "--jobs", str(jobs), "--runtime", f"{runtime}s", "--interval", "0", "--json", "-"]
    if exact:
        cmd += ["--batch-complete", "1", "--force-async", "off"]
    if block and rw != "read" and rw != "randread":
        cmd.append("--destructive")
    out, cpu = run_measured(cmd)
    tot = json.loads(out)["results"]["total"]
    return {"iops": tot["iops"], "mean_ns": tot["lat_ns"]["mean"], "cpu_us_per_io": cpu * 1e6 / tot["ios"]}


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
    load = os.getloadavg()
    print(f"vs_fio: {args.rounds} rounds x {args.runtime} s per tool and case, medians; "
          f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'case':<22}{'target':<7}{'ssdlab IOPS':>12}{'CPU us/IO':>10}{'mean':>9}"
          f" | {'vs tuned: IOPS':>14}{'CPU':>6}{'lat':>6} | {'vs default: IOPS':>16}{'CPU':>6}{'lat':>6}"
          f" | {'exact vs tuned: IOPS':>20}{'CPU':>6}{'lat':>6}")
    record = {"rounds": args.rounds, "runtime_s": args.runtime, "load_at_start": load, "cases": []}
    try:
        for setup in targets:
            tname, path, size, block = setup()
            for case in cases:
                samples = {t: [] for t in TOOLS}
                for r in range(args.rounds):
                    order = TOOLS[r % len(TOOLS):] + TOOLS[:r % len(TOOLS)]  # rotate who goes first
                    for tool in order:
                        if tool.startswith("ssdlab"):
                            s = ssdlab_run(args.ssdlab, path, args.runtime, case, block, tool == "ssdlab-exact")
                        else:
                            s = fio_run(args.fio, path, size, args.runtime, case, tool == "fio-tuned")
                        samples[tool].append(s)
                med = {t: {m: statistics.median(x[m] for x in v) for m in v[0]} for t, v in samples.items()}
                ratio = {p: {m: med["ssdlab"][m] / med[p][m] if med[p][m] else float("nan")
                             for m in med[p]} for p in ("fio", "fio-tuned")}
                ratio["exact-vs-tuned"] = {m: med["ssdlab-exact"][m] / med["fio-tuned"][m]
                                          if med["fio-tuned"][m] else float("nan") for m in med["fio-tuned"]}
                s, rt, rd, ra = med["ssdlab"], ratio["fio-tuned"], ratio["fio"], ratio["exact-vs-tuned"]
                print(f"{case[0]:<22}{tname:<7}{s['iops']:>12.0f}{s['cpu_us_per_io']:>10.2f}"
                      f"{s['mean_ns'] / 1e3:>8.1f}u | {rt['iops']:>14.2f}{rt['cpu_us_per_io']:>6.2f}"
                      f"{rt['mean_ns']:>6.2f} | {rd['iops']:>16.2f}{rd['cpu_us_per_io']:>6.2f}{rd['mean_ns']:>6.2f}"
                      f" | {ra['iops']:>20.2f}{ra['cpu_us_per_io']:>6.2f}{ra['mean_ns']:>6.2f}",
                      flush=True)
                record["cases"].append({"case": case[0], "target": tname, "samples": samples,
                                        "median": med, "ratio": ratio})
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
