// What the simulated drive holds after a power cut (docs/plp.md): per 4 KiB unit, the tag (the
// host's generation: a write's sequence number, increasing with submission) of the data the
// drive would return. Kept only while tracking is on (SimBackend::EnablePowerLossTracking);
// the drive's hot path calls it behind one branch.
//
// Durability rules at a cut at time T (times are virtual ns):
//  - a unit is on NAND once the program holding it has ended (program end <= T);
//  - plp: units in the write buffer (data received, ready <= T) but not on NAND are flushed by
//    the capacitors, oldest first, up to plp_flush_bytes (0: all); the rest are lost;
//  - no plp: units not on NAND are lost (a flush or FUA write made earlier data durable by
//    waiting for its programs: the timing model, not this class, gives that);
//  - map_persist_ms > 0: the mapping is checkpointed at multiples of it; a unit made durable
//    after the last checkpoint before T reads its older data (the newest durable before it).
// The unit then holds the newest (highest-tag) durable data. Trims are not tracked.
//
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace ssdlab::sim {

// The model's own account of a cut: acknowledged units it no longer returns. A unit is
// counted once, "flushed" when the newest write of it made durable by a completed flush or
// FUA (before T) is not what it returns, else "unflushed" when the newest acknowledged one is
// not; `mapping` counts those whose data is on NAND but whose mapping update was lost.
struct PowerCutTruth {
  uint64_t cut_ns = 0;
  uint64_t lost_flushed = 0;
  uint64_t lost_unflushed = 0;
  uint64_t mapping = 0;
  uint64_t units_in_buffer = 0;  // received, not on NAND at the cut
  uint64_t units_saved = 0;      // of which the capacitors flushed
};

class PowerLossTracker {
 public:
  // user_pages units of user space; plp and its budget in units (0: all); map checkpoint
  // period (0: none).
  PowerLossTracker(uint64_t user_pages, bool plp, uint64_t budget_units, uint64_t map_period_ns);
  // Bytes tracking needs for a drive of user_pages units (the held array).
  static uint64_t MemoryBytes(uint64_t user_pages) { return user_pages * sizeof(uint32_t); }

  // Tag of the next host write's units (0: untagged, e.g. a phase's writes; never held).
  void SetTag(uint32_t tag) { tag_ = tag; }
  // A host unit buffered in slot `slot` (buffer sequence number) at `ready_ns`; `now_ns` the
  // command's submission (entries whose program ended by then are retired).
  void Buffered(uint64_t slot, uint64_t lpn, uint64_t ready_ns, uint64_t now_ns);
  // The program of slots [first_slot, first_slot + n) ends at end_ns.
  void Programmed(uint64_t first_slot, uint64_t n, uint64_t end_ns);
  // The units buffered since the last Acked/Flushed call belong to commands acknowledged at
  // ack_ns; fua: durable at their acknowledgement.
  void Acked(uint64_t ack_ns, bool fua);
  // A flush submitted at submit_ns completed at done_ns: units acknowledged by submit_ns are
  // durable-promised from done_ns on.
  void Flushed(uint64_t submit_ns, uint64_t done_ns);
  // The cut at t_ns: applies the rules above; afterwards Held() is what the drive returns and
  // tracking continues from that state (the restored drive). REQUIRES: t_ns >= every call's.
  PowerCutTruth Cut(uint64_t t_ns);
  // The tag unit lpn holds (0: never written while tracking).
  uint32_t Held(uint64_t lpn) const { return held_[lpn]; }

 private:
  struct Entry {
    uint64_t lpn = 0;
    uint32_t tag = 0;
    uint64_t ready_ns = 0;
    uint64_t nand_ns = UINT64_MAX;  // program end (unknown: not programmed yet)
    uint64_t ack_ns = UINT64_MAX;   // the command's acknowledgement
    uint64_t sync_ns = UINT64_MAX;  // durable-promised from then on (flush or FUA)
  };
  // Moves entries whose program ended by now_ns out of pending_.
  void Retire(uint64_t now_ns);
  void Apply(const Entry& e);
  // Applies recent_ entries durable by `upto` to held_ (map checkpoints).
  void Checkpoint(uint64_t upto);

  std::vector<uint32_t> held_;  // held tag per unit (newest durable; the checkpoint with a map)
  std::deque<Entry> pending_;   // buffered units, in slot order, pending_[i] is slot base_ + i
  uint64_t base_slot_ = 0;
  size_t unacked_from_ = 0;    // pending_ index of the first entry not yet Acked
  std::vector<Entry> recent_;  // map checkpoints: durable entries since the last checkpoint
  uint64_t last_checkpoint_ns_ = 0;
  uint32_t tag_ = 0;
  const bool plp_;
  const uint64_t budget_units_;
  const uint64_t map_period_ns_;
};

}  // namespace ssdlab::sim
