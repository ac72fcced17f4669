#!/usr/bin/env python3
"""Fidelity scoreboard: each simulator preset against the published tables of the drive it
imitates (bench/fidelity/seed_*.csv), cell by cell.

  bench/fidelity/scoreboard.py [--ssdlab build/src/cli/ssdlab] [--only 000,002,004]
                               [--work DIR] [--round 10s] [--review-round 60s] [--cells]
                               [--set key=value&...] [--max-median 002=10,...]

For every seed file it runs the preset's tests through `ssdlab` (the simulator, virtual time),
reads the JSON results, and compares each published figure with the model's: error =
model / seed - 1. Cells whose role is `calibration` (figures the preset was fitted to) are
listed apart and left out of the summary, which gives, per preset and per kind of figure
(iops, mb_s, lat_mean_us, lat_p99_us, ...), the number of predicted cells and the median and
worst absolute error. Same binary + same options => the same table (the simulator is
deterministic).

The PTS tests run on a drive whose state moves per round as the reviewed drive's did: the
reviews ran 60 s per cell on the full drive; a cell of --round on a drive of 1/N the size
writes the same share of it when N = review round / round (10 s: scale=6, i.e. 267 GB for the
DC400). --set scale=N overrides it. The profiles run with `--time-scale auto`, their own
durations divided by the scale derived from them (fileio: 120 s at scale 12). The IOPS tests of
000 and 002 (one lab) ran their whole matrix in each one-minute round (IOPS_WHOLE_ROUND): their
cells last --round / the matrix's cells (`--iops-round`), on a drive still fresh from its
sequential preconditioning.

Tails under load: rows of role `bound` are upper bounds, not figures to match: the steady-state
LVI test's (one thread, QD 1-32) p99.9 / p99.99 of a preset whose datasheet states a QoS, or
whose review bounds its tails in words. A QoS bound is a single command's at QD 1; at a depth of
N a command also waits for the N - 1 ahead of it, so there the bound is the QoS plus the point's
own mean latency (Little's law: the queue's wait at the drive's rate); such rows have x = qos.
A bound the review states in words at every depth applies as written. The table beside shows
the points' p99.9, p99.99 and maximum.

Bounds: a seed's median over predicted cells (--max-median), the `bound` rows, and, for the
DC400, when its WSAT reaches the plateau (WSAT_ONSET_ROUNDS, from the review's text); the
scoreboard exits 1 when one is missed or a run failed.
"""
import argparse
import csv
import functools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES = ["iops", "mb_s", "lat_mean_us", "lat_p99_us", "lat_p99_9_us", "lat_p99_99_us",
           "lat_max_us"]
# Latency keys in ssdlab's JSON (ns) for the CSV's columns.
LAT_KEYS = {"lat_mean_us": "mean", "lat_p99_us": "p99", "lat_p99_9_us": "p99_9",
            "lat_p99_99_us": "p99_99", "lat_max_us": "max"}

SEEDS = {
    "000": ("dc-sata-read-intensive", "Kingston DC400 1600 GB"),
    "002": ("dc-sas-write-intensive", "Seagate Nytro 3732 800 GB"),
    "004": ("dc-sata-mixed", "Kingston DC600M 1920 GB"),
}
# When a review's WSAT reached its plateau, in its rounds, as a bound (low, high]: the DC400
# review gives the rounds to the plateau only in a figure, and in its text that the spec's
# standard 360 one-minute rounds no longer reach saturation on drives this large, so the test
# ran 1200.
WSAT_ONSET_ROUNDS = {
    "000": (360, 1200, "000_efd33c3c18d1f214.txt: WSAT text, 360 standard minutes not enough "
            "to reach saturation, the test extended to 1200"),
}
# Reviews whose IOPS test ran the whole matrix (the review spec's 7 mixes x 7 block sizes) in
# each round, rather than a round per cell.
IOPS_WHOLE_ROUND = {
    "000": "000_efd33c3c18d1f214.txt: 'for the first three tests a series of 25 rounds of 1 "
           "minute each'",
    "002": "002_8ae38f7e911466a0.txt: the same lab and methodology text as 000",
}
IOPS_MATRIX_CELLS = 49
# The plateau is reached at the first round from which the mean of this many rounds is
# within ONSET_PCT of the steady-state mean (one round alone can sit on a lazy-GC batch).
ONSET_WINDOW = 10
ONSET_PCT = 10


