// Priority queues of simulation events ordered by (time, slot): the slot index breaks ties so
// the order, and with it every result, is deterministic. Storage is reserved up front; no
// allocation per operation. EventQueue switches between a sorted run (cheap while new
// completions go near the back) and a tournament tree over slots (O(log slots) wherever they
// go); both pop events in exactly the same order.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ssdlab::sim {

struct Event {
  Event() = default;
  Event(uint64_t t, uint32_t s, uint32_t k) : t_ns(t), kind(k), slot(s) {}
  uint64_t t_ns = 0;
  // kind then slot: read as one little-endian word they order by slot (a slot has at most one
  // event, so kind never decides), and (t_ns, that word) compares as one 128-bit key.
  uint32_t kind = 0;  // caller-defined, 0 or 1 (TournamentTree keeps it in one bit)
  uint32_t slot = 0;

  unsigned __int128 Key() const {
    uint64_t lo;
    std::memcpy(&lo, &kind, sizeof lo);
    return (static_cast<unsigned __int128>(t_ns) << 64) | lo;
  }
  bool Before(const Event& o) const { return Key() < o.Key(); }
};
static_assert(sizeof(Event) == 16);

// A tournament (winner) tree over slots, for events keyed by slot: each slot holds at most one
// event, a leaf per slot, each inner node the winner (earliest event) of its subtree. Changing
// one slot's event replays only its path to the root: log2(slots) matches of one comparison
// each, without branches or data moves (Knuth, TAOCP vol. 3, 5.4.1). Keys are
// (time << (slot bits + 1) | slot << 1 | kind) in 64 bits: a slot has at most one event, so the
// kind never decides the order, and it travels in the key. Only times below max_time() fit
// (2^54 ns, over 200 days, with 512 slots); EventQueue uses the sorted run for anything later.
// kFixedBits > 0: always 2^kFixedBits leaves, the replay loop unrolled (no loop counter).
// REQUIRES (all operations): event kinds 0 or 1.
template <uint32_t kFixedBits = 0>
class TournamentTreeOf {
 public:
  // REQUIRES: slots < n; n <= 2^kFixedBits if kFixedBits > 0.
  void Reserve(size_t n) {
    m_ = 1;
    bits_ = 0;
    while (m_ < n || bits_ < kFixedBits) m_ *= 2, ++bits_;
    node_.assign(2 * m_, kEmpty);
    shift_ = bits_ + 1;
    mask_ = static_cast<uint32_t>(m_ - 1);
    max_time_ = (kEmpty >> shift_) - 1;
    count_ = 0;
  }
  // Times below this fit the keys.
  uint64_t max_time() const { return max_time_; }
  bool empty() const { return count_ == 0; }
  [[gnu::always_inline]] Event top() const { return EventOf(node_[1]); }
  // REQUIRES (all that follow): e.t_ns < max_time().
  void Push(const Event& e) {
    ++count_;
    Replay(e.slot, KeyOf(e));
  }
  void Pop() {
    --count_;
    Replay(SlotOf(node_[1]), kEmpty);
  }
  // Pop() then Push(e) of the popped slot's next event: one replay.
  // REQUIRES: e.slot == top().slot.
  [[gnu::always_inline]] void ReplaceTop(const Event& e) {
    assert(e.slot == SlotOf(node_[1]));
    Replay(e.slot, KeyOf(e));
  }
  // The events in pop order.
  void Export(std::vector<Event>* out) const {
    out->clear();
    for (uint32_t s = 0; s < m_; ++s) {
      const uint64_t k = node_[m_ + s];
      if (k != kEmpty) out->push_back(EventOf(k));
    }
    std::sort(out->begin(), out->end(), [](const Event& a, const Event& b) { return a.Before(b); });
  }
  void Import(const std::vector<Event>& events) {
    std::fill(node_.begin(), node_.end(), kEmpty);
    for (const Event& e : events) node_[m_ + e.slot] = KeyOf(e);
    count_ = events.size();
    for (size_t i = m_ - 1; i >= 1; --i) node_[i] = std::min(node_[2 * i], node_[2 * i + 1]);
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;  // above every event's key

  // The time's position in a key and the slot mask (constants when the leaves are fixed).
  [[gnu::always_inline]] uint32_t shift() const { return kFixedBits ? kFixedBits + 1 : shift_; }
  [[gnu::always_inline]] uint32_t mask() const {
    return kFixedBits ? (uint32_t{1} << kFixedBits) - 1 : mask_;
  }
  [[gnu::always_inline]] uint64_t KeyOf(const Event& e) const {
    return (e.t_ns << shift()) | (uint64_t{e.slot} << 1) | e.kind;
  }
  [[gnu::always_inline]] uint32_t SlotOf(uint64_t k) const {
    return static_cast<uint32_t>(k >> 1) & mask();
  }
  [[gnu::always_inline]] Event EventOf(uint64_t k) const {
    return Event(k >> shift(), SlotOf(k), static_cast<uint32_t>(k & 1));
  }
  // Sets the leaf of `slot` to `k` and replays its path.
  [[gnu::always_inline]] void Replay(uint32_t slot, uint64_t k) {
    uint64_t* const node = node_.data();
    size_t i = m_ + slot;
    node[i] = k;
    const uint32_t levels = kFixedBits ? kFixedBits : bits_;
#pragma GCC unroll 8
    for (uint32_t l = levels; l != 0; --l) {
      const uint64_t sibling = node[i ^ 1];
      k = sibling < k ? sibling : k;
      i >>= 1;
      node[i] = k;
    }
  }

  size_t m_ = 1;  // leaves (slots), a power of two
  uint32_t bits_ = 0;
  uint32_t shift_ = 1;  // bits_ + 1: the time's position in a key
  uint32_t mask_ = 0;   // m_ - 1
  uint64_t max_time_ = 0;
  std::vector<uint64_t> node_;  // [1, m_): the earliest key of the subtree; [m_, 2 m_): slots
  size_t count_ = 0;
};
using TournamentTree = TournamentTreeOf<>;

// Events kept sorted in a linear buffer: the queue is v_[head_, end_); popping advances head_,
// insertion scans from the back, and the live part moves back to the start when it reaches
// the end of the buffer (every kSpan pops or so). v_[head_ - 1] always holds a key no greater
// than any queued or future event (the last popped event, or a zero sentinel), so the scan
// needs no bounds check.
// REQUIRES (of the caller): no event is pushed with a key below the last popped one (events
// are never scheduled in the past), which a discrete-event loop guarantees.
class SortedRing {
 public:
  static constexpr size_t kSpan = 4096;
  void Reserve(size_t n) {
    v_.assign(1 + kSpan + n + 1, Event{});
    head_ = end_ = 1;
  }
  bool empty() const { return head_ == end_; }
  const Event& top() const { return v_[head_]; }
  void Push(const Event e) {
    if (end_ == v_.size()) Compact();
    const uint64_t t = e.t_ns;
    Event* p = v_.data() + end_;
    // Later times first (compared alone), then equal times with a larger slot.
    while (t < p[-1].t_ns) {
      *p = p[-1];
      --p;
    }
    while (t == p[-1].t_ns && e.slot < p[-1].slot) {
      *p = p[-1];
      --p;
    }
    shifts_ += static_cast<size_t>(v_.data() + end_ - p);
    *p = e;
    ++end_;
  }
  // Time of the latest queued event (REQUIRES: !empty()).
  uint64_t last_time() const { return v_[end_ - 1].t_ns; }
  // Events moved by insertions since the last call.
  size_t TakeShifts() {
    const size_t n = shifts_;
    shifts_ = 0;
    return n;
  }
  void Export(std::vector<Event>* out) const {
    out->assign(v_.begin() + static_cast<std::ptrdiff_t>(head_),
                v_.begin() + static_cast<std::ptrdiff_t>(end_));
  }
  void Import(const std::vector<Event>& sorted) {
    std::copy(sorted.begin(), sorted.end(), v_.begin() + 1);
    v_[0] = Event{};
    head_ = 1;
    end_ = 1 + sorted.size();
    shifts_ = 0;
  }
  void Pop() { ++head_; }
  void ReplaceTop(const Event e) {
    Pop();
    Push(e);
  }

