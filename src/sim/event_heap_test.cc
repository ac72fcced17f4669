#include "sim/event_heap.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "base/rng.h"

namespace ssdlab::sim {
namespace {

// Runs a discrete-event loop on Q and on an ordered set: pop the earliest event, then (mostly)
// reschedule its slot at a later time, sometimes move to another free slot or drop it.
// Both must pop the same (time, slot, kind) sequence.
template <class Q>
void CheckAgainstReference(uint32_t slots, uint64_t spread_ns, uint64_t seed,
                           uint64_t start_ns = 0) {
  Q q;
  q.Reserve(slots);
  std::set<std::pair<uint64_t, uint32_t>> ref;  // (time, slot)
  std::vector<uint32_t> kind(slots, 0);
  Rng rng(seed);
  for (uint32_t s = 0; s < slots; ++s) {
    const uint64_t t = start_ns + rng.Below(spread_ns);
    kind[s] = static_cast<uint32_t>(rng.Below(2));
    q.Push(Event(t, s, kind[s]));
    ref.emplace(t, s);
  }
  for (int step = 0; step < 200000 && !ref.empty(); ++step) {
    ASSERT_FALSE(q.empty());
    const Event e = q.top();
    const auto [t, s] = *ref.begin();
    ASSERT_EQ(e.t_ns, t) << step;
    ASSERT_EQ(e.slot, s) << step;
    ASSERT_EQ(e.kind, kind[s]) << step;
    ref.erase(ref.begin());
    const uint64_t r = rng.Below(100);
    // Ties are frequent: times on a coarse grid, often exactly the current time.
    const uint64_t next = t + (r < 20 ? 0 : rng.Below(spread_ns) / 64 * 64);
    kind[s] = static_cast<uint32_t>(rng.Below(2));
    if (r < 97 || ref.size() + 1 == slots) {
      q.ReplaceTop(Event(next, s, kind[s]));
      ref.emplace(next, s);
    } else {
      q.Pop();
    }
    // Refill a free slot now and then (strictly later: a key below the last popped one is
    // never pushed, see SortedRing).
    if (ref.size() < slots && rng.Below(4) == 0) {
      for (uint32_t f = 0; f < slots; ++f) {
        bool used = false;
        for (const auto& p : ref) used |= p.second == f;
        if (used) continue;
        kind[f] = static_cast<uint32_t>(rng.Below(2));
        q.Push(Event(next + 1, f, kind[f]));
        ref.emplace(next + 1, f);
        break;
      }
    }
  }
}

TEST(EventQueue, PopsInTimeThenSlotOrder) {
  // Narrow spreads keep the sorted run; wide ones make EventQueue switch to the tree.
  for (uint32_t slots : {2u, 3u, 32u, 100u}) {
    for (uint64_t spread : {uint64_t{64}, uint64_t{1} << 20}) {
      CheckAgainstReference<EventQueue>(slots, spread, slots * 7 + spread);
      CheckAgainstReference<TournamentTree>(slots, spread, slots * 11 + spread);
    }
  }
}

TEST(EventQueue, SmallQueuePopsInTimeThenSlotOrder) {
  // The unrolled tree of SmallEventQueue (32 leaves), with fewer slots and with all of them.
  for (uint32_t slots : {2u, 5u, 32u}) {
    for (uint64_t spread : {uint64_t{64}, uint64_t{1} << 20}) {
      CheckAgainstReference<SmallEventQueue>(slots, spread, slots * 13 + spread);
      CheckAgainstReference<TournamentTreeOf<5>>(slots, spread, slots * 17 + spread);
    }
  }
}

TEST(EventQueue, SmallQueueRebasesBeyondItsKeys) {
  // Times cross 2^58 ns (the 32-leaf tree's key range) and go on: the queue re-keys what is
  // pending and keeps the order. 200000 steps of up to spread/1 ns each pass the limit.
  const uint64_t limit = uint64_t{1} << 58;
  for (uint32_t slots : {2u, 32u}) {
    for (uint64_t spread : {uint64_t{64}, uint64_t{1} << 20}) {
      CheckAgainstReference<SmallEventQueue>(slots, spread, slots + spread, limit - 3 * spread);
    }
  }
  // A first event beyond the range, on an empty queue.
  SmallEventQueue q;
  q.Reserve(4);
  q.Push(Event(5 * limit, 2, 1));
  q.Push(Event(5 * limit + 7, 1, 0));
  EXPECT_EQ(q.top().t_ns, 5 * limit);
  EXPECT_EQ(q.top().slot, 2u);
  q.Pop();
  EXPECT_EQ(q.top().t_ns, 5 * limit + 7);
  EXPECT_EQ(q.top().kind, 0u);
}

TEST(EventQueue, SingleSlot) { CheckAgainstReference<SingleEventQueue>(1, 1000, 3); }

}  // namespace
}  // namespace ssdlab::sim
