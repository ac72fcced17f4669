#!/usr/bin/env bash
# The whole test suite: installs packages, builds, runs every unit and end-to-end test, and the
# quality gates (docs/testing.md): clang-tidy on src/ and the unit tests under ASan+UBSan. The
# gates' CPU work overlaps CTest's: clang-tidy and the sanitizer build run at the lowest CPU
# priority (nice 19) beside CTest, on what CPU its tests leave idle; the sanitized unit tests run
# once CTest is done (at normal priority, so that their timeouts measure them, not the end-to-end
# tests). The gates' output goes to build/gates/NAME.log, printed when a gate fails.
#   ./scripts/test.sh                     every CTest test, clang-tidy and the sanitizers
#   SSDLAB_GATES=tidy ./scripts/test.sh   every CTest test and clang-tidy (no sanitizers)
#   SSDLAB_GATES=0 ./scripts/test.sh      every CTest test, no gates
#   ./scripts/test.sh -R Store            only those CTest tests, no gates
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gates=${SSDLAB_GATES:-1}
"$here/scripts/build.sh"
cd "$here/build"
if (($# > 0)) || [ "$gates" = 0 ]; then
  exec ctest --output-on-failure --timeout 900 -j2 "$@"
fi

logs="$here/build/gates"
rm -rf "$logs"
mkdir -p "$logs"
# gate NAME COMMAND...: runs it with its output in $logs/NAME.log and its exit status in NAME.rc.
gate() {
  local name=$1 rc=0
  shift
  "$@" >"$logs/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$logs/$name.rc"
}
set -m  # the background gates get their own process group, to be stopped with the script
(
  gate tidy nice -n 19 "$here/scripts/tidy.sh"
  if [ "$gates" = 1 ]; then
    gate sanitize-build nice -n 19 "$here/scripts/sanitize.sh" --build-only
  fi
) &
bg=$!
set +m
trap 'kill -- -$bg 2>/dev/null || true' EXIT

rc=0
ctest --output-on-failure --timeout 900 -j2 || rc=$?
echo "test: CTest done (exit status $rc); waiting for the gates" >&2
wait "$bg"
if [ "$(cat "$logs/sanitize-build.rc" 2>/dev/null)" = 0 ]; then
  gate sanitize "$here/scripts/sanitize.sh"
fi
for name in tidy sanitize-build sanitize; do
  [ -f "$logs/$name.rc" ] || continue
  if [ "$(cat "$logs/$name.rc")" = 0 ]; then
    echo "test: gate $name passed ($logs/$name.log)" >&2
  else
    echo "test: gate $name FAILED (exit status $(cat "$logs/$name.rc")); $logs/$name.log:" >&2
    cat "$logs/$name.log" >&2
    ((rc)) || rc=1
  fi
done
exit $rc
