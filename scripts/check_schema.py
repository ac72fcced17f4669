#!/usr/bin/env python3
"""Checks the documents the real binary writes against docs/schema/results.schema.json.

Runs `ssdlab run`, a whole PTS battery and every kind of profile on the simulator (short
durations: the shapes matter here, not the figures), validates each document against its
definition, and checks that a damaged copy is refused (the check can fail). The `app`
definition needs database servers: tests/e2e_app_test.cc, where they run, validates the
documents it makes with the second form.

Usage: check_schema.py SSDLAB_BINARY SCHEMA_FILE
       check_schema.py --doc KIND DOCUMENT SCHEMA_FILE   (one document against $defs/KIND)
"""
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

USER_PROFILE = Path(__file__).resolve().parent.parent / "profiles" / "mixed-oltp.toml"
QUICK_PTS = ["--spec", "review", "--round", "1s", "--max-rounds", "5", "--window", "3",
             "--wsat-round", "1s", "--wsat-max-rounds", "5", "--lvi-warmup", "200ms",
             "--lvi-measure", "1s", "--hir-cycles", "3", "--hir-baseline", "5s",
             "--xsr", "5s,5s,5s", "--dirth-hist", "2s", "--progress", "none"]


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"ssdlab {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()}")


def validator_of(schema):
    jsonschema.Draft202012Validator.check_schema(schema)

    def validator(kind):
        return jsonschema.Draft202012Validator({"$ref": "#/$defs/" + kind, "$defs": schema["$defs"]})
    return validator


def problems(validator, kind, path, doc):
    """Prints the first errors of `doc` against `kind`; returns how many there are."""
    errors = sorted(validator(kind).iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:10]:
        print(f"{path.name}: {kind} at {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    return len(errors)


def check_one(kind, doc_path, schema_path) -> int:
    validator = validator_of(json.loads(Path(schema_path).read_text()))
    path = Path(doc_path)
    bad = problems(validator, kind, path, json.loads(path.read_text()))
    print(f"{path.name}: {bad} problem(s) against {kind}")
    return 1 if bad else 0


def main() -> int:
    if sys.argv[1] == "--doc":
        return check_one(sys.argv[2], sys.argv[3], sys.argv[4])
    binary, schema_path = sys.argv[1], sys.argv[2]
    schema = json.loads(Path(schema_path).read_text())
    validator = validator_of(schema)

    bad = 0
    with tempfile.TemporaryDirectory(prefix="ssdlab_schema_") as tmp:
        t = Path(tmp)
        docs = []
        run(binary, ["run", "--target", "sim:tiny", "--rw", "randrw", "--bs", "4KiB",
                     "--runtime", "2s", "--interval", "500ms", "--json", str(t / "run.json")])
        docs.append(("run", t / "run.json"))
        run(binary, ["pts", "--target", "sim:tiny?logical_block=512", "--db", str(t / "p.db"),
                     "--json", str(t / "pts.json")] + QUICK_PTS)
        docs.append(("pts", t / "pts.json"))
        for name, extra in [("cdm", ["--size", "64MiB", "--time", "500ms", "--passes", "1",
                                     "--pause", "0s", "--fill", "0,50"]),
                            ("atto", ["--size", "16MiB", "--time", "200ms"]),
                            ("surface", ["--segments", "8"]),
                            ("as-ssd", ["--size", "16MiB", "--time", "200ms"]),
                            ("fileio", ["--threads", "8", "--time", "200ms"]),
                            ("sql", ["--time", "200ms", "--ramp", "0", "--points", "50,100"]),
                            ("fill", ["--percent", "25"]),
                            ("op-advisor", ["--op", "0,20", "--time", "2s", "--interval", "500ms"]),
                            (str(USER_PROFILE), [])]:
            out = t / f"profile-{Path(name).stem}.json"
            run(binary, ["profile", name, "--target", "sim:tiny", "--db", str(t / "q.db"),
                         "--json", str(out), "--progress", "none"] + extra)
            docs.append(("profile", out))
        for kind, path in docs:
            doc = json.loads(path.read_text())
            bad += problems(validator, kind, path, doc)
            # A damaged copy must be refused: a number turned into text, a required key dropped.
            damaged = copy.deepcopy(doc)
            damaged.pop("context")
            if validator(kind).is_valid(damaged):
                print(f"{path.name}: a copy without its context passed the {kind} schema")
                bad += 1
        pts = json.loads((t / "pts.json").read_text())
        cdm = json.loads((t / "profile-cdm.json").read_text())
        cdm["tests"][0]["results"]["levels"][0]["results"]["items"][0]["read"]["mb_s"] = "fast"
        if validator("profile").is_valid(cdm):
            print("profile-cdm.json: MB/s given as text passed the schema")
            bad += 1
        damaged = copy.deepcopy(pts)
        damaged["tests"][0]["results"]["cells"][0]["total"]["iops"] = "fast"
        if validator("pts").is_valid(damaged):
            print("pts.json: IOPS given as text passed the schema")
            bad += 1
    print(f"{len(docs)} documents checked, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
