#!/usr/bin/env python3
"""Fails when a module includes a header of a module it may not use.

The allowed directions are docs/architecture.md's table: dependencies point down, towards
base. A source file under src/MODULE/ may include "OTHER/..." only when OTHER is MODULE itself
or is listed for MODULE below; a few single headers are allowed across (the suite's journal
interface, which the store implements). Unit tests (*_test.cc) may also use the store, the
suite and the simulator for their fixtures, never the CLI.

Usage: check_layers.py SRC_DIR   (prints every violation as FILE:LINE: MODULE -> HEADER)
"""
import pathlib
import re
import sys

ALLOWED = {
    "base": set(),
    "workload": {"base"},
    "stats": {"base"},
    "results": {"base", "stats"},
    "backend": {"base", "workload", "stats"},
    "engine": {"base", "workload", "stats", "backend"},
    "sim": {"base", "workload", "stats", "backend"},
    "device": {"base", "workload", "stats", "backend"},
    "trace": {"base", "workload", "stats"},
    "store": {"base", "workload", "stats"},
    "suite": {"base", "workload", "stats", "backend", "results"},
    "report": {"base", "stats", "results"},
    "apps": {"base", "stats", "device", "results"},
    "twin": {"base", "workload", "stats", "backend", "sim", "results"},
    "lab": {"base", "stats", "store"},
    "serve": {"base", "workload", "stats", "backend", "sim", "device"},
    # the use cases: every module but the CLI
    "usecase": {"base", "workload", "stats", "results", "backend", "engine", "sim", "device",
                "trace", "store", "suite", "report", "apps", "twin", "lab", "serve"},
    "cli": None,  # the top: may use everything
}
ALLOWED_HEADERS = {
    "store": {"suite/journal.h"},  # the store implements the suite's RunJournal
}
TEST_EXTRA = {"store", "suite", "sim", "workload", "stats", "base", "backend"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"')


def main() -> int:
    src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    bad = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cc") or len(path.relative_to(src).parts) < 2:
            continue
        module = path.relative_to(src).parts[0]
        if module not in ALLOWED:
            bad.append(f"{path}: module '{module}' is not in scripts/check_layers.py's table")
            continue
        allowed = ALLOWED[module]
        if allowed is None:
            continue
        if path.name.endswith("_test.cc"):
            allowed = allowed | TEST_EXTRA
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            other, header = m.group(1), m.group(1) + "/" + m.group(2)
            if other == module or other in allowed or header in ALLOWED_HEADERS.get(module, ()):
                continue
            if other not in ALLOWED:
                continue  # not one of ours (e.g. "nlohmann/json.hpp" spelled with quotes)
            bad.append(f"{path}:{n}: {module} -> {header}")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} include(s) against the layering", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