 private:
  [[gnu::noinline]] void Compact() {
    std::copy(v_.begin() + static_cast<std::ptrdiff_t>(head_),
              v_.begin() + static_cast<std::ptrdiff_t>(end_), v_.begin() + 1);
    v_[0] = Event{};
    end_ -= head_ - 1;
    head_ = 1;
  }
  std::vector<Event> v_;
  size_t head_ = 1;
  size_t end_ = 1;
  size_t shifts_ = 0;
};

// The queue of a single slot (one job at queue depth 1): at most one event, no ordering work.
class SingleEventQueue {
 public:
  // REQUIRES: n == 1.
  void Reserve(size_t n) { empty_ = true; }
  bool empty() const { return empty_; }
  Event top() const { return e_; }
  void Push(const Event& e) {
    e_ = e;
    empty_ = false;
  }
  void Pop() { empty_ = true; }
  void ReplaceTop(const Event& e) { e_ = e; }

 private:
  Event e_;
  bool empty_ = true;
};

// Sorted run or tournament tree, whichever suits the pattern of completion times: the run while
// new events land near the back (few moves per insertion, e.g. writes at QD 1), the tree when
// they land anywhere (e.g. writes released out of order by the write buffer, reads whose data
// crosses the link out of order). The choice is reviewed every kWindow insertions; from the
// tree the run gets a short look (kProbe insertions) every retry_ windows, an interval that
// doubles (up to kMaxRetryWindows) while the looks fail. Both pop the same order, so results
// do not depend on the choice. Times beyond the tree's keys (over a year of virtual time) keep
// the run. Tree: a TournamentTreeOf.
template <class Tree>
class EventQueueOf {
 public:
  static constexpr size_t kWindow = 1024;
  static constexpr size_t kProbe = 128;
  static constexpr size_t kMaxMeanShifts = 4;        // run -> tree above this
  static constexpr uint32_t kRetryWindows = 16;      // tree -> run for a new look this often
  static constexpr uint32_t kMaxRetryWindows = 256;  // ... at least
  // REQUIRES: events carry slots < n, at most one per slot.
  void Reserve(size_t n) {
    ring_mode_ = true;
    tree_ok_ = true;
    ring_.Reserve(n);
    tree_.Reserve(n);
    scratch_.reserve(n);
    budget_ = window_ = kWindow;
    probing_ = false;
    retry_ = kRetryWindows;
  }
  [[gnu::always_inline]] bool empty() const { return ring_mode_ ? ring_.empty() : tree_.empty(); }
  [[gnu::always_inline]] Event top() const { return ring_mode_ ? ring_.top() : tree_.top(); }
  void Push(const Event& e) {
    if (!ring_mode_ && e.t_ns >= tree_.max_time()) ToRing();
    ring_mode_ ? ring_.Push(e) : tree_.Push(e);
  }
  void Pop() { ring_mode_ ? ring_.Pop() : tree_.Pop(); }
  // REQUIRES: e.slot == top().slot (as TournamentTreeOf::ReplaceTop).
  [[gnu::always_inline]] void ReplaceTop(const Event& e) {
    if (ring_mode_) {
      ring_.ReplaceTop(e);
    } else if (e.t_ns < tree_.max_time()) {
      tree_.ReplaceTop(e);
    } else {
      ToRing();
      ring_.ReplaceTop(e);
    }
    if (--budget_ == 0) Review();
  }

