#!/usr/bin/env bash
# The trace fuzz test (src/trace/trace_fuzz_test.cc) and the trace, recorder and simulator unit
# tests under AddressSanitizer and UndefinedBehaviorSanitizer, in a Debug build of their own
# (build-asan/, assertions on); not part of CI. Any sanitizer report fails the run.
#   scripts/asan_trace_fuzz.sh [gtest filter]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/build-asan"
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
ninja -C "$dir" -j2 trace_fuzz_test trace_test backend_test sim_test
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
filter=${1:-*}
"$dir/src/trace/trace_fuzz_test" --gtest_filter="$filter"
"$dir/src/trace/trace_test" --gtest_filter="$filter"
"$dir/src/backend/backend_test" --gtest_filter="$filter"
"$dir/src/sim/sim_test" --gtest_filter="SimBackend.*:LinkCalendar.*"
