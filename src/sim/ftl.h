// Page-mapped flash translation layer: mapping, block bookkeeping, victim choice. No timing:
// the device (device.h) drives garbage collection step by step and charges NAND time for
// each step it reports.
//
// Data structures (all flat arrays, allocated once; nothing allocates per operation):
//  - l2p[lpn] -> ppn and p2l[ppn] -> lpn (kNone when free/invalid); a physical page is valid
//    iff p2l[ppn] != kNone. ppn = block * pages_per_block + offset.
//  - per-block valid counts; closed blocks sit in doubly linked lists bucketed by valid count,
//    so the greedy victim (fewest valid pages; Hu et al. 2009, Desnoyers 2012) is found in
//    O(1) amortised from a moving lower bound.
//  - a FIFO pool of erased blocks; two write frontiers (host data, GC data) so relocated data
//    does not mix with new host data (as in Desnoyers 2012 sec. 5 and most firmware).
//  - victim policies: greedy; FIFO (oldest closed block, the "LRU" of Desnoyers 2012);
//    d-choices (best of d random closed blocks; Van Houdt 2013, "A mean field model for a
//    class of garbage collection algorithms in flash-based solid state drives");
//    cost-benefit (max (1-u) * age / (1+u): Rosenblum & Ousterhout 1992 LFS cleaner, in the
//    page-mapped form of Kawaguchi et al. 1995); O(blocks) per victim.
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "sim/fastdiv.h"
#include "sim/params.h"

namespace ssdlab::sim {

struct FtlCounters {
  uint64_t host_pages = 0;  // units written by the host
  uint64_t gc_copies = 0;   // units relocated by GC
  uint64_t erases = 0;
  uint64_t trims = 0;  // units trimmed that were mapped
};

class Ftl {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  Ftl(const Geometry& g, VictimPolicy policy, uint32_t gc_d, uint64_t seed);

  // All blocks erased and free, mapping empty, counters zero (erase counts kept: wear).
  void Reset();

  // Writes logical page `lpn` to the host frontier; returns its new physical page.
  // REQUIRES: lpn < user_pages; free_blocks() >= 1 (the caller runs GC to keep it so).
  uint32_t HostWrite(uint32_t lpn) {
    Invalidate(lpn);
    const uint32_t ppn = Allocate(host_);
    Map(lpn, ppn);
    ++counters_.host_pages;
    return ppn;
  }
  // Unmaps `lpn` (TRIM); a no-op when unmapped.
  void Trim(uint32_t lpn) {
    if (l2p_[lpn] != kNone) ++counters_.trims;
    Invalidate(lpn);
  }
  uint32_t Lookup(uint32_t lpn) const { return l2p_[lpn]; }
  // Cache hints for a write of `lpn` coming soon: the mapping entry, and (once that is in
  // cache) the reverse entry it points to. No effect on state.
  void PrefetchMapping(uint32_t lpn) const { __builtin_prefetch(&l2p_[lpn], 1); }
  void PrefetchReverse(uint32_t lpn) const {
    const uint32_t ppn = l2p_[lpn];
    if (ppn != kNone) __builtin_prefetch(&p2l_[ppn], 1);
  }

  // --- Garbage collection, one step at a time -------------------------------------------
  // True while a victim is being collected.
  bool collecting() const { return victim_ != kNone; }
  // Chooses the next victim by the policy; false when no closed block would yield space
  // (every candidate is fully valid). REQUIRES: !collecting().
  bool SelectVictim();
  // Valid pages left in the current victim. REQUIRES: collecting().
  uint32_t victim_valid() const { return valid_[victim_]; }
  // Moves the next valid page of the victim to the GC frontier: sets *src, *dst and returns
  // true; returns false once the victim holds no valid page (then call EraseVictim()).
  // REQUIRES: collecting(); free_blocks() >= 1.
  bool RelocateNext(uint32_t* src, uint32_t* dst);
  // Erases the collected victim, returns it to the free pool and returns its block number.
  uint32_t EraseVictim();

