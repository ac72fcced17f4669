// Array layouts over member drives, as Linux md lays them out: how one host I/O on the array
// becomes member I/Os. Pure functions; the simulated array (sim/array.h) books the member I/Os
// on its member SimDevices.
//   raid0  striping, `chunk` bytes per member in turn
//   raid1  mirroring on every member; a read goes to one member (chosen per chunk, in turn)
//   raid10 md's "near 2" layout: striping over mirrored pairs (an even count >= 4)
//   raid5  md's default left-symmetric layout: per stripe row, N-1 data chunks and one parity
//          chunk that rotates from the last member down; a write covering whole rows writes
//          data and parity only, a smaller one reads before it writes: the old data and parity
//          (read-modify-write) or the rest of the row (reconstruct-write), whichever reads less
//          (md's choice too, drivers/md/raid5.c handle_stripe_dirtying)
//   raid6  md's default left-symmetric layout with two parity chunks per row: P rotates from
//          the last member down, Q follows P, the N-2 data chunks follow Q; writes as raid5's,
//          with P and Q both read (read-modify-write) and written
// Degraded arrays and resync are not modelled. TRIM passes to the data chunks (md discards
// parity only for whole rows; here parity is left as it is).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workload/spec.h"

namespace ssdlab::sim {

enum class RaidLevel { kRaid0, kRaid1, kRaid10, kRaid5, kRaid6 };

struct RaidLayout {
  RaidLevel level = RaidLevel::kRaid0;
  uint32_t members = 0;
  uint64_t chunk_bytes = 64 * 1024;
  uint64_t member_bytes = 0;  // usable bytes of each member (the smallest member's size)
};

// "raid0", "raid1", "raid10", "raid5", "raid6".
const char* RaidLevelName(RaidLevel level);
Result<RaidLevel> ParseRaidLevel(const std::string& name);

// Invalid when the member count does not suit the level (raid0 >= 2, raid1 >= 2, raid10 even
// and >= 4, raid5 >= 3, raid6 >= 4), the chunk is not a multiple of 4 KiB, or a member is smaller
// than one chunk.
Status ValidateLayout(const RaidLayout& layout);

// The array's size: whole stripe rows of the members (raid0 N, raid1 1, raid10 N/2, raid5 N-1,
// raid6 N-2 data chunks per row).
uint64_t ArrayBytes(const RaidLayout& layout);

struct MemberIo {
  uint32_t member = 0;
  Direction dir = Direction::kRead;
  uint64_t offset = 0;  // on the member
  uint32_t bytes = 0;
  // 0: issued at once; 1: issued when every stage-0 I/O of the same host I/O has completed
  // (the writes of a read-modify-write).
  uint8_t stage = 0;
};

// Appends the member I/Os of one host I/O to `out` (cleared first).
// REQUIRES: ValidateLayout ok, [offset, offset + bytes) inside ArrayBytes.
void MapIo(const RaidLayout& layout, Direction dir, uint64_t offset, uint32_t bytes,
           std::vector<MemberIo>* out);

}  // namespace ssdlab::sim
