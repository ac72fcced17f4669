#!/usr/bin/env python3
"""ssdlab run against fio, side by side, on the same file, in the same run.

For each workload, runs fio (io_uring with default options, and tuned: batched submission
and completion, fixed buffers, registered files) and `ssdlab run` alternately, several rounds,
and prints the ratios ssdlab/fio of IOPS, mean latency, p99 latency and CPU seconds per I/O
(process CPU from getrusage of the child, the same measure for both tools). Medians over the
rounds; the machine is shared and noisy, so read ratios, not absolute numbers.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

WORKLOADS = [
    # name, ssdlab args, fio args, jobs
    ("4k-randread-qd1", ["--rw", "randread", "--bs", "4KiB", "--qd", "1"],
     ["--rw=randread", "--bs=4k", "--iodepth=1"], 1),
    ("4k-randread-qd32", ["--rw", "randread", "--bs", "4KiB", "--qd", "32"],
     ["--rw=randread", "--bs=4k", "--iodepth=32"], 1),
    ("4k-randrw70-qd8x4", ["--rw", "randrw", "--rwmix-read", "70", "--bs", "4KiB", "--qd", "8", "--jobs", "4"],
     ["--rw=randrw", "--rwmixread=70", "--bs=4k", "--iodepth=8", "--numjobs=4", "--group_reporting"], 4),
    # Page-cache hits: no device in the way, so this isolates the engines' own CPU cost.
    ("4k-randread-qd32-cached", ["--rw", "randread", "--bs", "4KiB", "--qd", "32", "--buffered"],
     ["--rw=randread", "--bs=4k", "--iodepth=32", "--direct=0", "--invalidate=0"], 1),
    ("128k-seqwrite-qd32", ["--rw", "write", "--bs", "128KiB", "--qd", "32"],
     ["--rw=write", "--bs=128k", "--iodepth=32"], 1),
]


def run_measured(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"vs_fio: command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu


def fio_run(fio, path, size, runtime, extra, tuned, qd):
    if not any(a.startswith("--direct=") for a in extra):
        extra = extra + ["--direct=1"]
    cmd = [fio, "--name=bench", f"--filename={path}", f"--size={size}", "--ioengine=io_uring",
           f"--runtime={runtime}", "--time_based", "--output-format=json",
           "--randrepeat=0", "--norandommap", "--lat_percentiles=1"] + extra
    if tuned:
        cmd += ["--fixedbufs=1", "--registerfiles=1", f"--iodepth_batch_submit={qd}",
                f"--iodepth_batch_complete_min=1", f"--iodepth_batch_complete_max={qd}"]
    out, cpu = run_measured(cmd)
    job = json.loads(out[out.index("{"):])["jobs"][0]
    ios = job["read"]["total_ios"] + job["write"]["total_ios"]
    secs = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000.0
    # Total latency (submission + completion, fio's lat_ns), as ssdlab measures it: from before
    # the submitting system call to the reaping of the completion. Mean over both directions
    # weighted by I/O count; p99 the larger of the two directions' (fio reports no joint one).
    lat_mean = sum(job[d]["lat_ns"]["mean"] * job[d]["total_ios"] for d in ("read", "write")) / ios
    p99 = max(job[d]["lat_ns"].get("percentile", {}).get("99.000000", 0) for d in ("read", "write")
              if job[d]["total_ios"])
    return {"iops": ios / secs, "mean": lat_mean, "p99": p99, "cpu_per_io": cpu / ios}


def ssdlab_run(ssdlab, path, runtime, extra):
    cmd = [ssdlab, "run", "--target", path, "--runtime", f"{runtime}s", "--interval", "0",
           "--json", "-"] + extra
    out, cpu = run_measured(cmd)
    r = json.loads(out)
    tot = r["results"]["total"]
    p99 = max(r["results"][d]["lat_ns"]["p99"] for d in ("read", "write") if r["results"][d]["ios"])
    return {"iops": tot["iops"], "mean": tot["lat_ns"]["mean"], "p99": p99,
            "cpu_per_io": cpu / tot["ios"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ssdlab", required=True)
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--dir", default=None, help="directory for the test file (a real filesystem)")
    ap.add_argument("--size", default="1GiB")
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    args = ap.parse_args()
    d = tempfile.mkdtemp(prefix="vs_fio.", dir=args.dir)
    path = os.path.join(d, "bench.dat")
    try:
        # Create and fill the file once, so that both tools read real data.
        subprocess.run([args.ssdlab, "run", "--target", path, "--size", args.size, "--rw", "write",
                        "--bs", "1MiB", "--qd", "16", "--interval", "0"], check=True,
                       stdout=subprocess.DEVNULL)
        fio_size = os.path.getsize(path)
        print(f"file {path} ({fio_size >> 20} MiB), {args.rounds} rounds x {args.runtime} s, medians")
        print(f"{'workload':<26}{'peer':<12}{'IOPS':>8}{'mean':>8}{'p99':>8}{'CPU/IO':>8}   "
              f"(ssdlab/fio ratios; IOPS >1 better, others <1 better)")
        only = set(filter(None, args.only.split(",")))
        for name, s_args, f_args, jobs in WORKLOADS:
            if only and name not in only:
                continue
            qd = int(s_args[s_args.index("--qd") + 1])
            samples = {"ssdlab": [], "fio": [], "fio-tuned": []}
            for _ in range(args.rounds):
                samples["fio"].append(fio_run(args.fio, path, fio_size, args.runtime, f_args, False, qd))
                samples["ssdlab"].append(ssdlab_run(args.ssdlab, path, args.runtime, s_args))
                samples["fio-tuned"].append(fio_run(args.fio, path, fio_size, args.runtime, f_args, True, qd))
            med = {k: {m: statistics.median(s[m] for s in v) for m in v[0]} for k, v in samples.items()}
            for peer in ("fio", "fio-tuned"):
                r = {m: med["ssdlab"][m] / med[peer][m] if med[peer][m] else float("nan") for m in med[peer]}
                print(f"{name:<26}{peer:<12}{r['iops']:>8.2f}{r['mean']:>8.2f}{r['p99']:>8.2f}{r['cpu_per_io']:>8.2f}")
            s = med["ssdlab"]
            print(f"{'':<26}{'(ssdlab)':<12}{s['iops']:>8.0f}{s['mean']/1e3:>7.0f}u{s['p99']/1e3:>7.0f}u"
                  f"{s['cpu_per_io']*1e6:>7.1f}u")
    finally:
        subprocess.run(["rm", "-rf", d])


if __name__ == "__main__":
    main()
