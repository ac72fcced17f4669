#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy on the project's sources (src/, tests excluded), from
# build/'s compile commands less the precompiled header (clang cannot read GCC's; the header
# only includes what the files include themselves). Any finding fails (exit 1). Needs Debian's
# clang-tidy (scripts/deps.sh installs it) and a configured build/ (scripts/build.sh).
# scripts/test.sh runs it; docs/testing.md says what it checks and costs.
#
# It checks the unity build's batches (SSDLAB_UNITY: build/src/MODULE/CMakeFiles/*/Unity/
# unity_N_cxx.cxx, each including up to 16 of a module's .cc files), not file by file: a batch
# parses the headers once for its 16 files, which costs about a tenth of checking them one by one
# (docs/testing.md). The header filter reports the findings in the included src/ files as it
# does in the headers; the line filter drops the batch file's own `#include "x.cc"` lines
# (bugprone-suspicious-include, which is CMake's doing). Two checks look only at the main file
# of a translation unit, which in a batch is the batch file: misc-unused-using-decls and
# misc-unused-alias-decls. They run file by file, alone, on the files that hold a using-
# declaration or a namespace alias (about half of src/; the checks cost little next to parsing).
# Files outside the unity batches (the plugins' and the binary's own) are checked one by one.
#   scripts/tidy.sh [run-clang-tidy options] [FILE-REGEX...]   e.g. scripts/tidy.sh 'src/results/'
#     (a FILE-REGEX matches the batch's path, build/src/MODULE/..., or the source's, src/MODULE/...)
#   scripts/tidy.sh --self-test   only the check below that the gate can fail
# SSDLAB_JOBS: clang-tidy processes at once (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# Findings are reported in the project's headers and, through a unity batch, its .cc files;
# never in a batch file's own lines (every file name the line filter names passes, any other,
# such as unity_0_cxx.cxx, does not).
header_filter='/src/[a-z_]+/[a-z_/]+\.(h|cc)$'
line_filter='[{"name":".cc"},{"name":".h"}]'
main_file_checks='-*,misc-unused-using-decls,misc-unused-alias-decls'

# The gate must be able to fail: a file with a known bugprone finding must fail under the
# project's configuration, with the check named, checked alone and through a unity batch as the
# gate checks it; and the same file without it must pass both ways.
self_test() {
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/src/planted" "$tmp/build"
  cat >"$tmp/src/planted/planted.cc" <<'CC'
#include <string>
#include <utility>
std::string Twice(std::string s) {
  std::string t = std::move(s);
  return t + s;  // use after move: bugprone-use-after-move
}
CC
  sed 's/return t + s;.*/return t + t;/' "$tmp/src/planted/planted.cc" >"$tmp/src/planted/clean.cc"
  local name out
  for name in planted clean; do
    printf '/* like CMake'"'"'s */\n#include "%s"\n' "$tmp/src/planted/$name.cc" >"$tmp/build/unity_$name.cxx"
  done
  local tidy=(clang-tidy --quiet --config-file="$here/.clang-tidy" --header-filter="$header_filter"
              --line-filter="$line_filter")
  for name in "src/planted/planted.cc" "build/unity_planted.cxx"; do
    if out=$("${tidy[@]}" "$tmp/$name" -- -std=c++20 2>&1); then
      echo "tidy: self-test: a use after move in $name passed clang-tidy; the gate is not working" >&2
      return 1
    fi
    if ! grep -q 'planted\.cc:5:.*bugprone-use-after-move' <<<"$out"; then
      echo "tidy: self-test: the planted use after move in $name failed without its check named:" >&2
      echo "$out" >&2
      return 1
    fi
  done
  for name in "src/planted/clean.cc" "build/unity_clean.cxx"; do
    if ! out=$("${tidy[@]}" "$tmp/$name" -- -std=c++20 2>&1); then
      echo "tidy: self-test: a clean file, $name, failed clang-tidy:" >&2
      echo "$out" >&2
      return 1
    fi
  done
  echo "tidy: self-test: a planted use after move fails, alone and in a unity batch; the clean file passes" >&2
}

self_test
[ "${1:-}" = "--self-test" ] && exit 0

# Two databases: build/tidy/ the unity batches and the files outside them, build/tidy-main/ one
# entry per source file that holds a using-declaration or a namespace alias (its batch's command
# on the file itself).
db="$here/build/tidy"
mkdir -p "$db" "$db-main"
python3 - "$here/build/compile_commands.json" "$db" "$here/src/" <<'PY'
import json, os, re, sys
entries = json.load(open(sys.argv[1]))
db, src = sys.argv[2], sys.argv[3]
batches, main_files = [], []
uses = re.compile(r"^\s*(using\s+[\w:]+::\w+\s*;|namespace\s+\w+\s*=)", re.M)
for e in entries:
    f = e["file"]
    # Less -Werror: clang's own warnings stay fatal (WarningsAsErrors), and NOLINT can name them.
    cmd = re.sub(r" -include \S+cmake_pch\.hxx| -Winvalid-pch| -Werror\b", "", e["command"])
    e = dict(e, command=cmd)
    if "/Unity/unity_" in f:
        members = re.findall(r'^#include "([^"]+)"', open(f).read(), re.M)
        members = [m for m in members if m.startswith(src) and not m.endswith("_test.cc")]
        if not members:
            continue
        batches.append((len(members), e))
    elif f.startswith(src) and not f.endswith("_test.cc"):
        batches.append((1, e))
        members = [f]
    else:
        continue
    for m in members:
        if uses.search(open(m).read()):
            main_files.append(dict(e, file=m, command=e["command"].replace(f, m)))
# The largest batches first: two processes then end together.
batches.sort(key=lambda b: -b[0])
json.dump([e for _, e in batches], open(os.path.join(db, "compile_commands.json"), "w"), indent=1)
json.dump(main_files, open(db + "-main/compile_commands.json", "w"), indent=1)
PY
# The database holds src/ less the tests, so no FILE-REGEX means all of it.
rc=0
run-clang-tidy -quiet -j"${SSDLAB_JOBS:-2}" -p "$db" -header-filter="$header_filter" \
  -line-filter="$line_filter" "$@" || rc=1
# With checks of one's own (-checks=...) the main-file pass has nothing of its own to add.
for arg in "$@"; do [[ $arg == -checks* ]] && exit $rc; done
run-clang-tidy -quiet -j"${SSDLAB_JOBS:-2}" -p "$db-main" -checks="$main_file_checks" "$@" || rc=1
exit $rc
