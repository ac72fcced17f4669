#!/usr/bin/env bash
# Installs what ssdlab builds and tests with (idempotent, quick when done): Debian 12 packages,
# and the report's charting libraries from npm (pinned by report/web/package-lock.json and
# embedded into the binary at build time).
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git clang-format clang-tidy
  liburing-dev libaio-dev libblkid-dev libxxhash-dev libzstd-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libsqlite3-dev libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev libnlopt-cxx-dev
  fio python3 python3-jsonschema e2fsprogs util-linux chromium
  sysbench mariadb-server postgresql libpq-dev libopenmpi-dev openmpi-bin
  zlib1g-dev libzstd-dev zstd blktrace libfuse3-dev fuse3
)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# npm ci only when node_modules does not match the lock file.
web="$(cd "$(dirname "$0")/.." && pwd)/report/web"
lock_sum=$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$web/node_modules/.ssdlab-lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
  echo "deps: npm ci in report/web" >&2
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock_sum" > "$web/node_modules/.ssdlab-lock-sha256"
fi
