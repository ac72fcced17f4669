#!/usr/bin/env bash
# The whole test suite: installs packages, builds, runs every unit and end-to-end test.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
cd "$here/build"
ctest --output-on-failure --timeout 900 -j2 "$@"
