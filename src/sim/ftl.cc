#include "sim/ftl.h"

#include <cassert>
#include <string>

namespace ssdlab::sim {

Ftl::Ftl(const Geometry& g, VictimPolicy policy, uint32_t gc_d, uint64_t seed)
    : ppb_(g.pages_per_block),
      block_of_(g.pages_per_block),
      blocks_(g.blocks),
      user_pages_(g.user_pages),
      policy_(policy),
      gc_d_(gc_d == 0 ? 1 : gc_d),
      seed_(seed),
      l2p_(g.user_pages),
      p2l_(g.physical_pages),
      valid_(g.blocks),
      erase_count_(g.blocks, 0),
      closed_seq_(g.blocks),
      state_(g.blocks),
      head_(g.pages_per_block + 1),
      next_(g.blocks),
      prev_(g.blocks),
      free_ring_(g.blocks),
      closed_ring_(g.blocks),
      rng_(seed) {
  Reset();
}

void Ftl::Reset() {
  std::fill(l2p_.begin(), l2p_.end(), kNone);
  std::fill(p2l_.begin(), p2l_.end(), kNone);
  std::fill(valid_.begin(), valid_.end(), 0);
  std::fill(closed_seq_.begin(), closed_seq_.end(), 0);
  std::fill(state_.begin(), state_.end(), kFree);
  std::fill(head_.begin(), head_.end(), kNone);
  std::fill(next_.begin(), next_.end(), kNone);
  std::fill(prev_.begin(), prev_.end(), kNone);
  min_bucket_ = ppb_;
  for (uint32_t b = 0; b < blocks_; ++b) free_ring_[b] = b;
  free_head_ = 0;
  free_count_ = blocks_;
  closed_head_ = closed_tail_ = 0;
  host_ = Frontier{};
  gc_ = Frontier{};
  victim_ = kNone;
  victim_cursor_ = 0;
  mapped_ = 0;
  rng_ = Rng(seed_);
  counters_ = FtlCounters{};
}

void Ftl::OpenNext(Frontier& f) {
  if (f.block != kNone) {
    const uint32_t b = f.block;
    state_[b] = kClosed;
    closed_seq_[b] = counters_.host_pages;
    BucketInsert(b);
    if (policy_ == VictimPolicy::kFifo) closed_ring_[closed_tail_++ % blocks_] = b;
  }
  assert(free_count_ > 0 && "FTL ran out of free blocks: GC did not keep the reserve");
  const uint32_t b = free_ring_[free_head_];
  free_head_ = free_head_ + 1 == blocks_ ? 0 : free_head_ + 1;
  --free_count_;
  state_[b] = kOpen;
  f.block = b;
  f.next = 0;
}

uint32_t Ftl::PickGreedy() {
  while (min_bucket_ < ppb_ && head_[min_bucket_] == kNone) ++min_bucket_;
  return min_bucket_ < ppb_ ? head_[min_bucket_] : kNone;
}

uint32_t Ftl::PickFifo() {
  while (closed_head_ < closed_tail_) {
    const uint32_t b = closed_ring_[closed_head_++ % blocks_];
    if (state_[b] == kClosed) return b;
  }
  return kNone;
}

uint32_t Ftl::PickDChoices() {
  uint32_t best = kNone;
  uint32_t found = 0;
  // Rejection sampling of closed blocks; nearly all blocks are closed in steady state.
  for (uint32_t tries = 0; found < gc_d_ && tries < 64 * gc_d_; ++tries) {
    const uint32_t b = static_cast<uint32_t>(rng_.Below(blocks_));
    if (state_[b] != kClosed) continue;
    ++found;
    if (best == kNone || valid_[b] < valid_[best]) best = b;
  }
  if (best == kNone || valid_[best] >= ppb_) return PickGreedy();
  return best;
}

uint32_t Ftl::PickCostBenefit() {
  uint32_t best = kNone;
  double best_score = -1;
  const double now = static_cast<double>(counters_.host_pages);
  for (uint32_t b = 0; b < blocks_; ++b) {
    if (state_[b] != kClosed || valid_[b] >= ppb_) continue;
    const double u = static_cast<double>(valid_[b]) / ppb_;
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
  state_[b] = kVictim;
  victim_ = b;
  victim_cursor_ = 0;
  return true;
}

bool Ftl::RelocateNext(uint32_t* src, uint32_t* dst) {
  assert(collecting());
  if (valid_[victim_] == 0) return false;
  const uint32_t base = victim_ * ppb_;
  while (victim_cursor_ < ppb_) {
    // Warm the mapping entries of pages a little ahead (sequential p2l, random l2p).
    if (victim_cursor_ + 16 < ppb_) {
      const uint32_t ahead = p2l_[base + victim_cursor_ + 16];
      if (ahead != kNone) __builtin_prefetch(&l2p_[ahead], 1);
    }
    const uint32_t ppn = base + victim_cursor_++;
    const uint32_t lpn = p2l_[ppn];
    if (lpn == kNone) continue;
    p2l_[ppn] = kNone;
    --valid_[victim_];
    const uint32_t to = Allocate(gc_);
    l2p_[lpn] = to;
    p2l_[to] = lpn;
    ++valid_[block_of_.Div(to)];
    ++counters_.gc_copies;
    *src = ppn;
    *dst = to;
    return true;
  }
  assert(false && "victim valid count disagrees with its pages");
  return false;
}

uint32_t Ftl::EraseVictim() {
  assert(collecting() && valid_[victim_] == 0);
  const uint32_t b = victim_;
  state_[b] = kFree;
  ++erase_count_[b];
  free_ring_[(free_head_ + free_count_) % blocks_] = b;
  ++free_count_;
  ++counters_.erases;
  victim_ = kNone;
  return b;
}

std::string Ftl::CheckInvariants() const {
  std::vector<uint32_t> count(blocks_, 0);
  uint64_t mapped = 0;
  for (uint64_t lpn = 0; lpn < user_pages_; ++lpn) {
    const uint32_t ppn = l2p_[lpn];
    if (ppn == kNone) continue;
    ++mapped;
    if (p2l_[ppn] != lpn) return "l2p/p2l disagree at lpn " + std::to_string(lpn);
    ++count[ppn / ppb_];
  }
  if (mapped != mapped_) return "mapped count off";
  uint32_t free_blocks = 0;
  for (uint32_t b = 0; b < blocks_; ++b) {
    if (count[b] != valid_[b]) return "valid count off at block " + std::to_string(b);
    if (state_[b] == kFree) {
      ++free_blocks;
      if (valid_[b] != 0) return "free block with valid pages";
    }
  }
  if (free_blocks != free_count_) return "free count off";
  for (uint32_t v = 0; v <= ppb_; ++v) {
    for (uint32_t b = head_[v]; b != kNone; b = next_[b]) {
      if (state_[b] != kClosed || valid_[b] != v) return "bucket list off";
      if (v < min_bucket_) return "min bucket above a non-empty bucket";
    }
  }
  return "";
}

}  // namespace ssdlab::sim
