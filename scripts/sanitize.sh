#!/usr/bin/env bash
# The unit tests (src/*/*_test.cc, CTest label `unit`: the trace fuzz test among them) under
# AddressSanitizer and UndefinedBehaviorSanitizer, in a build of their own (build-sanitize/: -O1,
# assertions on, frame pointers kept); any sanitizer report fails the test that made it.
# scripts/test.sh builds it beside the main tests and runs it after them (docs/testing.md: its
# cost); alone, after scripts/deps.sh:   scripts/sanitize.sh [ctest arguments, e.g. -R 'TraceFuzz']
#   scripts/sanitize.sh --build-only   only the build (what scripts/test.sh overlaps with CTest)
# SSDLAB_JOBS: compiles and tests at once (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/build-sanitize"
if [ ! -f "$dir/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null; then  # scripts/build.sh says why the sloppiness
    launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_SLOPPINESS=pch_defines,time_macros;ccache")
  fi
  # -Werror off: GCC warns more, and falsely, on instrumented code; the main build gates warnings.
  cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DSSDLAB_WERROR=OFF "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
    >/dev/null
fi
ninja -C "$dir" -j"${SSDLAB_JOBS:-2}" ssdlab_unit_tests >&2
[ "${1:-}" = "--build-only" ] && exit 0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$dir" -L unit --output-on-failure --timeout 900 -j"${SSDLAB_JOBS:-2}" "$@"
