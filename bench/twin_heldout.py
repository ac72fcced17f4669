#!/usr/bin/env python3
"""A twin file's held-out figures, twin against base, by more than their median error.

The median of a few held-out errors that fall in two groups (a table whose model errors are
either small or large) moves by a whole group when one figure crosses the gap, so beside the
median this prints the mean absolute log-ratio simulated / measured (each capped at 1, as the
fit's loss caps it) and how many held-out figures the twin predicts better and worse than the
base (by more than 0.01% of the measured value).

With --pool, the held-out figures of all the files are summarised together: the N fits of a
k-fold cross-validation (`sim fit --fold I/N`, I = 0 .. N-1, one seed) hold out each figure
once, so their pool is every figure, each predicted by a twin that did not see it.

Usage: bench/twin_heldout.py [--pool] TWIN.toml [TWIN.toml ...]   (written by `sim fit -o`)
"""
import math
import statistics
import sys
import tomllib


def abs_log(simulated, measured):
    if simulated <= 0 or measured <= 0:
        return 1.0
    return min(1.0, abs(math.log(simulated / measured)))


def summary(figures):
    """Held-out figures of a twin file's [fit] figures: a dict of the measures (None: none)."""
    held = [f for f in figures if f["held_out"]]
    if not held:
        return None

    def rel(f, who):
        return abs(f[who] / f["measured"] - 1)

    better = sum(1 for f in held if rel(f, "twin") < rel(f, "base") - 1e-4)
    worse = sum(1 for f in held if rel(f, "twin") > rel(f, "base") + 1e-4)
    return {
        "n": len(held),
        "median_twin": statistics.median(rel(f, "twin") for f in held),
        "median_base": statistics.median(rel(f, "base") for f in held),
        "abs_log_twin": sum(abs_log(f["twin"], f["measured"]) for f in held) / len(held),
        "abs_log_base": sum(abs_log(f["base"], f["measured"]) for f in held) / len(held),
        "better": better,
        "worse": worse,
    }


def figures_of(path):
    try:
        with open(path, "rb") as f:
            fit = tomllib.load(f).get("fit", {})
    except (OSError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"twin_heldout: {path}: {e}")
    if "figures" not in fit:
        sys.exit(f"twin_heldout: {path}: no [fit] figures (not a twin file of ssdlab sim fit)")
    return fit["figures"]


def report(label, figures):
    s = summary(figures)
    if s is None:
        print(f"{label}: no held-out figures")
        return
    print(f"{label}: held out {s['n']}: median {100 * s['median_twin']:.1f}% (base "
          f"{100 * s['median_base']:.1f}%), mean |log ratio| {s['abs_log_twin']:.3f} (base "
          f"{s['abs_log_base']:.3f}); the twin closer on {s['better']}, farther on "
          f"{s['worse']}")


def main(args):
    pool = args[:1] == ["--pool"]
    paths = args[1:] if pool else args
    if not paths:
        sys.exit("usage: bench/twin_heldout.py [--pool] TWIN.toml [TWIN.toml ...]")
    if pool:
        report(f"{len(paths)} files pooled", [f for p in paths for f in figures_of(p)])
        return
    for path in paths:
        report(path, figures_of(path))


if __name__ == "__main__":
    main(sys.argv[1:])
