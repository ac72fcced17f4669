// Page-mapped flash translation layer: mapping, block bookkeeping, victim choice. No timing:
// the device (device.h) drives garbage collection step by step and charges NAND time for
// each step it reports.
//
// Data structures (all flat arrays, allocated once; nothing allocates per operation):
//  - l2p[lpn] -> ppn (kNone when unmapped) and p2l[ppn] -> lpn, plus a validity bitmap with
//    one bit per physical page: a physical page is valid iff its bit is set. p2l of an
//    invalid page is stale (or was never set: it is not initialised) and never read. ppn = block *
//    pages_per_block + offset. The bitmap (1 bit per page) stays in cache where p2l (4 bytes per
//    page) would not, so overwriting a page touches only l2p at a random place; p2l is written
//    sequentially at the frontiers and read sequentially in the victim.
//  - per-block metadata in one 16-byte record (valid count, state, bucket links); closed
//    blocks sit in doubly linked lists bucketed by valid count, so the greedy victim (fewest
//    valid pages; Hu et al. 2009, Desnoyers 2012) is found in O(1) amortised from a moving
//    lower bound.
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

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"
#include "sim/fastdiv.h"
#include "sim/huge_array.h"
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

  // PrefetchNextCopy: by the mapping table's size (the default), or always, or never (tests: the
  // hint has no effect on state).
  enum class CopyHint : uint8_t { kBySize, kOn, kOff };

  // fresh = false: the tables are left unset, for a saved state to be loaded into (VisitState)
  // at once; anything else is undefined until then.
  Ftl(const Geometry& g, VictimPolicy policy, uint32_t gc_d, uint64_t seed, bool fresh = true,
      CopyHint hint = CopyHint::kBySize);

  // All blocks erased and free, mapping empty, counters zero (erase counts kept: wear).
  void Reset();

  // Writes logical page `lpn` to the host frontier; returns its new physical page.
  // REQUIRES: lpn < user_pages; free_blocks() >= 1 (the caller runs GC to keep it so).
  uint32_t HostWrite(uint32_t lpn) {
    const uint32_t old = l2p_[lpn];
    if (old != kNone) {
      Unmark(old);
    } else {
      ++mapped_;
    }
    if (host_.next == ppb_) OpenNext(host_);
    const uint32_t ppn = host_.base + host_.next++;
    l2p_[lpn] = ppn;
    p2l_[ppn] = lpn;
    Mark(ppn);
    ++meta_[host_.block].valid;
    ++counters_.host_pages;
    return ppn;
  }
  // Unmaps `lpn` (TRIM); a no-op when unmapped.
  void Trim(uint32_t lpn) {
    const uint32_t old = l2p_[lpn];
    if (old == kNone) return;
    ++counters_.trims;
    l2p_[lpn] = kNone;
    --mapped_;
    Unmark(old);
  }
  uint32_t Lookup(uint32_t lpn) const { return l2p_[lpn]; }
  // Cache hint for a write of `lpn` coming soon: its mapping entry. No effect on state.
  // (Prefetching the validity word and block record the entry points to as well did not pay:
  // they mostly stay in cache.) Always inlined: GCC takes an out-of-line function that only
  // reads memory and prefetches for pure, and drops its calls.
  [[gnu::always_inline]] void PrefetchMapping(uint32_t lpn) const {
    __builtin_prefetch(&l2p_[lpn], 1);
  }

  // --- Garbage collection, one step at a time -------------------------------------------
  // True while a victim is being collected.
  bool collecting() const { return victim_ != kNone; }
  // Chooses the next victim by the policy; false when no closed block would yield space
  // (every candidate is fully valid). REQUIRES: !collecting().
  bool SelectVictim();
  // Valid pages left in the current victim. REQUIRES: collecting().
  uint32_t victim_valid() const { return meta_[victim_].valid; }
  // Moves the next valid page of the victim to the GC frontier: sets *src, *dst and returns
  // true; returns false once the victim holds no valid page (then call EraseVictim()).
  // REQUIRES: collecting(); free_blocks() >= 1.
  bool RelocateNext(uint32_t* src, uint32_t* dst) {
    if (meta_[victim_].valid == 0) return false;
    uint32_t left;
    *src = NextVictimPage();
    *dst = RelocateVictimPage(*src, &left);
    return true;
  }
  // The two halves of RelocateNext for callers that book timing in between:
  // the next valid page of the victim (REQUIRES: collecting(), victim_valid() > 0) ...
  uint32_t NextVictimPage() {
    const uint32_t ppn = NextValid(victim_cursor_, victim_end_);
    victim_cursor_ = ppn + 1;
    // Warm the reverse entries further ahead (sequential).
    __builtin_prefetch(&p2l_[ppn + 64]);
    if (copy_prefetch_) PrefetchNextCopy();
    return ppn;
  }
  // ... and its move to the GC frontier; returns the destination and sets *left to the valid
  // pages left in the victim. (The validity bit of `src` stays set: the victim's cursor has
  // passed it, and EraseVictim clears the whole block.)
  uint32_t RelocateVictimPage(uint32_t src, uint32_t* left) {
    const uint32_t lpn = p2l_[src];
    *left = --meta_[victim_].valid;
    if (gc_.next == ppb_) OpenNext(gc_);
    const uint32_t to = gc_.base + gc_.next++;
    l2p_[lpn] = to;
    p2l_[to] = lpn;
    Mark(to);
    ++meta_[gc_.block].valid;
    ++counters_.gc_copies;
    return to;
  }
  // Erases the collected victim, returns it to the free pool and returns its block number.
  uint32_t EraseVictim();

  // --- Observers --------------------------------------------------------------------------
  uint32_t free_blocks() const { return free_count_; }
  // Lowest free-block count since the last ResetFreeMin() (or Reset()).
  uint32_t free_blocks_min() const { return free_min_; }
  void ResetFreeMin() { free_min_ = free_count_; }
  uint64_t mapped_pages() const { return mapped_; }
  // Pages the host frontier has written in its open block (pages_per_block when none is open:
  // the next write takes a block from the pool).
  uint32_t host_frontier_used() const { return host_.next; }
  uint32_t pages_per_block() const { return ppb_; }
  uint32_t blocks() const { return blocks_; }
  uint32_t BlockOf(uint32_t ppn) const { return block_of_.Div(ppn); }
  uint32_t valid(uint32_t block) const { return meta_[block].valid; }
  uint32_t erase_count(uint32_t block) const { return erase_count_[block]; }
  const FtlCounters& counters() const { return counters_; }
  // Consistency check of every invariant (tests; O(pages)). Returns an empty string when ok.
  std::string CheckInvariants() const;
  uint64_t erase_count_sum() const;
  uint32_t erase_count_max() const;

  // Saved states (sim/state.cc): visits every field of the state in a fixed order with
  // ar.Pod(x), ar.Span(ptr, n) and ar.Mapping(ptr, n, limit) (uint32 arrays of indices below
  // `limit` or kNone). CheckLoaded() checks, after a load, every index the FTL follows without
  // checking (block numbers, list links, cursors); the mapping ranges are checked while reading.
  // Returns what is wrong, or an empty string.
  template <class Ar>
  void VisitState(Ar& ar);
  std::string CheckLoaded() const;
  // Recomputes p2l (not stored) from l2p. REQUIRES: l2p entries < physical pages or kNone.
  void RebuildReverseMap();

 private:
  enum State : uint32_t { kFree, kOpen, kClosed, kVictim };
  struct BlockMeta {
    uint32_t valid;
    State state;
    uint32_t prev;  // bucket list links (closed blocks)
    uint32_t next;
  };
  struct Frontier {
    uint32_t block = kNone;
    uint32_t base = 0;  // block * pages_per_block
    uint32_t next = 0;  // next offset to program in `block`; pages_per_block when none open
  };

  // Cache hint for a copy coming soon: the mapping entry of the victim's next valid page at or
  // after pf_cursor_ (or the copy cursor, if that is further), and pf_cursor_ moves past it.
  // SelectVictim hints the first kCopyPrefetch pages and each copy one more, so the hints run
  // that many copies ahead. A copy rewrites its page's entry, at a random place in l2p. No
  // effect on state (a page overwritten by the host before its copy wastes its hint).
  // Measured with random writes at QD 32 (docs/sim.md, "Speed"): with l2p at 6 MB (the DC400
  // preset at scale 256) the hint took 5-11% off the time on a quiet machine and up to 30% when
  // other work filled the shared cache; at 3 MB it made no difference, and at 1-1.5 MB, where
  // l2p stays in cache, it cost 2-5%: hence copy_prefetch_.
  static constexpr uint32_t kCopyPrefetch = 8;
  static constexpr uint64_t kCopyPrefetchMinL2pBytes = uint64_t{4} << 20;
  [[gnu::always_inline]] void PrefetchNextCopy() {
    const uint32_t from = std::max(pf_cursor_, victim_cursor_);
    if (from >= victim_end_) return;
    const uint32_t at = NextValid(from, victim_end_);
    pf_cursor_ = at + 1;
    if (at < victim_end_) __builtin_prefetch(&l2p_[p2l_[at]], 1);
  }
  bool Valid(uint32_t ppn) const { return (vbits_[ppn >> 6] >> (ppn & 63)) & 1; }
  // The first valid page in [from, end), or end when there is none. REQUIRES: from < end.
  [[gnu::always_inline]] uint32_t NextValid(uint32_t from, uint32_t end) const {
    uint32_t w = from >> 6;
    uint64_t bits = vbits_[w] & (~uint64_t{0} << (from & 63));
    const uint32_t last_w = (end - 1) >> 6;
    while (bits == 0) {
      if (w == last_w) return end;
      bits = vbits_[++w];
    }
    return std::min(end, (w << 6) + static_cast<uint32_t>(__builtin_ctzll(bits)));
  }
  // Clears the validity bits of pages [begin, end); counts the set ones.
  void ClearBits(uint32_t begin, uint32_t end);
  uint64_t CountBits(uint32_t begin, uint32_t end) const;
  void Mark(uint32_t ppn) { vbits_[ppn >> 6] |= uint64_t{1} << (ppn & 63); }
  // Clears the validity of `ppn` and updates its block's count (and bucket).
  void Unmark(uint32_t ppn) {
    vbits_[ppn >> 6] &= ~(uint64_t{1} << (ppn & 63));
    const uint32_t b = block_of_.Div(ppn);
    BlockMeta& m = meta_[b];
    if (m.state != kClosed) {
      --m.valid;
      return;
    }
    // Move b from bucket v to the head of bucket v - 1 (BucketRemove; --valid; BucketInsert).
    const uint32_t v = m.valid;
    if (m.prev != kNone) {
      meta_[m.prev].next = m.next;
    } else {
      head_[v] = m.next;
    }
    if (m.next != kNone) meta_[m.next].prev = m.prev;
    m.valid = v - 1;
    const uint32_t h = head_[v - 1];
    m.next = h;
    m.prev = kNone;
    if (h != kNone) meta_[h].prev = b;
    head_[v - 1] = b;
    if (v - 1 < min_bucket_) min_bucket_ = v - 1;
  }
  void OpenNext(Frontier& f);
  void BucketInsert(uint32_t b) {
    BlockMeta& m = meta_[b];
    const uint32_t v = m.valid;
    m.next = head_[v];
    m.prev = kNone;
    if (head_[v] != kNone) meta_[head_[v]].prev = b;
    head_[v] = b;
    if (v < min_bucket_) min_bucket_ = v;
  }
  void BucketRemove(uint32_t b) {
    BlockMeta& m = meta_[b];
    if (m.prev != kNone) {
      meta_[m.prev].next = m.next;
    } else {
      head_[m.valid] = m.next;
    }
    if (m.next != kNone) meta_[m.next].prev = m.prev;
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
  const bool copy_prefetch_;  // PrefetchNextCopy (kBySize: l2p of kCopyPrefetchMinL2pBytes or more)

  HugeArray<uint32_t> l2p_;
  HugeArray<uint32_t> p2l_;
  HugeArray<uint64_t> vbits_;  // validity, one bit per physical page (+ a zero guard word)
  HugeArray<BlockMeta> meta_;
  std::vector<uint32_t> erase_count_;
  std::vector<uint64_t> closed_seq_;  // host_pages at close (age for cost-benefit)
  std::vector<uint32_t> head_;        // per valid count, pages_per_block + 1 lists
  uint32_t min_bucket_ = 0;
  std::vector<uint32_t> free_ring_;  // FIFO of erased blocks
  uint32_t free_head_ = 0;
  uint32_t free_count_ = 0;
  uint32_t free_min_ = 0;
  std::vector<uint32_t> closed_ring_;  // FIFO of closed blocks (fifo policy), may hold stale ids
  uint64_t closed_head_ = 0;
  uint64_t closed_tail_ = 0;
  Frontier host_;
  Frontier gc_;
  uint32_t victim_ = kNone;
  uint32_t victim_cursor_ = 0;  // next physical page to look at in the victim
  uint32_t victim_end_ = 0;
  uint32_t pf_cursor_ = 0;  // PrefetchNextCopy's (not state: behind victim_cursor_ it is ignored)
  uint64_t mapped_ = 0;
  Rng rng_;
  FtlCounters counters_;
};

}  // namespace ssdlab::sim
