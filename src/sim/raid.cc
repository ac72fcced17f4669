#include "sim/raid.h"

#include <algorithm>
#include <array>

namespace ssdlab::sim {
namespace {

constexpr uint32_t kMaxMembers = 32;
constexpr uint64_t kUnit = 4096;

// Appends an I/O, extending the previous I/O of the same member, direction and stage when it
// ends where this one starts (md merges such requests too).
class Emitter {
 public:
  explicit Emitter(std::vector<MemberIo>* out) : out_(out) {
    out_->clear();
    last_.fill(-1);
  }
  void Add(uint32_t member, Direction dir, uint64_t offset, uint64_t bytes, uint8_t stage) {
    int slot = member * 6 + static_cast<int>(dir) * 2 + stage;
    int i = last_[slot];
    if (i >= 0) {
      MemberIo& p = (*out_)[i];
      if (p.offset + p.bytes == offset && p.bytes + bytes <= UINT32_MAX) {
        p.bytes += static_cast<uint32_t>(bytes);
        return;
      }
    }
    last_[slot] = static_cast<int>(out_->size());
    out_->push_back({member, dir, offset, static_cast<uint32_t>(bytes), stage});
  }

 private:
  std::vector<MemberIo>* out_;
  std::array<int, kMaxMembers * 6> last_;
};

struct Segment {
  uint64_t chunk;   // logical chunk index
  uint64_t in_off;  // offset inside the chunk
  uint64_t len;
};

// Calls f(segment) for each chunk-bounded piece of [offset, offset + bytes).
template <class F>
void ForEachSegment(uint64_t chunk, uint64_t offset, uint64_t bytes, F&& f) {
  for (uint64_t pos = offset, end = offset + bytes; pos < end;) {
    Segment s{pos / chunk, pos % chunk, 0};
    s.len = std::min(chunk - s.in_off, end - pos);
    f(s);
    pos += s.len;
  }
}

// Parity geometry (RAID 5: one parity chunk per row, RAID 6: P and Q) of logical chunk c: its
// row, the row's P member (Q is the next one) and its data member.
struct ParityPlace {
  uint64_t row;
  uint32_t p;
  uint32_t member;
};
ParityPlace Place(uint64_t c, uint32_t n, uint32_t parities) {
  const uint64_t row = c / (n - parities);
  const uint32_t d = static_cast<uint32_t>(c % (n - parities));
  const uint32_t p = (n - 1) - static_cast<uint32_t>(row % n);
  return {row, p, (p + parities + d) % n};
}

// The writes (or trims) of one parity stripe row: `segs` are the row's pieces, in order.
void ParityRow(const RaidLayout& l, uint32_t parities, Direction dir,
               const std::vector<Segment>& segs, Emitter& e) {
  const uint32_t n = l.members;
  const uint64_t chunk = l.chunk_bytes;
  const ParityPlace first = Place(segs.front().chunk, n, parities);
  const uint64_t base = first.row * chunk;
  auto member = [&](uint64_t c) { return Place(c, n, parities).member; };
  auto each_parity = [&](auto&& f) {
    for (uint32_t i = 0; i < parities; ++i) f((first.p + i) % n);
  };
  if (dir == Direction::kTrim) {
    for (const Segment& s : segs) e.Add(member(s.chunk), dir, base + s.in_off, s.len, 0);
    return;
  }
  uint64_t covered = 0, lo = chunk, hi = 0;
  for (const Segment& s : segs) {
    covered += s.len;
    lo = std::min(lo, s.in_off);
    hi = std::max(hi, s.in_off + s.len);
  }
  const uint32_t data = n - parities;
  if (covered == uint64_t{data} * chunk) {  // a whole row: no reads
    for (const Segment& s : segs) e.Add(member(s.chunk), dir, base, chunk, 0);
    each_parity([&](uint32_t m) { e.Add(m, Direction::kWrite, base, chunk, 0); });
    return;
  }
  const uint32_t touched = static_cast<uint32_t>(segs.size());
  const bool rmw = touched + parities <= data - touched;
  if (rmw) {
    for (const Segment& s : segs)
      e.Add(member(s.chunk), Direction::kRead, base + s.in_off, s.len, 0);
    each_parity([&](uint32_t m) { e.Add(m, Direction::kRead, base + lo, hi - lo, 0); });
  } else {
    // Reconstruct-write: the same range of every data chunk this write leaves alone.
    const uint64_t row_first_chunk = first.row * data;
    for (uint32_t d = 0; d < data; ++d) {
      uint64_t c = row_first_chunk + d;
      bool written =
          std::any_of(segs.begin(), segs.end(), [&](const Segment& s) { return s.chunk == c; });
      if (!written) e.Add(member(c), Direction::kRead, base + lo, hi - lo, 0);
    }
  }
  for (const Segment& s : segs)
    e.Add(member(s.chunk), Direction::kWrite, base + s.in_off, s.len, 1);
  each_parity([&](uint32_t m) { e.Add(m, Direction::kWrite, base + lo, hi - lo, 1); });
}

uint32_t Parities(RaidLevel level) {
  return level == RaidLevel::kRaid6 ? 2 : level == RaidLevel::kRaid5 ? 1 : 0;
}

}  // namespace

const char* RaidLevelName(RaidLevel level) {
  switch (level) {
    case RaidLevel::kRaid0:
      return "raid0";
    case RaidLevel::kRaid1:
      return "raid1";
    case RaidLevel::kRaid10:
      return "raid10";
    case RaidLevel::kRaid5:
      return "raid5";
    case RaidLevel::kRaid6:
      return "raid6";
  }
  return "?";
}

Result<RaidLevel> ParseRaidLevel(const std::string& name) {
  for (RaidLevel l : {RaidLevel::kRaid0, RaidLevel::kRaid1, RaidLevel::kRaid10, RaidLevel::kRaid5,
                      RaidLevel::kRaid6})
    if (name == RaidLevelName(l)) return l;
  return Status::Invalid("unknown layout '" + name + "' (raid0, raid1, raid10, raid5, raid6)");
}

Status ValidateLayout(const RaidLayout& l) {
  const uint32_t n = l.members;
  const std::string what = std::string(RaidLevelName(l.level)) + " with " + std::to_string(n) +
                           " member" + (n == 1 ? "" : "s");
  if (n > kMaxMembers)
    return Status::Invalid(what + ": at most " + std::to_string(kMaxMembers) + " members");
  switch (l.level) {
    case RaidLevel::kRaid0:
    case RaidLevel::kRaid1:
      if (n < 2) return Status::Invalid(what + ": needs at least 2 members");
      break;
    case RaidLevel::kRaid10:
      if (n < 4 || n % 2) return Status::Invalid(what + ": needs an even number, at least 4");
      break;
    case RaidLevel::kRaid5:
      if (n < 3) return Status::Invalid(what + ": needs at least 3 members");
      break;
    case RaidLevel::kRaid6:
      if (n < 4) return Status::Invalid(what + ": needs at least 4 members");
      break;
  }
  if (l.chunk_bytes == 0 || l.chunk_bytes % kUnit || l.chunk_bytes > (1ull << 30))
    return Status::Invalid("--chunk must be a multiple of 4 KiB up to 1 GiB");
  if (l.member_bytes < l.chunk_bytes)
    return Status::Invalid("array members are smaller than one chunk");
  return Status::Ok();
}

uint64_t ArrayBytes(const RaidLayout& l) {
  const uint64_t rows = l.member_bytes / l.chunk_bytes;
  switch (l.level) {
    case RaidLevel::kRaid0:
      return rows * l.chunk_bytes * l.members;
    case RaidLevel::kRaid1:
      return rows * l.chunk_bytes;
    case RaidLevel::kRaid10:
      return rows * l.chunk_bytes * (l.members / 2);
    case RaidLevel::kRaid5:
    case RaidLevel::kRaid6:
      return rows * l.chunk_bytes * (l.members - Parities(l.level));
  }
  return 0;
}

void MapIo(const RaidLayout& l, Direction dir, uint64_t offset, uint32_t bytes,
           std::vector<MemberIo>* out) {
  Emitter e(out);
  const uint32_t n = l.members;
  const uint64_t chunk = l.chunk_bytes;
  const bool to_all = dir != Direction::kRead;  // writes and trims go to every copy
  switch (l.level) {
    case RaidLevel::kRaid0:
      ForEachSegment(chunk, offset, bytes, [&](const Segment& s) {
        e.Add(static_cast<uint32_t>(s.chunk % n), dir, (s.chunk / n) * chunk + s.in_off, s.len, 0);
      });
      return;
    case RaidLevel::kRaid1:
      ForEachSegment(chunk, offset, bytes, [&](const Segment& s) {
        const uint64_t off = s.chunk * chunk + s.in_off;
        if (to_all) {
          for (uint32_t m = 0; m < n; ++m) e.Add(m, dir, off, s.len, 0);
        } else {
          e.Add(static_cast<uint32_t>(s.chunk % n), dir, off, s.len, 0);
        }
      });
      return;
    case RaidLevel::kRaid10: {
      const uint32_t pairs = n / 2;
      ForEachSegment(chunk, offset, bytes, [&](const Segment& s) {
        const uint32_t pair = static_cast<uint32_t>(s.chunk % pairs);
        const uint64_t row = s.chunk / pairs;
        const uint64_t off = row * chunk + s.in_off;
        if (to_all) {
          e.Add(2 * pair, dir, off, s.len, 0);
          e.Add(2 * pair + 1, dir, off, s.len, 0);
        } else {
          e.Add(2 * pair + static_cast<uint32_t>(row % 2), dir, off, s.len, 0);
        }
      });
      return;
    }
    case RaidLevel::kRaid5:
    case RaidLevel::kRaid6: {
      const uint32_t parities = Parities(l.level);
      if (dir == Direction::kRead) {
        ForEachSegment(chunk, offset, bytes, [&](const Segment& s) {
          const ParityPlace p = Place(s.chunk, n, parities);
          e.Add(p.member, dir, p.row * chunk + s.in_off, s.len, 0);
        });
        return;
      }
      // Row by row: a write's pieces in one row are handled together.
      static thread_local std::vector<Segment> row;  // reused: no allocation per I/O
      row.clear();
      uint64_t current = UINT64_MAX;
      ForEachSegment(chunk, offset, bytes, [&](const Segment& s) {
        const uint64_t r = s.chunk / (n - parities);
        if (r != current && !row.empty()) {
          ParityRow(l, parities, dir, row, e);
          row.clear();
        }
        current = r;
        row.push_back(s);
      });
      if (!row.empty()) ParityRow(l, parities, dir, row, e);
      return;
    }
  }
}

}  // namespace ssdlab::sim
