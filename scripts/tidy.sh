#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy on the project's sources (src/, tests excluded), from
# build/'s compile commands less the precompiled header (clang cannot read GCC's; the header
# only includes what the files include themselves). Any finding fails (exit 1). Needs Debian's
# clang-tidy (scripts/deps.sh installs it) and a configured build/ (scripts/build.sh).
# scripts/test.sh runs it; docs/testing.md says what it checks and costs.
#   scripts/tidy.sh [run-clang-tidy options] [FILE-REGEX...]   e.g. scripts/tidy.sh 'src/results/.*'
#   scripts/tidy.sh --self-test   only the check below that the gate can fail
# SSDLAB_JOBS: clang-tidy processes at once (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

# The gate must be able to fail: a file with a known bugprone finding must fail under the
# project's configuration, with the check named, and the same file without it must pass.
self_test() {
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  cat >"$tmp/planted.cc" <<'CC'
#include <string>
#include <utility>
std::string Twice(std::string s) {
  std::string t = std::move(s);
  return t + s;  // use after move: bugprone-use-after-move
}
CC
  sed 's/return t + s;.*/return t + t;/' "$tmp/planted.cc" >"$tmp/clean.cc"
  local out
  if out=$(clang-tidy --quiet --config-file="$here/.clang-tidy" "$tmp/planted.cc" -- -std=c++20 2>&1); then
    echo "tidy: self-test: a use after move passed clang-tidy; the gate is not working" >&2
    return 1
  fi
  if ! grep -q 'bugprone-use-after-move' <<<"$out"; then
    echo "tidy: self-test: the planted use after move failed without its check named:" >&2
    echo "$out" >&2
    return 1
  fi
  if ! out=$(clang-tidy --quiet --config-file="$here/.clang-tidy" "$tmp/clean.cc" -- -std=c++20 2>&1); then
    echo "tidy: self-test: a clean file failed clang-tidy:" >&2
    echo "$out" >&2
    return 1
  fi
  echo "tidy: self-test: a planted use after move fails, the clean file passes" >&2
}

self_test
[ "${1:-}" = "--self-test" ] && exit 0

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
# The database holds src/ less the tests, so no FILE-REGEX means all of it.
run-clang-tidy -quiet -j"${SSDLAB_JOBS:-2}" -p "$db" "$@"
