#!/usr/bin/env bash
# The whole test suite: installs packages, builds, runs every unit and end-to-end test, then the
# quality gates (docs/testing.md): clang-tidy on src/ and the unit tests under ASan+UBSan.
# With CTest arguments (scripts/test.sh -R X) only those tests run, not the gates.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
cd "$here/build"
ctest --output-on-failure --timeout 900 -j2 "$@"
if (($# == 0)); then
  "$here/scripts/tidy.sh"
  "$here/scripts/sanitize.sh"
fi