  // --- Observers --------------------------------------------------------------------------
  uint32_t free_blocks() const { return free_count_; }
  uint64_t mapped_pages() const { return mapped_; }
  uint32_t pages_per_block() const { return ppb_; }
  uint32_t blocks() const { return blocks_; }
  uint32_t BlockOf(uint32_t ppn) const { return block_of_.Div(ppn); }
  uint32_t valid(uint32_t block) const { return valid_[block]; }
  uint32_t erase_count(uint32_t block) const { return erase_count_[block]; }
  const FtlCounters& counters() const { return counters_; }
  // Consistency check of every invariant (tests; O(pages)). Returns an empty string when ok.
  std::string CheckInvariants() const;

 private:
  enum State : uint8_t { kFree, kOpen, kClosed, kVictim };
  struct Frontier {
    uint32_t block = kNone;
    uint32_t next = 0;  // next offset to program in `block`
  };

  void Invalidate(uint32_t lpn) {
    const uint32_t old = l2p_[lpn];
    if (old == kNone) return;
    l2p_[lpn] = kNone;
    p2l_[old] = kNone;
    --mapped_;
    const uint32_t b = block_of_.Div(old);
    if (state_[b] == kClosed) BucketRemove(b);
    --valid_[b];
    if (state_[b] == kClosed) BucketInsert(b);
  }
  void Map(uint32_t lpn, uint32_t ppn) {
    l2p_[lpn] = ppn;
    p2l_[ppn] = lpn;
    ++mapped_;
    ++valid_[block_of_.Div(ppn)];
  }
  uint32_t Allocate(Frontier& f) {
    if (f.block == kNone || f.next == ppb_) OpenNext(f);
    return f.block * ppb_ + f.next++;
  }
  void OpenNext(Frontier& f);
  void BucketInsert(uint32_t b) {
    const uint32_t v = valid_[b];
    next_[b] = head_[v];
    prev_[b] = kNone;
    if (head_[v] != kNone) prev_[head_[v]] = b;
    head_[v] = b;
    if (v < min_bucket_) min_bucket_ = v;
  }
  void BucketRemove(uint32_t b) {
    const uint32_t v = valid_[b];
    if (prev_[b] != kNone) {
      next_[prev_[b]] = next_[b];
    } else {
      head_[v] = next_[b];
    }
    if (next_[b] != kNone) prev_[next_[b]] = prev_[b];
  }
  uint32_t PickGreedy();
  uint32_t PickFifo();
  uint32_t PickDChoices();
  uint32_t PickCostBenefit();

  const uint32_t ppb_;
  const FastDiv block_of_;
  const uint32_t blocks_;
  const uint64_t user_pages_;
  const VictimPolicy policy_;
  const uint32_t gc_d_;
  const uint64_t seed_;

  std::vector<uint32_t> l2p_;
  std::vector<uint32_t> p2l_;
  std::vector<uint32_t> valid_;
  std::vector<uint32_t> erase_count_;
  std::vector<uint64_t> closed_seq_;  // host_pages at close (age for cost-benefit)
  std::vector<State> state_;
  std::vector<uint32_t> head_;  // per valid count, pages_per_block + 1 lists
  std::vector<uint32_t> next_;
  std::vector<uint32_t> prev_;
  uint32_t min_bucket_ = 0;
  std::vector<uint32_t> free_ring_;  // FIFO of erased blocks
  uint32_t free_head_ = 0;
  uint32_t free_count_ = 0;
  std::vector<uint32_t> closed_ring_;  // FIFO of closed blocks (fifo policy), may hold stale ids
  uint64_t closed_head_ = 0;
  uint64_t closed_tail_ = 0;
  Frontier host_;
  Frontier gc_;
  uint32_t victim_ = kNone;
  uint32_t victim_cursor_ = 0;
  uint64_t mapped_ = 0;
  Rng rng_;
  FtlCounters counters_;
};

}  // namespace ssdlab::sim
