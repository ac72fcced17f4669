#!/usr/bin/env bash
# The whole test suite: installs packages, builds, runs every unit and end-to-end test. With
# SSDLAB_GATES=1 (and no CTest arguments) then the quality gates (docs/testing.md): clang-tidy on
# src/ and the unit tests under ASan+UBSan; they join the default once a whole run is clean.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
cd "$here/build"
ctest --output-on-failure --timeout 900 -j2 "$@"
if (($# == 0)) && [ "${SSDLAB_GATES:-0}" = 1 ]; then
  "$here/scripts/tidy.sh"
  "$here/scripts/sanitize.sh"
fi