def bytes_of(bs):
    units = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    bs = bs.lower()
    return int(float(bs[:-1]) * units[bs[-1]]) if bs[-1] in units else int(bs)


def load_seed(seed):
    with open(os.path.join(HERE, "seed_%s.csv" % seed), newline="") as f:
        return list(csv.DictReader(f))


def seconds_of(text):
    """A duration such as 10s, 500ms or 1m in seconds."""
    m = re.fullmatch(r"([0-9.]+)(ms|s|m)", text)
    if not m:
        sys.exit("scoreboard: duration %r: expected e.g. 10s, 500ms or 1m" % text)
    return float(m.group(1)) * {"ms": 1e-3, "s": 1.0, "m": 60.0}[m.group(2)]


def pts_scale(round_len, review_round, query):
    """The scale at which a PTS round of round_len writes the share of the drive that the
    reviews' round of review_round wrote on the full drive (a drive of 1/N the size reaches a
    given state N times sooner); None when the query sets the scale itself."""
    if re.search(r"(^|&)scale=", query):
        return None
    return max(1, round(seconds_of(review_round) / seconds_of(round_len)))


class Runner:
    def __init__(self, ssdlab, work, round_len, verbose, query="", review_round="60s"):
        self.ssdlab, self.work, self.round, self.verbose = ssdlab, work, round_len, verbose
        self.query = "?" + query if query else ""
        self.scale = pts_scale(round_len, review_round, query)
        self.pts_query = self.query
        if self.scale is not None:
            self.pts_query += ("&" if query else "?") + "scale=%d" % self.scale
        self.cache = {}
        self.failures = {}  # name -> the message of a run that failed

    def run(self, name, args):
        """Runs `ssdlab ARGS --json FILE` once per name; returns the parsed JSON, or exits with
        the failure's message (a failed run is not run again)."""
        if name in self.cache:
            return self.cache[name]
        if name in self.failures:
            sys.exit(self.failures[name])
        out = os.path.join(self.work, name + ".json")
        db = os.path.join(self.work, name + ".db")
        for p in (out, db):
            if os.path.exists(p):
                os.remove(p)
        cmd = [self.ssdlab] + args + ["--db", db, "--json", out]
        if self.verbose:
            print("+", " ".join(cmd), file=sys.stderr)
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            self.failures[name] = "scoreboard: %s failed: %s" % (" ".join(cmd),
                                                                 r.stderr.strip()[-500:])
            sys.exit(self.failures[name])
        with open(out) as f:
            self.cache[name] = json.load(f)
        return self.cache[name]

    def pts(self, preset, tests, extra=()):
        name = "pts-%s-%s" % (preset, "-".join(tests))
        return self.run(name, ["pts", "--target", "sim:" + preset + self.pts_query, "--spec",
                               "review", "--tests", ",".join(tests), "--round", self.round,
                               "--wsat-round", self.round, "--progress", "none"] + list(extra))

    def lvi(self, preset, qds):
        """The review spec's LVI test at one thread on the given depths, 4 KiB reads and
        writes, after two capacities of random writes (steady state), with the spec's own
        durations divided by the PTS scale (--time-scale)."""
        args = ["pts", "--spec", "review", "--tests", "lvi", "--lvi-threads", "1",
                "--lvi-qds", ",".join(str(q) for q in qds), "--lvi-bs", "4KiB",
                "--lvi-mixes", "100,0", "--wdpc-capacity", "2x", "--progress", "none"]
        if self.scale is None:
            args += ["--target", "sim:" + preset + self.pts_query]
        else:
            args += ["--target", "sim:" + preset + self.query, "--time-scale", str(self.scale)]
        return self.run("pts-%s-lvi" % preset, args)

    def profile(self, preset, profile, extra=(), targets=None, key=""):
        name = "profile-%s-%s%s" % (preset, profile, key)
        t = []
        for target in targets or ["sim:" + preset + self.query]:
            t += ["--target", target]
        return self.run(name, ["profile", profile, "--time-scale", "auto"] + t + list(extra))


def find_test(doc, name):
    for t in doc["tests"]:
        if t["name"] == name:
            return t
    sys.exit("scoreboard: no test %s in the results" % name)


def direction(read_pct):
    return {100: "read", 0: "write"}.get(read_pct, "total")


def cell_figures(cell, read_pct):
    """The figures of one stored PTS cell (PhaseMetrics) for a CSV row."""
    d = cell[direction(read_pct)]
    lat = d["lat_ns"]
    out = {"iops": cell["total"]["iops"], "mb_s": cell["total"]["bw_bytes_per_s"] / 1e6}
    for col, key in LAT_KEYS.items():
        if key in lat:
            out[col] = lat[key] / 1e3
    return out


