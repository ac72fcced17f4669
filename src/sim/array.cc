#include "sim/array.h"

#include <algorithm>

namespace ssdlab::sim {

SimArray::SimArray(std::vector<std::unique_ptr<SimDevice>> members, const RaidLayout& layout,
                   uint64_t host_io_ns)
    : members_(std::move(members)), layout_(layout), host_io_ns_(host_io_ns) {}

uint64_t SimArray::Submit(Direction dir, uint64_t offset, uint32_t bytes, uint64_t t_host) {
  MapIo(layout_, dir, offset, bytes, &ios_);
  (dir == Direction::kRead    ? ac_.host_reads
   : dir == Direction::kWrite ? ac_.host_writes
                              : ac_.host_trims)++;
  // The host path: this I/O's turn, then its time; the members see it when that has passed.
  const uint64_t t = std::max(t_host, host_free_ns_) + host_io_ns_;
  if (host_io_ns_) host_free_ns_ = t;
  uint64_t stage_end[2] = {t, t};
  for (const MemberIo& io : ios_) {
    // A member idle long enough runs its background work first (inside Submit).
    const uint64_t done = members_[io.member]->Submit(io.dir, io.offset, io.bytes, t);
    stage_end[io.stage] = std::max(stage_end[io.stage], done);
    if (io.dir == Direction::kRead) {
      ++ac_.member_reads;
      ac_.member_read_bytes += io.bytes;
    } else if (io.dir == Direction::kWrite) {
      ++ac_.member_writes;
      ac_.member_write_bytes += io.bytes;
    } else {
      ++ac_.member_trims;
    }
  }
  // (> t_host, as a SimDevice's: an I/O that maps to no member I/O still takes one tick.)
  return std::max(stage_end[0] + (stage_end[1] - t), t_host + 1);
}

void SimArray::Background(uint64_t from_ns, uint64_t to_ns) {
  for (auto& m : members_) {
    const uint64_t from = std::max(from_ns, m->host_busy_until_ns() + m->bg_idle_ns());
    if (from < to_ns) m->Background(from, to_ns);
  }
}

uint64_t SimArray::host_busy_until_ns() const {
  uint64_t t = 0;
  for (const auto& m : members_) t = std::max(t, m->host_busy_until_ns());
  return t;
}

void SimArray::ResetFactoryFresh(uint64_t now_ns) {
  for (auto& m : members_) m->ResetFactoryFresh(now_ns);
  host_free_ns_ = 0;
  ac_ = {};
}

DeviceCounters SimArray::counters() const {
  DeviceCounters s;
  for (const auto& m : members_) {
    DeviceCounters c = m->counters();
    s.host_pages += c.host_pages;
    s.nand_pages += c.nand_pages;
    s.gc_copies += c.gc_copies;
    s.erases += c.erases;
    s.slc_pages += c.slc_pages;
    s.slc_folded += c.slc_folded;
    s.nand_reads += c.nand_reads;
    s.host_read_pages += c.host_read_pages;
    s.unmapped_read_pages += c.unmapped_read_pages;
  }
  return s;
}

uint32_t SimArray::free_blocks() const {
  uint32_t f = UINT32_MAX;
  for (const auto& m : members_) f = std::min(f, m->free_blocks());
  return f;
}

uint32_t SimArray::free_blocks_min() const {
  uint32_t f = UINT32_MAX;
  for (const auto& m : members_) f = std::min(f, m->free_blocks_min());
  return f;
}

void SimArray::ResetFreeMin() {
  for (auto& m : members_) m->ResetFreeMin();
}

uint64_t SimArray::slc_used_pages() const {
  uint64_t s = 0;
  for (const auto& m : members_) s += m->slc_used_pages();
  return s;
}

}  // namespace ssdlab::sim
