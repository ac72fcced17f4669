#!/usr/bin/env bash
# Configures and builds ssdlab into build/ (Release with debug info): every target, or only the
# targets named (scripts/main.sh builds just the `ssdlab` binary). Uses ccache when installed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/deps.sh"
if [ ! -f "$here/build/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$here" -B "$here/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
fi
ninja -C "$here/build" "$@" >&2
