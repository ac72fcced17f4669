#!/usr/bin/env bash
# Configures and builds ssdlab into build/ (RelWithDebInfo: -O2, line tables, precompiled
# headers, warnings as errors): every target, or only the targets named (scripts/main.sh builds
# just the `ssdlab` binary). Uses ccache when installed, told that precompiled headers are in use
# (without `pch_defines,time_macros` it compiles, uncached, every file that uses one).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/deps.sh"
if [ ! -f "$here/build/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_SLOPPINESS=pch_defines,time_macros;ccache")
  fi
  cmake -S "$here" -B "$here/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
fi
ninja -C "$here/build" "$@" >&2
