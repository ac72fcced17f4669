#include "stats/histogram_codec.h"

#include <cstddef>

namespace ssdlab {

std::vector<uint64_t> HistogramWords(const Histogram& h) {
  std::vector<uint64_t> words;
  for (auto [low, c] : h.NonEmptyBuckets()) {
    words.push_back(low);
    words.push_back(c);
  }
  return words;
}

std::vector<std::pair<uint64_t, uint64_t>> BucketsOfWords(const std::vector<uint64_t>& w) {
  std::vector<std::pair<uint64_t, uint64_t>> buckets;
  for (size_t k = 0; k + 1 < w.size(); k += 2) buckets.emplace_back(w[k], w[k + 1]);
  return buckets;
}

}  // namespace ssdlab