 private:
  [[gnu::noinline]] void Review() {
    if (ring_mode_) {
      if (ring_.TakeShifts() > window_ * kMaxMeanShifts && tree_ok_ && !ring_.empty() &&
          ring_.last_time() < tree_.max_time()) {
        ring_.Export(&scratch_);
        tree_.Import(scratch_);
        ring_mode_ = false;
        tree_windows_ = 0;
        retry_ = probing_ ? std::min(2 * retry_, kMaxRetryWindows) : kRetryWindows;
      } else if (probing_) {
        retry_ = kRetryWindows;
      }
      probing_ = false;
      budget_ = window_ = kWindow;
    } else if (++tree_windows_ >= retry_) {
      tree_.Export(&scratch_);
      ring_.Import(scratch_);
      ring_mode_ = true;
      probing_ = true;
      budget_ = window_ = kProbe;
    } else {
      budget_ = kWindow;
    }
  }
  [[gnu::noinline]] void ToRing() {
    tree_.Export(&scratch_);
    ring_.Import(scratch_);
    ring_mode_ = true;
    tree_ok_ = false;  // times only grow
  }

  bool ring_mode_ = true;
  bool tree_ok_ = true;
  bool probing_ = false;  // a look at the run after the tree
  size_t budget_ = kWindow;
  size_t window_ = kWindow;  // insertions of the current review window
  uint32_t tree_windows_ = 0;
  uint32_t retry_ = kRetryWindows;
  SortedRing ring_;
  Tree tree_;
  std::vector<Event> scratch_;
};

using EventQueue = EventQueueOf<TournamentTree>;

// For at most kSmallSlots slots (e.g. one job at QD 32) in a closed loop: the tournament tree
// alone, 32 leaves with the replay unrolled, without EventQueue's reviews (cheaper at every
// queue depth up to 32: no mode to check per operation). Keys hold times relative to a base,
// which moves up to the earliest pending time when an event would land beyond the keys' range
// (2^58 ns, about 9 years, past the base).
// REQUIRES: the pending events lie within 2^58 ns of each other (in a closed loop they are
// completions of commands in flight).
inline constexpr uint32_t kSmallSlots = 32;
class SmallEventQueue {
 public:
  // REQUIRES: n <= kSmallSlots.
  void Reserve(size_t n) {
    tree_.Reserve(n);
    base_ = 0;
  }
  [[gnu::always_inline]] bool empty() const { return tree_.empty(); }
  [[gnu::always_inline]] Event top() const {
    Event e = tree_.top();
    e.t_ns += base_;
    return e;
  }
  void Push(const Event& e) { tree_.Push(Relative(e)); }
  void Pop() { tree_.Pop(); }
  [[gnu::always_inline]] void ReplaceTop(const Event& e) { tree_.ReplaceTop(Relative(e)); }

 private:
  [[gnu::always_inline]] Event Relative(Event e) {
    if (e.t_ns - base_ >= tree_.max_time()) [[unlikely]]
      Rebase(e.t_ns);
    e.t_ns -= base_;
    return e;
  }
  // Moves the base up to the earliest pending time (or t_ns when none is pending) and re-keys
  // the pending events.
  [[gnu::noinline]] void Rebase(uint64_t t_ns) {
    tree_.Export(&scratch_);
    const uint64_t base = scratch_.empty() ? t_ns : scratch_.front().t_ns + base_;
    for (Event& p : scratch_) p.t_ns = p.t_ns + base_ - base;
    base_ = base;
    assert(t_ns - base_ < tree_.max_time() && "pending events more than 2^58 ns apart");
    tree_.Import(scratch_);
  }

  TournamentTreeOf<5> tree_;
  uint64_t base_ = 0;  // time of relative 0
  std::vector<Event> scratch_;
};

}  // namespace ssdlab::sim
