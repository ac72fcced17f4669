// A simulated array: member SimDevices behind an md-style layout (sim/raid.h), with the same
// interface the phase event loop (sim_backend.cc) drives a single SimDevice through.
//
// Timing: a host I/O's member I/Os are booked on their members when the host I/O is
// submitted; it completes when the last of them completes. The writes of a RAID 5
// read-modify-write (stage 1) must wait for its reads (stage 0): they are booked at submission
// too (members take commands in time order), and the host I/O's latency is the reads' latency
// plus the writes' latency, so the dependency shows in latency while the members' resources
// see both at once. Members run their own background GC when they are idle.
//
// Host path (host_io_ns > 0): the host spends host_io_ns on each array I/O (system call,
// filesystem, md, driver) one at a time, before its member I/Os are submitted: an array does
// at most 1e9 / host_io_ns I/Os per second whatever its members, and an I/O that finds the
// host busy waits (its latency counts from its submission). Per host I/O, not per member I/O,
// and independent of the direction and size.
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/device.h"
#include "sim/raid.h"

namespace ssdlab::sim {

struct ArrayCounters {
  uint64_t host_reads = 0, host_writes = 0, host_trims = 0;  // array commands
  uint64_t member_reads = 0, member_writes = 0, member_trims = 0;
  uint64_t member_read_bytes = 0, member_write_bytes = 0;
};

class SimArray {
 public:
  // REQUIRES: members non-empty, ValidateLayout(layout) ok, every member's user capacity
  // >= layout.member_bytes.
  SimArray(std::vector<std::unique_ptr<SimDevice>> members, const RaidLayout& layout,
           uint64_t host_io_ns = 0);

  // As SimDevice::Submit: the host I/O's completion time (> t_ns).
  uint64_t Submit(Direction dir, uint64_t offset, uint32_t bytes, uint64_t t_ns);
  void Prefetch(uint64_t) const {}
  void Background(uint64_t from_ns, uint64_t to_ns);
  uint64_t host_busy_until_ns() const;
  uint64_t bg_idle_ns() const { return members_.front()->bg_idle_ns(); }
  void ResetFactoryFresh(uint64_t now_ns);

  // Sums over the members (free blocks: the member with fewest, the one that limits).
  DeviceCounters counters() const;
  uint32_t free_blocks() const;
  uint32_t free_blocks_min() const;
  void ResetFreeMin();
  uint64_t slc_used_pages() const;

  const ArrayCounters& array_counters() const { return ac_; }
  const RaidLayout& layout() const { return layout_; }
  size_t members() const { return members_.size(); }
  const SimDevice& member(size_t i) const { return *members_[i]; }
  SimDevice& member(size_t i) { return *members_[i]; }

 private:
  std::vector<std::unique_ptr<SimDevice>> members_;
  RaidLayout layout_;
  uint64_t host_io_ns_;
  uint64_t host_free_ns_ = 0;  // the host path is busy until then
  std::vector<MemberIo> ios_;  // reused per host I/O
  ArrayCounters ac_;
};

}  // namespace ssdlab::sim
