// A plain page-mapped FTL written for the tests, the yardstick of the simulator's write
// amplification (issue 44). It shares no code with sim/ftl.h or sim/device.h on purpose: it is
// written the way a textbook states the algorithm, one host page at a time, with no timing.
//
//  - `blocks` erase blocks of `pages_per_block` pages; `user_pages` logical pages mapped to
//    physical pages; two write frontiers (host data, relocated data), each an open block
//    taken from the free pool when the one before is full.
//  - Garbage collection keeps at least `reserve_blocks` blocks in the free pool (the open
//    frontiers are not in it): before each host write, while the pool holds fewer, one victim
//    is collected whole (its valid pages moved to the relocation frontier, then erased).
//  - Victims: greedy (a closed block with the fewest valid pages) or FIFO (the block closed
//    longest ago). Open blocks are never victims.
//
// WA = (host pages + relocated pages) / host pages. Not thread-safe; O(blocks) per victim.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace ssdlab::simtest {

class ReferenceFtl {
 public:
  enum class Policy { kGreedy, kFifo };

  // REQUIRES: user_pages + (reserve_blocks + 3) * pages_per_block <= blocks * pages_per_block.
  ReferenceFtl(uint32_t blocks, uint32_t pages_per_block, uint64_t user_pages,
               uint32_t reserve_blocks, Policy policy)
      : ppb_(pages_per_block),
        reserve_(reserve_blocks),
        policy_(policy),
        l2p_(user_pages, kNone),
        p2l_(uint64_t{blocks} * pages_per_block, kNone),
        valid_(blocks, 0),
        closed_(blocks, false) {
    for (uint32_t b = 0; b < blocks; ++b) free_.push_back(b);
    host_ = Open();
    gc_ = Open();
  }

  void Write(uint64_t lpn) {
    while (free_.size() < reserve_) Collect();
    Invalidate(lpn);
    Program(host_, lpn);
    ++host_pages_;
  }

  uint64_t user_pages() const { return l2p_.size(); }
  uint64_t host_pages() const { return host_pages_; }
  uint64_t relocated_pages() const { return relocated_pages_; }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct Frontier {
    uint32_t block;
    uint32_t next;  // next page offset to program
  };

  Frontier Open() {
    const uint32_t b = free_.front();
    free_.pop_front();
    return Frontier{b, 0};
  }
  void Program(Frontier& f, uint64_t lpn) {
    if (f.next == ppb_) {
      closed_[f.block] = true;
      fifo_.push_back(f.block);
      f = Open();
    }
    const uint64_t ppn = uint64_t{f.block} * ppb_ + f.next++;
    l2p_[lpn] = ppn;
    p2l_[ppn] = lpn;
    ++valid_[f.block];
  }
  void Invalidate(uint64_t lpn) {
    const uint64_t ppn = l2p_[lpn];
    if (ppn == kNone) return;
    p2l_[ppn] = kNone;
    --valid_[ppn / ppb_];
    l2p_[lpn] = kNone;
  }
  uint32_t PickVictim() {
    if (policy_ == Policy::kFifo) {
      const uint32_t b = fifo_.front();
      fifo_.pop_front();
      return b;
    }
    uint32_t best = 0;
    uint32_t best_valid = UINT32_MAX;
    for (uint32_t b = 0; b < valid_.size(); ++b) {
      if (closed_[b] && valid_[b] < best_valid) best = b, best_valid = valid_[b];
    }
    for (auto it = fifo_.begin(); it != fifo_.end(); ++it) {
      if (*it == best) {
        fifo_.erase(it);
        break;
      }
    }
    return best;
  }
  void Collect() {
    const uint32_t victim = PickVictim();
    closed_[victim] = false;
    for (uint64_t ppn = uint64_t{victim} * ppb_; ppn < uint64_t{victim + 1} * ppb_; ++ppn) {
      const uint64_t lpn = p2l_[ppn];
      if (lpn == kNone) continue;
      Invalidate(lpn);
      Program(gc_, lpn);
      ++relocated_pages_;
    }
    free_.push_back(victim);
  }

  const uint32_t ppb_;
  const uint32_t reserve_;
  const Policy policy_;
  std::vector<uint64_t> l2p_;
  std::vector<uint64_t> p2l_;
  std::vector<uint32_t> valid_;
  std::vector<bool> closed_;
  std::deque<uint32_t> free_;  // erased blocks, oldest erased first
  std::deque<uint32_t> fifo_;  // closed blocks, oldest closed first
  Frontier host_;
  Frontier gc_;
  uint64_t host_pages_ = 0;
  uint64_t relocated_pages_ = 0;
};

// Steady-state WA of `ftl` under uniform random single-page overwrites: one sequential fill
// when `fill` (else the random writes start on an empty drive, and the pages they have not
// reached yet hold no flash), `warm_drives` drive writes of random overwrites, then the WA of
// the next `measure_drives` drive writes (relocated + host pages over host pages in that
// stretch).
inline double ReferenceSteadyWa(ReferenceFtl& ftl, bool fill, double warm_drives,
                                double measure_drives, uint64_t seed) {
  const uint64_t n = ftl.user_pages();
  if (fill) {
    for (uint64_t lpn = 0; lpn < n; ++lpn) ftl.Write(lpn);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> pick(0, n - 1);
  const auto warm = static_cast<uint64_t>(warm_drives * static_cast<double>(n));
  for (uint64_t i = 0; i < warm; ++i) ftl.Write(pick(rng));
  const uint64_t host0 = ftl.host_pages(), moved0 = ftl.relocated_pages();
  const auto measure = static_cast<uint64_t>(measure_drives * static_cast<double>(n));
  for (uint64_t i = 0; i < measure; ++i) ftl.Write(pick(rng));
  const double host = static_cast<double>(ftl.host_pages() - host0);
  return (host + static_cast<double>(ftl.relocated_pages() - moved0)) / host;
}

}  // namespace ssdlab::simtest
