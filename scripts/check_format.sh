#!/usr/bin/env bash
# Fails, listing them, when C++ sources of the repository differ from what clang-format makes of
# them (.clang-format). Usage: check_format.sh [CLANG_FORMAT]
set -euo pipefail
cf=${1:-clang-format}
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  "$cf" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files 'src/*.cc' 'src/*.h' 'tests/*.cc' 'tests/*.h' 'bench/*.cc' 2>/dev/null ||
         find src tests bench -name '*.cc' -o -name '*.h')
if ((${#bad[@]})); then
  printf 'not clang-formatted: %s\n' "${bad[@]}"
  echo "run: clang-format -i ${bad[*]}" >&2
  exit 1
fi
echo "all C++ sources are clang-formatted"
