// The completion matching of the blktrace and blkparse readers (not exported beyond src/trace/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace ssdlab::trace {

// Holds the last I/O events in a fixed ring until their completion is seen (or the ring is
// full), so that records leave in their original order carrying the recorded response time.
// A completion matches the latest pending event of the same device and sector through a
// direct-mapped table (a collision leaves the older event unmatched). Constant memory.
class CompletionMatcher {
 public:
  static constexpr size_t kRing = 8192;
  static constexpr size_t kTable = 32768;
  CompletionMatcher() : ring_(kRing), table_(kTable) {}

  void Add(const TraceRecord& r, uint64_t sector) {
    Pending& p = ring_[(head_ + size_) % kRing];
    p.rec = r;
    p.issued = false;
    p.done = false;
    Entry& e = table_[Hash(r.device, sector)];
    e.device = r.device;
    e.sector = sector;
    e.seq = seq_base_ + size_;
    e.valid = true;
    ++size_;
  }
  // The driver took the pending I/O (a D event after its Q): its response time then counts
  // from here, the device's share.
  void Issue(uint64_t device, uint64_t sector, uint64_t time_ns) {
    if (Pending* p = Find(device, sector)) {
      p->issued = true;
      p->issue_ns = time_ns;
    }
  }
  void Complete(uint64_t device, uint64_t sector, uint64_t time_ns) {
    Pending* p = Find(device, sector);
    if (!p) return;
    table_[Hash(device, sector)].valid = false;
    const uint64_t from = p->issued ? p->issue_ns : p->rec.time_ns;
    p->done = true;
    p->rec.response_ns = time_ns >= from ? static_cast<int64_t>(time_ns - from) : 0;
    ++matched_;
  }
  // The oldest record when its completion was seen, the ring is full, or `flush`.
  bool Pop(TraceRecord* out, bool flush) {
    if (size_ == 0) return false;
    Pending& p = ring_[head_];
    if (!p.done && size_ < kRing && !flush) return false;
    *out = p.rec;
    head_ = (head_ + 1) % kRing;
    --size_;
    ++seq_base_;
    return true;
  }
  uint64_t matched() const { return matched_; }

 private:
  struct Pending {
    TraceRecord rec;
    uint64_t issue_ns = 0;
    bool issued = false;
    bool done = false;
  };
  Pending* Find(uint64_t device, uint64_t sector) {
    Entry& e = table_[Hash(device, sector)];
    if (!e.valid || e.device != device || e.sector != sector) return nullptr;
    if (e.seq < seq_base_) {  // already emitted
      e.valid = false;
      return nullptr;
    }
    return &ring_[(head_ + (e.seq - seq_base_)) % kRing];
  }
  struct Entry {
    uint64_t device = 0, sector = 0, seq = 0;
    bool valid = false;
  };
  static size_t Hash(uint64_t device, uint64_t sector) {
    uint64_t h = (sector ^ (device * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    return static_cast<size_t>(h >> 49) & (kTable - 1);
  }
  std::vector<Pending> ring_;
  std::vector<Entry> table_;
  size_t head_ = 0, size_ = 0;
  uint64_t seq_base_ = 0;  // sequence number of ring_[head_]
  uint64_t matched_ = 0;
};

}  // namespace ssdlab::trace
