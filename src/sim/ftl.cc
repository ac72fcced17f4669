#include "sim/ftl.h"

#include <cassert>
#include <string>

namespace ssdlab::sim {

Ftl::Ftl(const Geometry& g, VictimPolicy policy, uint32_t gc_d, uint64_t seed, bool fresh,
         CopyHint hint)
    : ppb_(g.pages_per_block),
      block_of_(g.pages_per_block),
      blocks_(g.blocks),
      user_pages_(g.user_pages),
      policy_(policy),
      gc_d_(gc_d == 0 ? 1 : gc_d),
      seed_(seed),
      copy_prefetch_(hint == CopyHint::kBySize
                         ? g.user_pages * sizeof(uint32_t) >= kCopyPrefetchMinL2pBytes
                         : hint == CopyHint::kOn),
      l2p_(g.user_pages),
      p2l_(g.physical_pages),
      vbits_(g.physical_pages / 64 + 2),
      meta_(g.blocks),
      erase_count_(g.blocks, 0),
      closed_seq_(g.blocks),
      head_(g.pages_per_block + 1),
      free_ring_(g.blocks),
      closed_ring_(g.blocks),
      rng_(seed) {
  if (fresh) Reset();
}

void Ftl::Reset() {
  std::fill(l2p_.begin(), l2p_.end(), kNone);
  std::fill(vbits_.begin(), vbits_.end(), 0);
  std::fill(meta_.begin(), meta_.end(), BlockMeta{0, kFree, kNone, kNone});
  std::fill(closed_seq_.begin(), closed_seq_.end(), 0);
  std::fill(head_.begin(), head_.end(), kNone);
  min_bucket_ = ppb_;
  for (uint32_t b = 0; b < blocks_; ++b) free_ring_[b] = b;
  free_head_ = 0;
  free_count_ = free_min_ = blocks_;
  closed_head_ = closed_tail_ = 0;
  host_ = Frontier{kNone, 0, ppb_};
  gc_ = Frontier{kNone, 0, ppb_};
  victim_ = kNone;
  victim_cursor_ = 0;
  victim_end_ = 0;
  mapped_ = 0;
  rng_ = Rng(seed_);
  counters_ = FtlCounters{};
}

void Ftl::OpenNext(Frontier& f) {
  if (f.block != kNone) {
    const uint32_t b = f.block;
    meta_[b].state = kClosed;
    closed_seq_[b] = counters_.host_pages;
    BucketInsert(b);
    if (policy_ == VictimPolicy::kFifo) closed_ring_[closed_tail_++ % blocks_] = b;
  }
  assert(free_count_ > 0 && "FTL ran out of free blocks: GC did not keep the reserve");
  const uint32_t b = free_ring_[free_head_];
  free_head_ = free_head_ + 1 == blocks_ ? 0 : free_head_ + 1;
  if (--free_count_ < free_min_) free_min_ = free_count_;
  meta_[b].state = kOpen;
  f.block = b;
  f.base = b * ppb_;
  f.next = 0;
}

uint32_t Ftl::PickGreedy() {
  while (min_bucket_ < ppb_ && head_[min_bucket_] == kNone) ++min_bucket_;
  return min_bucket_ < ppb_ ? head_[min_bucket_] : kNone;
}

uint32_t Ftl::PickFifo() {
  while (closed_head_ < closed_tail_) {
    const uint32_t b = closed_ring_[closed_head_++ % blocks_];
    if (meta_[b].state == kClosed) return b;
  }
  return kNone;
}

uint32_t Ftl::PickDChoices() {
  uint32_t best = kNone;
  uint32_t found = 0;
  // Rejection sampling of closed blocks; nearly all blocks are closed in steady state.
  for (uint32_t tries = 0; found < gc_d_ && tries < 64 * gc_d_; ++tries) {
    const uint32_t b = static_cast<uint32_t>(rng_.Below(blocks_));
    if (meta_[b].state != kClosed) continue;
    ++found;
    if (best == kNone || meta_[b].valid < meta_[best].valid) best = b;
  }
  if (best == kNone || meta_[best].valid >= ppb_) return PickGreedy();
  return best;
}

uint32_t Ftl::PickCostBenefit() {
  uint32_t best = kNone;
  double best_score = -1;
  const double now = static_cast<double>(counters_.host_pages);
  for (uint32_t b = 0; b < blocks_; ++b) {
    if (meta_[b].state != kClosed || meta_[b].valid >= ppb_) continue;
    const double u = static_cast<double>(meta_[b].valid) / ppb_;
    const double age = now - static_cast<double>(closed_seq_[b]) + 1;
    const double score = (1 - u) * age / (1 + u);
    if (score > best_score) best_score = score, best = b;
  }
  return best;
}

bool Ftl::SelectVictim() {
  assert(!collecting());
  uint32_t b = kNone;
  switch (policy_) {
    case VictimPolicy::kGreedy:
      b = PickGreedy();
      break;
    case VictimPolicy::kFifo:
      b = PickFifo();
      break;
    case VictimPolicy::kDChoices:
      b = PickDChoices();
      break;
    case VictimPolicy::kCostBenefit:
      b = PickCostBenefit();
      break;
  }
  if (b == kNone) return false;
  BucketRemove(b);
  meta_[b].state = kVictim;
  victim_ = b;
  victim_cursor_ = b * ppb_;
  victim_end_ = victim_cursor_ + ppb_;
  if (copy_prefetch_) {
    pf_cursor_ = victim_cursor_;
    for (uint32_t i = 0; i < kCopyPrefetch; ++i) PrefetchNextCopy();
  }
  return true;
}

uint32_t Ftl::EraseVictim() {
  assert(collecting() && meta_[victim_].valid == 0);
  const uint32_t b = victim_;
  ClearBits(b * ppb_, (b + 1) * ppb_);  // relocated pages kept theirs (RelocateVictimPage)
  meta_[b].state = kFree;
  ++erase_count_[b];
  free_ring_[(free_head_ + free_count_) % blocks_] = b;
  ++free_count_;
  ++counters_.erases;
  victim_ = kNone;
  return b;
}

void Ftl::ClearBits(uint32_t begin, uint32_t end) {
  for (uint32_t p = begin; p < end;) {
    if ((p & 63) == 0 && end - p >= 64) {
      vbits_[p >> 6] = 0;
      p += 64;
    } else {
      vbits_[p >> 6] &= ~(uint64_t{1} << (p & 63));
      ++p;
    }
  }
}

uint64_t Ftl::CountBits(uint32_t begin, uint32_t end) const {
  uint64_t n = 0;
  for (uint32_t p = begin; p < end; ++p) n += Valid(p);
  return n;
}

std::string Ftl::CheckInvariants() const {
  std::vector<uint32_t> count(blocks_, 0);
  uint64_t mapped = 0;
  for (uint64_t lpn = 0; lpn < user_pages_; ++lpn) {
    const uint32_t ppn = l2p_[lpn];
    if (ppn == kNone) continue;
    ++mapped;
    if (p2l_[ppn] != lpn) return "l2p/p2l disagree at lpn " + std::to_string(lpn);
    if (!Valid(ppn)) return "mapped page not marked valid at lpn " + std::to_string(lpn);
    ++count[ppn / ppb_];
  }
  if (mapped != mapped_) return "mapped count off";
  uint64_t marked = 0;
  for (uint64_t w : vbits_) marked += static_cast<uint64_t>(__builtin_popcountll(w));
  // Pages of the victim behind its cursor keep their bits until the erase.
  if (collecting()) marked -= CountBits(victim_ * ppb_, victim_cursor_);
  if (marked != mapped_) return "validity bitmap off";
  uint32_t free_blocks = 0;
  for (uint32_t b = 0; b < blocks_; ++b) {
    if (count[b] != meta_[b].valid) return "valid count off at block " + std::to_string(b);
    if (meta_[b].state == kFree) {
      ++free_blocks;
      if (meta_[b].valid != 0) return "free block with valid pages";
    }
  }
  if (free_blocks != free_count_) return "free count off";
  for (uint32_t v = 0; v <= ppb_; ++v) {
    for (uint32_t b = head_[v]; b != kNone; b = meta_[b].next) {
      if (meta_[b].state != kClosed || meta_[b].valid != v) return "bucket list off";
      if (v < min_bucket_) return "min bucket above a non-empty bucket";
    }
  }
  return "";
}

}  // namespace ssdlab::sim
