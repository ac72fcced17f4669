#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy on the project's sources (src/, tests excluded), from
# build/'s compile commands less the precompiled header (clang cannot read GCC's; the header
# only includes what the files include themselves). Any finding fails. Needs Debian's
# clang-tidy and a configured build/ (scripts/build.sh). Not part of scripts/test.sh yet
# (docs/testing.md says what is left).
#   scripts/tidy.sh [FILE-REGEX]      e.g. scripts/tidy.sh 'src/results/.*'
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
db="$here/build/tidy"
mkdir -p "$db"
python3 - "$here/build/compile_commands.json" "$db/compile_commands.json" "$here/src/" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
out = []
for e in entries:
    if not e["file"].startswith(sys.argv[3]) or e["file"].endswith("_test.cc"):
        continue
    cmd = re.sub(r" -include \S+cmake_pch\.hxx| -Winvalid-pch", "", e["command"])
    out.append(dict(e, command=cmd))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
run-clang-tidy -quiet -j2 -p "$db" "${1:-$here/src/.*}"