def matrix_cell(cells, read_pct, bs):
    name = "rw=%d/%d bs=%dKiB" % (read_pct, 100 - read_pct, bytes_of(bs) // 1024)
    for c in cells:
        if c["cell"] == name:
            return c
    return None


def lvi_point(runner, preset, qds, read_pct, bs, qd):
    """The figures of one LVI point (one thread), with the maximum."""
    for c in find_test(runner.lvi(preset, qds), "lvi")["results"]["curves"]:
        if c["read_pct"] == read_pct and c["block_bytes"] == bytes_of(bs):
            for p in c["points"]:
                if p["threads"] == 1 and p["qd"] == qd:
                    return cell_figures(p, read_pct)
    return None


def model_000_002(runner, preset, row, whole_round=False, lvi_qds=()):
    """Figures of a PTS row (iops, tp, lat, wsat) from the review spec's results; whole_round:
    the IOPS test's whole matrix in one review round."""
    test, rp, bs = row["test"], int(row["read_pct"]), row["block_size"]
    if test == "iops" and whole_round:
        cell_us = int(seconds_of(runner.round) * 1e6 / IOPS_MATRIX_CELLS)
        t = find_test(runner.pts(preset, ["iops"], ["--iops-round", "%dus" % cell_us]), test)
        c = matrix_cell(t["results"]["cells"], rp, bs)
        return cell_figures(c, rp) if c else None
    if test in ("iops", "lat"):
        t = find_test(runner.pts(preset, ["iops", "tp", "lat"]), test)
        c = matrix_cell(t["results"]["cells"], rp, bs)
        return cell_figures(c, rp) if c else None
    if test == "tp":
        t = find_test(runner.pts(preset, ["iops", "tp", "lat"]), "tp")
        for blk in t["results"]["by_block"]:
            if blk["block_bytes"] == bytes_of(bs):
                c = matrix_cell(blk["cells"], rp, bs)
                return cell_figures(c, rp) if c else None
        return None
    if test == "lvi":
        return lvi_point(runner, preset, lvi_qds, rp, bs, int(row["qd"]))
    if test == "wsat":
        t = find_test(runner.pts(preset, ["wsat"]), "wsat")
        if row["x"] == "0":  # fresh: the first round
            return {"iops": t["rounds"][0]["tracking"]["rw=0/100 bs=4KiB iops"]}
        return {"iops": t["steady_state"]["mean"]}
    return None  # not modelled by this scoreboard (e.g. the OP study's IOPS at 1 ms)


def wsat_onset(wsat):
    """(round, capacities written) at which a WSAT test's rounds reach its plateau: the first
    round from which the mean IOPS of ONSET_WINDOW rounds is within ONSET_PCT% of the steady
    state's mean; None when no window is."""
    rounds = wsat["results"]["per_round"]
    plateau = wsat["steady_state"]["mean"]
    iops = [r["total"]["iops"] for r in rounds]
    for i in range(len(iops) - ONSET_WINDOW + 1):
        window = statistics.mean(iops[i:i + ONSET_WINDOW])
        if abs(window / plateau - 1) <= ONSET_PCT / 100:
            return rounds[i]["round"], rounds[i]["written_capacities"]
    return None


def profile_results(doc):
    return doc["tests"][0]["results"]["levels"][0]["results"]


def model_004(runner, preset, row):
    """Figures of a DC600M row from the review-lab profiles."""
    test, rp, bs = row["test"], int(row["read_pct"]), row["block_size"]
    d = "read" if rp == 100 else "write"
    if test == "cdm":
        for i in profile_results(runner.profile(preset, "cdm"))["items"]:
            if i["name"] == "SEQ1M Q8T1":
                return {"mb_s": i[d]["mb_s"]}
    if test == "atto":
        for r in profile_results(runner.profile(preset, "atto"))["rows"]:
            if r["block_bytes"] == bytes_of(bs):
                return {"mb_s": r[d + "_mb_s"]}
    if test == "as-ssd":
        r = profile_results(runner.profile(preset, "as-ssd"))
        return {"mb_s": r["seq" if bs == "16m" else "4k"][d + "_mb_s"]}
    if test in ("fileio", "raid"):
        if test == "raid":
            doc = runner.profile(preset, "fileio", ["--layout", "raid0"], key="-raid0",
                                 targets=["sim:" + preset + runner.query] * 2)
        else:
            doc = runner.profile(preset, "fileio")
        mode = {100: "rndrd", 0: "rndwr"}.get(rp, "rndrw")
        for m in profile_results(doc)["modes"]:
            if m["mode"] == mode:
                return {"iops": m["read_iops"] + m["write_iops"]}
    return None


def error(model, seed):
    return model / seed - 1.0


def tail_bound(row, bound_us, model):
    """The bound of a `bound` row on the model's point: as written, or for a QoS figure (x =
    qos) the QoS at QD 1 and the QoS plus the point's mean latency deeper (see the module's
    doc)."""
    if row["x"] == "qos" and int(row["qd"]) > 1:
        return bound_us + model["lat_mean_us"]
    return bound_us


def print_tails(rows, figures, failed, preset, seed):
    """The `bound` rows: each point's tails and whether it keeps its bound."""
    bounded = [r for r in rows if r[0]["role"] == "bound"]
    if not bounded:
        return
    print("\nSteady-state tails (LVI, one thread) against their bounds (a QoS at QD 1, the QoS "
          "+ the mean latency deeper; the review's own bounds as written):\n")
    print("| bs | read % | QD | figure | bound | model | p99.9 | p99.99 | max | within |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row, f, s, m, _ in bounded:
        point = figures[id(row)]
        bound = tail_bound(row, s, point)
        ok = m <= bound
        print("| %s | %s | %s | %s | %.0f us | %.0f us | %.0f | %.0f | %.0f | %s |" % (
            row["block_size"], row["read_pct"], row["qd"], f, bound, m,
            point.get("lat_p99_9_us", 0), point.get("lat_p99_99_us", 0),
            point.get("lat_max_us", 0), "yes" if ok else "NO"))
        if not ok:
            failed.append("%s (seed %s): LVI %s %s%% read QD %s %s %.0f us above its bound "
                          "%.0f us (%s)" % (preset, seed, row["block_size"], row["read_pct"],
                                            row["qd"], f, m, bound, row["source"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ssdlab", default=os.path.join(HERE, "..", "..", "build", "ssdlab"))
    ap.add_argument("--only", default=",".join(SEEDS))
    ap.add_argument("--work", default=None,
                    help="keep the runs' databases here (default: a temporary directory of "
                    "this invocation, removed at exit)")
    ap.add_argument("--round", default="10s", help="PTS round length (virtual time)")
    ap.add_argument("--review-round", default="60s",
                    help="the reviews' round length; PTS targets get scale=REVIEW_ROUND/ROUND "
                    "unless --set gives a scale")
    ap.add_argument("--set", default="", help="parameters for every target: key=value&...")
    ap.add_argument("--cells", action="store_true", help="also print every cell")
    ap.add_argument("--max-median", default="", metavar="SEED=PCT,...",
                    help="exit 1 when a seed's median abs. error over predicted cells exceeds PCT")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    bounds = {}
    for item in filter(None, a.max_median.split(",")):
        seed, _, pct = item.partition("=")
        try:
            bounds[seed] = float(pct)
        except ValueError:
            sys.exit("scoreboard: --max-median %r: expected SEED=PCT, e.g. 002=10" % item)
        if seed not in SEEDS:
            sys.exit("scoreboard: --max-median %r: no seed %s (seeds: %s)" % (
                item, seed, ",".join(SEEDS)))
    tmp = None
    if a.work is None:  # one directory per invocation: concurrent scoreboards never collide
        tmp = tempfile.TemporaryDirectory(prefix="ssdlab-fidelity-")
        a.work = tmp.name
    os.makedirs(a.work, exist_ok=True)
    runner = Runner(a.ssdlab, a.work, a.round, a.verbose, a.set, a.review_round)
    summary = []
    failed = []  # bounds not met
    run_errors = {}  # the messages of runs that failed, once each (their cells: not scored)
    for seed in a.only.split(","):
        preset, drive = SEEDS[seed]
        seed_rows = load_seed(seed)
        lvi_qds = sorted({int(r["qd"]) for r in seed_rows if r["test"] == "lvi"})
        model_of = model_004 if seed == "004" else functools.partial(
            model_000_002, whole_round=seed in IOPS_WHOLE_ROUND, lvi_qds=lvi_qds)
        rows, not_run = [], 0
        figures = {}  # id(row) -> the model's figures of its cell
        for row in seed_rows:
            try:
                m = model_of(runner, preset, row)
            except SystemExit as e:  # a run that failed: say so, score the rest, exit 1 at the end
                if str(e) not in run_errors:
                    print("scoreboard: %s" % e, file=sys.stderr)
                run_errors[str(e)] = True
                m = None
            figs = [f for f in FIGURES if row[f]]
            figures[id(row)] = m
            if m is None:
                not_run += len(figs)
                continue
            for f in figs:
                if f in m and m[f] > 0:
                    rows.append((row, f, float(row[f]), m[f], error(m[f], float(row[f]))))
                else:
                    not_run += 1
        print("\n### `%s` vs seed %s (%s)\n" % (preset, seed, drive))
        if a.cells:
            print("| role | test | bs | read % | figure | seed | model | error |")
            print("|---|---|---|---|---|---|---|---|")
            for row, f, s, m, e in rows:
                print("| %s | %s | %s | %s | %s | %.4g | %.4g | %+.0f%% |" % (
                    row["role"], row["test"], row["block_size"], row["read_pct"], f, s, m,
                    100 * e))
            print()
        print("| cells | kind | n | median abs. error | worst (cell) |")
        print("|---|---|---|---|---|")
        for role in ("predicted", "calibration"):
            sel = [r for r in rows if r[0]["role"] == role]
            kinds = [("all", sel)] + [(f, [r for r in sel if r[1] == f]) for f in FIGURES]
            for kind, rs in kinds:
                if not rs:
                    continue
                med = statistics.median(abs(r[4]) for r in rs)
                w = max(rs, key=lambda r: abs(r[4]))
                print("| %s | %s | %d | %.0f%% | %+.0f%% (%s %s %s%% %s) |" % (
                    role, kind, len(rs), 100 * med, 100 * w[4], w[0]["test"],
                    w[0]["block_size"], w[0]["read_pct"], w[1]))
                if kind == "all":
                    summary.append((preset, role, len(rs), med, seed))
        print_tails(rows, figures, failed, preset, seed)
        tails = [r for r in rows if r[1] in ("lat_p99_us", "lat_p99_9_us", "lat_p99_99_us")
                 and r[0]["qd"] == "1" and r[0]["role"] != "bound"]
        if tails:
            within = [r for r in tails if 0.5 <= r[3] / r[2] <= 2]
            print("\nQD 1 tails (p99, p99.9, p99.99, all roles) within a factor of 2: %d of %d%s" % (
                len(within), len(tails), "".join(
                    "; out: %s %s %s%% %s %+.0f%%" % (r[0]["test"], r[0]["block_size"],
                                                     r[0]["read_pct"], r[1], 100 * r[4])
                    for r in tails if r not in within)))
        if seed in WSAT_ONSET_ROUNDS:
            low, high, source = WSAT_ONSET_ROUNDS[seed]
            try:
                wsat = find_test(runner.pts(preset, ["wsat"]), "wsat")
            except SystemExit as e:  # the WSAT run failed: counted with the failed runs
                run_errors[str(e)] = True
                wsat = None
            if wsat is not None:
                onset = wsat_onset(wsat)
                at = "round %d, %.2f capacities written" % onset if onset else "no round"
                inside = onset is not None and low < onset[0] <= high
                print("\nWSAT plateau (%d rounds within %d%% of its mean) reached at %s; the "
                      "review: after more than %d and at most %d rounds (%s): %s" % (
                          ONSET_WINDOW, ONSET_PCT, at, low, high, source,
                          "inside" if inside else "OUTSIDE"))
                if not inside:
                    failed.append("%s (seed %s): WSAT plateau reached at %s, outside the "
                                  "review's (%d, %d] rounds" % (preset, seed, at, low, high))
        print("\nPublished figures not scored (no model counterpart run): %d" % not_run)
    print("\n| preset | role | cells | median abs. error |\n|---|---|---|---|")
    for p, role, n, med, seed in summary:
        print("| %s | %s | %d | %.0f%% |" % (p, role, n, 100 * med))
        if role == "predicted" and seed in bounds and 100 * med > bounds[seed]:
            failed.append("above the bound: %s (seed %s): median %.1f%% over %d predicted "
                          "cells, bound %g%%" % (p, seed, 100 * med, n, bounds[seed]))
    if run_errors:
        failed.append("%d run(s) failed, their cells unscored (first: %s)" % (
            len(run_errors), next(iter(run_errors))))
    if failed:
        sys.exit("scoreboard: " + "; ".join(failed))


if __name__ == "__main__":
    main()
