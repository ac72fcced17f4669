#!/usr/bin/env bash
# Installs the Debian 12 packages ssdlab builds and tests with (idempotent, quick when done).
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git clang-format
  liburing-dev libaio-dev libblkid-dev libxxhash-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev
  fio python3 e2fsprogs util-linux
)
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
