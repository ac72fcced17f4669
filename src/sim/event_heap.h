// Priority queues of simulation events ordered by (time, slot): the slot index breaks ties so
// the order, and with it every result, is deterministic. Storage is reserved up front; no
// allocation per operation. EventQueue picks a sorted ring for few slots (new completions
// usually go to the back, so insertion is O(1) in practice and branch-friendly) and a binary
// heap for many; both pop events in exactly the same order.
#pragma once

#include <cstdint>
#include <vector>

namespace ssdlab::sim {

struct Event {
  uint64_t t_ns;
  uint32_t slot;
  uint32_t kind;  // caller-defined

  bool Before(const Event& o) const { return t_ns < o.t_ns || (t_ns == o.t_ns && slot < o.slot); }
};

class EventHeap {
 public:
  void Reserve(size_t n) { v_.reserve(n); }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const Event& top() const { return v_[0]; }

  void Push(const Event& e) {
    size_t i = v_.size();
    v_.push_back(e);
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!v_[i].Before(v_[parent])) break;
      std::swap(v_[i], v_[parent]);
      i = parent;
    }
  }
  void Pop() {
    v_[0] = v_.back();
    v_.pop_back();
    if (!v_.empty()) SiftDown();
  }
  // Replaces the top with `e` (cheaper than Pop + Push).
  void ReplaceTop(const Event& e) {
    v_[0] = e;
    SiftDown();
  }

 private:
  void SiftDown() {
    const size_t n = v_.size();
    size_t i = 0;
    const Event e = v_[0];
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && v_[c + 1].Before(v_[c])) ++c;
      if (!v_[c].Before(e)) break;
      v_[i] = v_[c];
      i = c;
    }
    v_[i] = e;
  }
  std::vector<Event> v_;
};

// Events kept sorted in a ring buffer; insertion scans from the back.
class SortedRing {
 public:
  void Reserve(size_t n) {
    size_t cap = 1;
    while (cap < n + 1) cap *= 2;
    v_.assign(cap, Event{});
    mask_ = cap - 1;
  }
  bool empty() const { return n_ == 0; }
  const Event& top() const { return v_[head_]; }
  void Push(const Event& e) {
    size_t i = n_;
    while (i > 0) {
      const Event& prev = v_[(head_ + i - 1) & mask_];
      if (!e.Before(prev)) break;
      v_[(head_ + i) & mask_] = prev;
      --i;
    }
    v_[(head_ + i) & mask_] = e;
    ++n_;
  }
  void Pop() {
    head_ = (head_ + 1) & mask_;
    --n_;
  }
  void ReplaceTop(const Event& e) {
    Pop();
    Push(e);
  }

 private:
  std::vector<Event> v_;
  size_t mask_ = 0;
  size_t head_ = 0;
  size_t n_ = 0;
};

class EventQueue {
 public:
  static constexpr size_t kRingMax = 256;
  // REQUIRES: at most n events at a time.
  void Reserve(size_t n) {
    ring_mode_ = n <= kRingMax;
    if (ring_mode_) {
      ring_.Reserve(n);
    } else {
      heap_.Reserve(n);
    }
  }
  bool empty() const { return ring_mode_ ? ring_.empty() : heap_.empty(); }
  const Event& top() const { return ring_mode_ ? ring_.top() : heap_.top(); }
  void Push(const Event& e) { ring_mode_ ? ring_.Push(e) : heap_.Push(e); }
  void Pop() { ring_mode_ ? ring_.Pop() : heap_.Pop(); }
  void ReplaceTop(const Event& e) { ring_mode_ ? ring_.ReplaceTop(e) : heap_.ReplaceTop(e); }

 private:
  bool ring_mode_ = true;
  SortedRing ring_;
  EventHeap heap_;
};

}  // namespace ssdlab::sim
