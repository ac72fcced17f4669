// A histogram's interchange encodings, next to the histogram (stats/histogram.h). Two forms, one
// content: its non-empty buckets (lower bound in ns, count), ascending, with the exact moments
// (min, max, sum, sum of squares) kept beside them by whoever stores them.
//   - pairs, [[low, count], ...]: Histogram::NonEmptyBuckets / Histogram::FromBuckets; what the
//     JSON documents hold (the MPI wire in lab/merge.cc, the suite's results, `run --json`);
//   - flat words, [low_0, count_0, low_1, count_1, ...]: HistogramWords / BucketsOfWords; what the
//     results store keeps as a blob of 64-bit words (store/), readable by every stored run.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "stats/histogram.h"

namespace ssdlab {

// h's non-empty buckets flattened: low, count, low, count, ... (an even number of words).
std::vector<uint64_t> HistogramWords(const Histogram& h);
// The (low, count) pairs of `words` (HistogramWords' form); an odd last word is ignored (the
// store refuses such a blob as damaged before decoding it).
std::vector<std::pair<uint64_t, uint64_t>> BucketsOfWords(const std::vector<uint64_t>& words);

}  // namespace ssdlab
