#!/usr/bin/env python3
"""Fidelity scoreboard: each simulator preset against the published tables of the drive it
imitates (bench/fidelity/seed_*.csv), cell by cell.

  bench/fidelity/scoreboard.py [--ssdlab build/src/cli/ssdlab] [--only 000,002,004]
                               [--work DIR] [--round 10s] [--markdown]

For every seed file it runs the preset's tests through `ssdlab` (the simulator, virtual time),
reads the JSON results, and compares each published figure with the model's: error =
model / seed - 1. Cells whose role is `calibration` (figures the preset was fitted to) are
listed apart and left out of the summary, which gives, per preset and per kind of figure
(iops, mb_s, lat_mean_us, lat_p99_us, ...), the number of predicted cells and the median and
worst absolute error. Same binary + same options => the same table (the simulator is
deterministic).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

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


def bytes_of(bs):
    units = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    bs = bs.lower()
    return int(float(bs[:-1]) * units[bs[-1]]) if bs[-1] in units else int(bs)


def load_seed(seed):
    with open(os.path.join(HERE, "seed_%s.csv" % seed), newline="") as f:
        return list(csv.DictReader(f))


class Runner:
    def __init__(self, ssdlab, work, round_len, verbose):
        self.ssdlab, self.work, self.round, self.verbose = ssdlab, work, round_len, verbose
        self.cache = {}

    def run(self, name, args):
        """Runs `ssdlab ARGS --json FILE` once per name; returns the parsed JSON."""
        if name in self.cache:
            return self.cache[name]
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
            sys.exit("scoreboard: %s failed: %s" % (" ".join(cmd), r.stderr.strip()[-500:]))
        with open(out) as f:
            self.cache[name] = json.load(f)
        return self.cache[name]

    def pts(self, preset, tests, extra=()):
        name = "pts-%s-%s" % (preset, "-".join(tests))
        return self.run(name, ["pts", "--target", "sim:" + preset, "--spec", "review",
                               "--tests", ",".join(tests), "--round", self.round,
                               "--progress", "none"] + list(extra))

    def profile(self, preset, profile, extra=(), targets=None):
        name = "profile-%s-%s" % (preset, profile)
        t = []
        for target in targets or ["sim:" + preset]:
            t += ["--target", target]
        return self.run(name, ["profile", profile] + t + list(extra))


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
