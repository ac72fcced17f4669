#!/usr/bin/env bash
# The whole test suite: installs packages, builds, runs every unit and end-to-end test, then the
# unit tests again under ASan and UBSan (scripts/sanitize.sh). CTest arguments go to the first.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
(cd "$here/build" && ctest --output-on-failure --timeout 900 -j2 "$@")
"$here/scripts/sanitize.sh"
