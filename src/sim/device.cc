#include "sim/device.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "base/rng.h"

namespace ssdlab::sim {

// The hot path (a host write with its share of GC copies) is compiled as one function.
#define SSDLAB_HOT [[gnu::always_inline]] inline

namespace {

uint64_t UsToNs(double us) { return static_cast<uint64_t>(std::llround(us * 1000.0)); }

}  // namespace

SimDevice::SimDevice(const SimParams& p, const Geometry& g, bool fresh)
    : p_(p), g_(g), ftl_(g, p.gc, p.gc_d, p.seed, fresh) {
  cmd_ns_ = UsToNs(p.cmd_us);
  ctrl_read_ns_ = UsToNs(p.ctrl_read_us);
  ctrl_write_ns_ = UsToNs(p.ctrl_write_us * (1 - p.ctrl_write_jitter_pct / 100));
  ctrl_trim_ns_ = UsToNs(p.ctrl_trim_us);
  ctrl_turn_ns_ = UsToNs(p.ctrl_turn_us);
  // us per KiB = 1e6 / 1024 ps per byte.
  ctrl_read_ps_per_byte_ =
      static_cast<uint64_t>(std::llround((p.ctrl_unit_us / 4 + p.ctrl_read_kib_us) * 1e6 / 1024));
  ctrl_write_ps_per_byte_ =
      static_cast<uint64_t>(std::llround((p.ctrl_unit_us / 4 + p.ctrl_write_kib_us) * 1e6 / 1024));
  ctrl_gc_ns_ = UsToNs(p.ctrl_gc_us);
  t_read_ns_ = UsToNs(p.t_read_us);
  t_prog_ns_ = std::max<uint64_t>(1, UsToNs(p.t_prog_us));
  t_erase_ns_ = UsToNs(p.t_erase_us);
  slc_t_read_ns_ = UsToNs(p.slc_t_read_us);
  slc_t_prog_ns_ = std::max<uint64_t>(1, UsToNs(p.slc_t_prog_us));
  // One byte at X MB/s takes 1e6 / X picoseconds.
  link_ps_per_byte_ = static_cast<uint64_t>(std::llround(1e6 / p.link_mb_s));
  ch_ps_per_byte_ = static_cast<uint64_t>(std::llround(1e6 / p.ch_mb_s));
  unit_ch_ns_ = kUnitBytes * ch_ps_per_byte_ / 1000;
  unit_link_ns_ = kUnitBytes * link_ps_per_byte_ / 1000;
  prog_ch_ns_ = g.units_per_prog * kUnitBytes * ch_ps_per_byte_ / 1000;
  bg_idle_ns_ = UsToNs(p.bg_idle_ms * 1000.0);
  bg_copy_gap_ns_ = p.gc_bg_mb_s > 0 ? UsToNs(kUnitBytes / p.gc_bg_mb_s) : 0;
  suspend_ = p.suspend;
  noisy_read_ = p.t_read_type_pct > 0 || p.t_read_jitter_us > 0 || p.read_retry_pct > 0 ||
                p.read_retry_kpe_pct > 0;
  for (uint32_t k = 0; k < 4; ++k) {
    const uint32_t b = std::max<uint32_t>(1, std::min<uint32_t>(p.bits_per_cell, 4));
    const double pos = b == 1 ? 0.0 : 2.0 * (k % b) / (b - 1) - 1.0;  // -1 LSB .. +1 MSB
    type_tr_ns_[k] = UsToNs(p.t_read_us * (1.0 + pos * p.t_read_type_pct / 100.0));
    type_tprog_ns_[k] =
        std::max<uint64_t>(1, UsToNs(p.t_prog_us * (1.0 + pos * p.t_prog_type_pct / 100.0)));
  }
  typed_prog_ = p.t_prog_type_pct > 0;
  read_flush_ = p.read_flush;
  flush_chance_ = p.read_flush_big_pct / 100.0;
  write_jitter_mean_ns_ = p.ctrl_write_us * p.ctrl_write_jitter_pct * 10.0;  // us x % -> ns
  gc_yield_ = p.gc_yield && p.gc_lazy;  // eager GC copies in step with the writes
  jitter_mean_ns_ = p.t_read_jitter_us * 1000.0;
  prog_jitter_mean_ns_ = p.t_prog_jitter_us * 1000.0;
  retry_base_ = p.read_retry_pct / 100.0;
  retry_per_erase_ = p.read_retry_kpe_pct / 100.0 / 1000.0;
  hk_period_ns_ = p.hk_period_ms > 0 ? UsToNs(p.hk_period_ms * 1000.0) : 0;
  hk_ns_ = UsToNs(p.hk_us);
  merge_unit_ = p.merge_unit_bytes;
  merge_every_ = p.merge_every;
  merge_mask_ = merge_unit_ > 1 && (merge_unit_ & (merge_unit_ - 1)) == 0 ? merge_unit_ - 1 : 0;
  merge_ns_ = UsToNs(p.merge_us);
  block_of_ = FastDiv(g.pages_per_block);
  half_duplex_ = p.interface == HostInterface::kSata;
  cap_ps_per_byte_ = !half_duplex_ && p.link_cap_mb_s > 0
                         ? static_cast<uint64_t>(std::llround(1e6 / p.link_cap_mb_s))
                         : 0;
  slc_cache_ = g.slc_static_pages > 0 || p.slc_dynamic_pct > 0;
  prog_of_ = FastDiv(g.units_per_prog);
  page_of_ = FastDiv(g.units_per_page);
  die_mod_ = FastDiv(g.dies);
  type_mod_ = FastDiv(std::min<uint32_t>(4, p.bits_per_cell));
  dies_.assign(g.dies, Die{});
  for (uint32_t d = 0; d < g.dies; ++d) dies_[d].ch = d % p.channels;
  ch_free_.assign(p.channels, 0);
  ch_host_free_.assign(p.channels, 0);
  buffer_ring_.assign(g.buffer_pages, 0);
  buffer_mask_ = g.buffer_pages - 1;
  ahead_units_ = p.read_ahead_bytes / kUnitBytes;
  if (ahead_units_ > 0) {
    uint64_t n = 1;
    while (n < 2 * kReadStreams * ahead_units_) n *= 2;
    ahead_.assign(n, AheadUnit{});
    ahead_mask_ = n - 1;
  }
  assert((g.buffer_pages & (g.buffer_pages - 1)) == 0 && g.buffer_pages >= g.units_per_prog);
  if (fresh) ResetFactoryFresh(0);
}

void SimDevice::ResetFactoryFresh(uint64_t now_ns) {
  ftl_.Reset();
  link_free_[0] = link_free_[1] = now_ns;
  shared_link_.Reset();
  ctrl_free_ = gc_ctrl_free_ = now_ns;
  ctrl_cal_.Reset();
  last_was_write_ = false;
  gc_pending_ = false;
  for (Die& d : dies_) d.free_ns = d.read_free_ns = d.host_read_free_ns = now_ns;
  std::fill(ch_free_.begin(), ch_free_.end(), now_ns);
  std::fill(ch_host_free_.begin(), ch_host_free_.end(), now_ns);
  std::fill(buffer_ring_.begin(), buffer_ring_.end(), now_ns);
  buffer_seq_ = 0;
  host_busy_until_ = now_ns;
  host_group_ = Group{};
  host_group_.size = g_.units_per_prog;
  gc_group_ = Group{};
  last_gc_read_page_ = UINT32_MAX;
  last_gc_read_ch_ = 0;
  gc_credit_ = 0;
  gc_ratio_ = 0;
  lazy_batch_ = false;
  slc_used_ = 0;
  slc_pages_ = slc_folded_ = nand_reads_ = 0;
  host_read_pages_ = unmapped_read_pages_ = 0;
  fold_seq_ = 0;
  // Mixed, so that every seed has its own stream (xorshift needs a non-zero state).
  noise_.rng = Mix64(p_.seed) != 0 ? Mix64(p_.seed) : 0x9e3779b97f4a7c15ull;
  noise_.last_write_big = noise_.flush_skipped = 0;
  noise_.merge_logged = noise_.hk_log = 0;
  write_hold_until_ = 0;
  for (ReadStream& st : streams_) st = ReadStream{};
  stream_victim_ = 0;
  std::fill(ahead_.begin(), ahead_.end(), AheadUnit{});
  noise_.next_hk_ns = hk_period_ns_ > 0 && hk_ns_ > 0 ? now_ns + hk_period_ns_ : UINT64_MAX;
}

void SimDevice::ReadFlush(uint64_t t) {
  if (noise_.last_write_big) {  // set only when flush_chance_ < 1
    if (noise_.flush_skipped || Uniform() >= flush_chance_) {
      noise_.flush_skipped = 1;
      return;
    }
  }
  FlushHostGroup(t);
}

uint32_t SimDevice::PageType(uint32_t ppn) const {
  // (prog_of_.Div(ppn) / dies) % types, by multiplications.
  return type_mod_.Mod(die_mod_.Div(prog_of_.Div(ppn)));
}

uint64_t SimDevice::NoisyReadTime(uint32_t ppn) {
  const uint32_t type = PageType(ppn);
  uint64_t tr = type_tr_ns_[type];
  if (jitter_mean_ns_ > 0) tr += ExponentialNs(jitter_mean_ns_);
  if (retry_base_ > 0 || retry_per_erase_ > 0) {
    const double chance = retry_base_ + retry_per_erase_ * ftl_.erase_count(block_of_.Div(ppn));
    if (Uniform() <= chance) tr += type_tr_ns_[type];
  }
  return tr;
}

void SimDevice::Housekeeping(uint64_t t) {
  // The windows that started by t; only the latest can still hold writes (a window is
  // shorter than the period).
  const uint64_t k = (t - noise_.next_hk_ns) / hk_period_ns_;
  const uint64_t start = noise_.next_hk_ns + k * hk_period_ns_;
  // With a partial-write log, the first window due folds what the log took; a later one finds
  // it empty and holds nothing.
  const bool hold = merge_unit_ == 0 || (k == 0 && noise_.hk_log);
  noise_.hk_log = 0;
  if (hold) write_hold_until_ = std::max(write_hold_until_, start + hk_ns_);
  noise_.next_hk_ns = start + hk_period_ns_;
}

SSDLAB_HOT uint64_t SimDevice::SenseOnDie(uint32_t die, uint64_t t, uint64_t tr) {
  uint64_t& die_free = dies_[die].free_ns;
  if (!suspend_) {  // behind everything booked on the die
    die_free = std::max(t, die_free) + tr;
    return die_free;
  }
  // Reads have priority over queued programs (program suspend): they wait only for other
  // reads of the die, and push the die's queued programs back by tR.
  uint64_t& read_free = dies_[die].read_free_ns;
  read_free = std::max(t, read_free) + tr;
  die_free = std::max(t, die_free) + tr;
  return read_free;
}

DeviceCounters SimDevice::counters() const {
  const FtlCounters& f = ftl_.counters();
  return {.host_pages = f.host_pages,
          .nand_pages = f.host_pages + f.gc_copies + slc_folded_,
          .gc_copies = f.gc_copies,
          .erases = f.erases,
          .slc_pages = slc_pages_,
          .slc_folded = slc_folded_,
          .nand_reads = nand_reads_,
          .host_read_pages = host_read_pages_,
          .unmapped_read_pages = unmapped_read_pages_};
}

void LinkCalendar::MakeRoom(uint64_t now) {
  while (head_ < tail_ && iv_[head_].end <= now) ++head_;
  if (head_ > 0) {
    std::copy(iv_.begin() + static_cast<std::ptrdiff_t>(head_),
              iv_.begin() + static_cast<std::ptrdiff_t>(tail_), iv_.begin());
    tail_ -= head_;
    head_ = 0;
  }
  if (tail_ == iv_.size()) iv_.resize(std::max<size_t>(16, 2 * iv_.size()));
}

uint64_t LinkCalendar::BookInGap(uint64_t ready, uint64_t dur, uint64_t now) {
  // The scan below stops at last_ because it ends after ready >= now: that holds while times
  // do not wrap past 2^64 ns (a wrapped end once made it run off the buffer and write after
  // it; the simulator keeps its clock below 2^63 ns, SimBackend::RunPhase).
  assert(last_.end > ready && ready >= now);
  // With last_ in the buffer, as the general case; it comes back out at the end.
  Append(last_, now);
  while (iv_[head_].end <= now) ++head_;  // the last interval ends after ready >= now
  // The first interval that ends after `ready` (ends are in order); from there, the first gap
  // that fits.
  size_t i = static_cast<size_t>(
      std::partition_point(iv_.begin() + static_cast<std::ptrdiff_t>(head_),
                           iv_.begin() + static_cast<std::ptrdiff_t>(tail_),
                           [ready](const Interval& v) { return v.end <= ready; }) -
      iv_.begin());
  uint64_t start = ready;
  while (i < tail_ && iv_[i].begin < start + dur) {
    start = std::max(start, iv_[i].end);
    ++i;
  }
  const uint64_t end = start + dur;
  // Insert [start, end) before interval i, merging with the neighbours it touches.
  const bool join_prev = i > head_ && iv_[i - 1].end == start;
  const bool join_next = i < tail_ && iv_[i].begin == end;
  if (join_prev && join_next) {
    iv_[i - 1].end = iv_[i].end;
    std::copy(iv_.begin() + static_cast<std::ptrdiff_t>(i + 1),
              iv_.begin() + static_cast<std::ptrdiff_t>(tail_),
              iv_.begin() + static_cast<std::ptrdiff_t>(i));
    --tail_;
  } else if (join_prev) {
    iv_[i - 1].end = end;
  } else if (join_next) {
    iv_[i].begin = start;
  } else {
    if (tail_ == iv_.size()) {
      const size_t shift = head_;
      MakeRoom(now);  // drops nothing more: head_ ends after now
      i -= shift;
    }
    std::copy_backward(iv_.begin() + static_cast<std::ptrdiff_t>(i),
                       iv_.begin() + static_cast<std::ptrdiff_t>(tail_),
                       iv_.begin() + static_cast<std::ptrdiff_t>(tail_ + 1));
    iv_[i] = Interval{start, end};
    ++tail_;
  }
  last_ = iv_[--tail_];
  return end;
}

uint64_t SimDevice::slc_capacity_pages() const {
  if (!slc_cache_) return 0;
  const uint64_t unused = g_.user_pages - ftl_.mapped_pages();
  return g_.slc_static_pages +
         static_cast<uint64_t>(static_cast<double>(unused) * p_.slc_dynamic_pct / 100.0);
}

SSDLAB_HOT uint64_t SimDevice::ProgramOnDie(uint32_t die, uint32_t units, uint64_t ready,
                                            uint64_t t_prog) {
  uint64_t& ch_free = ch_free_[dies_[die].ch];
  const uint64_t xfer =
      units == g_.units_per_prog ? prog_ch_ns_ : units * kUnitBytes * ch_ps_per_byte_ / 1000;
  ch_free = std::max(ready, ch_free) + xfer;
  uint64_t& die_free = dies_[die].free_ns;
  die_free = std::max(ch_free, die_free) + t_prog;
  return die_free;
}

SSDLAB_HOT uint64_t SimDevice::Program(uint32_t first_ppn, uint32_t units, uint64_t ready,
                                       uint64_t t_prog) {
  return ProgramOnDie(die_mod_.Mod(prog_of_.Div(first_ppn)), units, ready, t_prog);
}

SSDLAB_HOT uint64_t SimDevice::NandRead(uint32_t ppn, bool sense, uint64_t t, uint64_t t_read) {
  const uint32_t die = die_mod_.Mod(prog_of_.Div(ppn));
  uint64_t data = t;
  const uint32_t ch = dies_[die].ch;
  if (gc_yield_) [[unlikely]]
    return HostFirstRead(die, ch, sense, t, t_read, ppn);
  if (sense) {
    data = SenseOnDie(die, t, noisy_read_ && t_read == t_read_ns_ ? NoisyReadTime(ppn) : t_read);
    ++nand_reads_;
  }
  uint64_t& ch_free = ch_free_[ch];
  ch_free = std::max(data, ch_free) + unit_ch_ns_;
  return ch_free;
}

uint64_t SimDevice::HostFirstRead(uint32_t die, uint32_t ch, bool sense, uint64_t t,
                                  uint64_t t_read, uint32_t ppn) {
  uint64_t data = t;
  if (sense) {
    const uint64_t tr = noisy_read_ && t_read == t_read_ns_ ? NoisyReadTime(ppn) : t_read;
    ++nand_reads_;
    if (suspend_) {
      // Ahead of the GC reads queued on the die, which move back by tR.
      Die& d = dies_[die];
      data = d.host_read_free_ns = std::max(t, d.host_read_free_ns) + tr;
      d.read_free_ns = std::max(t, d.read_free_ns) + tr;
      d.free_ns = std::max(t, d.free_ns) + tr;
    } else {
      data = SenseOnDie(die, t, tr);
    }
  }
  // Ahead of the GC transfers queued on the channel, likewise.
  uint64_t& host_free = ch_host_free_[ch];
  host_free = std::max(data, host_free) + unit_ch_ns_;
  ch_free_[ch] = std::max(data, ch_free_[ch]) + unit_ch_ns_;
  return host_free;
}

SSDLAB_HOT uint64_t SimDevice::CopyPage(GcHot& h, uint64_t t) {
  uint32_t left;
  const uint64_t end = CopyPageLeft(h, t, &left);
  return left == 0 ? std::max(end, BookErase(t)) : end;
}

SSDLAB_HOT uint64_t SimDevice::CopyPageLeft(GcHot& h, uint64_t t, uint32_t* left) {
  const uint32_t src = ftl_.NextVictimPage();
  const uint32_t dst = ftl_.RelocateVictimPage(src, left);
  h.ctrl_free = std::max(t, h.ctrl_free) + ctrl_gc_ns_;
  // One tR per NAND page: consecutive valid units of a page are read with one sense.
  const uint32_t page = page_of_.Div(src);
  uint64_t data = t;
  if (page != h.last_page) {
    h.last_page = page;
    const uint32_t die = die_mod_.Mod(prog_of_.Div(src));
    h.last_ch = dies_[die].ch;
    data = SenseOnDie(die, t, noisy_read_ ? NoisyReadTime(src) : t_read_ns_);
    ++nand_reads_;
  }
  uint64_t& ch_free = ch_free_[h.last_ch];
  ch_free = std::max(data, ch_free) + unit_ch_ns_;
  const uint64_t ready = ch_free;
  uint64_t end = std::max(ready, h.ctrl_free);
  if (ready > h.grp_ready) h.grp_ready = ready;
  if (++h.grp_count == g_.units_per_prog) {
    // The GC frontier fills blocks in order from their first page and a block holds whole
    // programs, so the group is the last units_per_prog pages up to dst.
    end = std::max(end, Program(dst + 1 - h.grp_count, h.grp_count, h.grp_ready,
                                NativeProgNs(dst + 1 - h.grp_count)));
    h.grp_count = 0;
    h.grp_ready = 0;
  }
  return end;
}

SimDevice::GcHot SimDevice::LoadGcHot() const {
  GcHot h;
  h.ctrl_free = gc_yield_ ? gc_ctrl_free_ : ctrl_free_;
  h.grp_ready = gc_group_.ready_ns;
  h.grp_count = gc_group_.count;
  h.last_page = last_gc_read_page_;
  h.last_ch = last_gc_read_ch_;
  return h;
}

void SimDevice::StoreGcHot(const GcHot& h) {
  GcCtrlFree() = h.ctrl_free;
  gc_group_.ready_ns = h.grp_ready;
  gc_group_.count = h.grp_count;
  last_gc_read_page_ = h.last_page;
  last_gc_read_ch_ = h.last_ch;
}

uint64_t SimDevice::Write(uint64_t offset, uint32_t bytes, uint64_t t) {
  const uint64_t lpn_begin = offset / kUnitBytes;
  const uint64_t lpn_end = (offset + bytes + kUnitBytes - 1) / kUnitBytes;
  const uint64_t units = lpn_end - lpn_begin;
  uint64_t link;
  if (half_duplex_) {
    link = shared_link_.Book(t, write_xfer_.Ns(bytes, link_ps_per_byte_), t);
  } else {
    link = link_free_[0] = std::max(t, link_free_[0]) + write_xfer_.Ns(bytes, link_ps_per_byte_);
    if (cap_ps_per_byte_) link = std::max(link, shared_link_.Book(t, CapNs(bytes), t));
  }
  if (link < write_hold_until_) link = write_hold_until_;
  const uint64_t tc =
      BookCtrl(link, WriteCtrlNs() + ExtraCtrlNs(units * kUnitBytes, ctrl_write_ps_per_byte_), t);
  uint64_t done = tc;
  for (uint64_t lpn = lpn_begin; lpn < lpn_end; ++lpn) {
    const uint64_t slot = buffer_seq_++;
    uint64_t ready = std::max(tc, buffer_ring_[slot & buffer_mask_]);
    const bool partial = (lpn == lpn_begin && offset % kUnitBytes != 0) ||
                         (lpn + 1 == lpn_end && (offset + bytes) % kUnitBytes != 0);
    if (partial) {  // read-modify-write of a partly covered unit
      const uint32_t old = ftl_.Lookup(static_cast<uint32_t>(lpn));
      if (old != Ftl::kNone) ready = std::max(ready, NandRead(old, true, tc, t_read_ns_));
    }
    if (ready > done) done = ready;
    BufferHostUnit(slot, lpn, ready, t, tc);
  }
  return done;
}

uint64_t SimDevice::WriteUnit(uint64_t lpn, uint64_t t) {
  uint64_t link;
  if (half_duplex_) {
    link = shared_link_.Book(t, unit_link_ns_, t);
  } else {
    link = link_free_[0] = std::max(t, link_free_[0]) + unit_link_ns_;
    if (cap_ps_per_byte_) link = std::max(link, shared_link_.Book(t, CapNs(kUnitBytes), t));
  }
  if (link < write_hold_until_) link = write_hold_until_;
  const uint64_t tc = BookCtrl(link, WriteCtrlNs(), t);
  const uint64_t slot = buffer_seq_++;
  const uint64_t ready = std::max(tc, buffer_ring_[slot & buffer_mask_]);
  BufferHostUnit(slot, lpn, ready, t, tc);
  return ready;
}

void SimDevice::OpenHostGroup(uint64_t slot) {
  Group& grp = host_group_;
  grp.slc = slc_used_ + g_.units_per_slc_prog <= slc_capacity_pages();
  grp.size = grp.slc ? g_.units_per_slc_prog : g_.units_per_prog;
  grp.first_slot = slot;
  grp.ready_ns = 0;
  if (grp.slc) {
    slc_used_ += grp.size;
    slc_pages_ += grp.size;
  }
}

void SimDevice::ProgramHostGroup() {
  Group& grp = host_group_;
  const uint64_t end = Program(grp.first_ppn, grp.size, grp.ready_ns, HostProgNs(grp));
  uint64_t* const ring = buffer_ring_.data();
  const uint64_t first = grp.first_slot, size = grp.size, mask = buffer_mask_;
  for (uint64_t k = 0; k < size; ++k) ring[(first + k) & mask] = end;
  if (plp_) [[unlikely]]
    plp_->Programmed(first, size, end);
  grp.count = 0;
}

void SimDevice::CloseShortHostGroup(uint64_t end) {
  Group& grp = host_group_;
  const uint32_t n = grp.count;
  if (grp.slc) {  // the group had booked a full program's room in the SLC cache
    slc_used_ -= grp.size - n;
    slc_pages_ -= grp.size - n;
  }
  for (uint64_t k = 0; k < n; ++k) buffer_ring_[(grp.first_slot + k) & buffer_mask_] = end;
  if (plp_) [[unlikely]]
    plp_->Programmed(grp.first_slot, n, end);
  grp.count = 0;
}

void SimDevice::FlushHostGroup(uint64_t t) {
  Group& grp = host_group_;
  const uint32_t n = grp.count;
  const uint64_t t_prog = HostProgNs(grp);
  const uint64_t ready = std::max(t, grp.ready_ns);
  // The die's time is booked as for any program; the controller waits for its own program
  // only, which the die runs before the work queued on it (GC), as a suspend would allow.
  ProgramOnDie(die_mod_.Mod(prog_of_.Div(grp.first_ppn)), n, ready, t_prog);
  const uint64_t done = ready + n * unit_ch_ns_ + t_prog;
  CloseShortHostGroup(done);
  // (The drive is idle: nothing of the host's is booked on the controller after t.)
  if (gc_yield_) {
    if (done > t) BookCtrl(t, done - t, t);
  } else if (ctrl_free_ < done) {
    ctrl_free_ = done;
  }
}

void SimDevice::EnablePowerLossTracking() {
  const uint64_t budget = (p_.plp_flush_bytes + kUnitBytes - 1) / kUnitBytes;
  plp_ = std::make_unique<PowerLossTracker>(g_.user_pages, p_.plp, budget,
                                            UsToNs(p_.map_persist_ms * 1000.0));
}

uint64_t SimDevice::Flush(uint64_t t) {
  uint64_t done = std::max(t + 1, host_busy_until_);
  if (p_.plp) return done;
  Group& grp = host_group_;
  if (grp.count > 0) {  // the open group's units are programmed now, as a smaller program
    CloseShortHostGroup(
        Program(grp.first_ppn, grp.count, std::max(t, grp.ready_ns), HostProgNs(grp)));
  }
  // Every buffered unit's program has been booked: the flush ends with the last of them.
  for (const uint64_t release : buffer_ring_) done = std::max(done, release);
  return done;
}

uint64_t SimDevice::Read(uint64_t offset, uint32_t bytes, uint64_t t) {
  if (ahead_units_ > 0) return ReadWithReadAhead(offset, bytes, t);
  const uint64_t lpn_begin = offset / kUnitBytes;
  const uint64_t lpn_end = (offset + bytes + kUnitBytes - 1) / kUnitBytes;
  const uint64_t units = lpn_end - lpn_begin;
  const uint64_t tc =
      BookCtrl(t, ReadCtrlNs() + ExtraCtrlNs(units * kUnitBytes, ctrl_read_ps_per_byte_), t);
  uint64_t ready = tc;
  uint32_t last_page = UINT32_MAX;
  host_read_pages_ += units;
  for (uint64_t lpn = lpn_begin; lpn < lpn_end; ++lpn) {
    const uint32_t ppn = ftl_.Lookup(static_cast<uint32_t>(lpn));
    if (ppn == Ftl::kNone) {  // never written or trimmed: no NAND access
      ++unmapped_read_pages_;
      continue;
    }
    const uint32_t page = page_of_.Div(ppn);
    const uint64_t r = NandRead(ppn, page != last_page, tc, t_read_ns_);
    last_page = page;
    if (r > ready) ready = r;
  }
  return BookReadLink(ready, bytes, t);
}

uint64_t SimDevice::ReadWithReadAhead(uint64_t offset, uint32_t bytes, uint64_t t) {
  const uint64_t lpn_begin = offset / kUnitBytes;
  const uint64_t lpn_end = (offset + bytes + kUnitBytes - 1) / kUnitBytes;
  const uint64_t units = lpn_end - lpn_begin;
  // The stream this read continues, if any (else it starts one, replacing the oldest).
  ReadStream* st = nullptr;
  for (ReadStream& s : streams_) {
    if (s.next == offset) st = &s;
  }
  const bool continues = st != nullptr;
  if (!continues) {
    st = &streams_[stream_victim_];
    stream_victim_ = (stream_victim_ + 1) % kReadStreams;
    *st = ReadStream{};
  }
  st->next = offset + bytes;
  // Units already in the read-ahead buffer (hits) cost no NAND read and no per-KiB time.
  uint64_t hits = 0, hit_ready = 0;
  for (uint64_t lpn = lpn_begin; lpn < lpn_end; ++lpn) {
    const AheadUnit& a = ahead_[lpn & ahead_mask_];
    if (a.lpn == lpn && a.ppn == ftl_.Lookup(static_cast<uint32_t>(lpn))) {
      ++hits;
      hit_ready = std::max(hit_ready, a.ready_ns);
    }
  }
  const uint64_t nand_units = units - hits;
  const uint64_t tc =
      BookCtrl(t, ReadCtrlNs() + ExtraCtrlNs(nand_units * kUnitBytes, ctrl_read_ps_per_byte_), t);
  uint64_t ready = std::max(tc, hit_ready);
  uint32_t last_page = UINT32_MAX;
  host_read_pages_ += units;
  for (uint64_t lpn = lpn_begin; lpn < lpn_end; ++lpn) {
    const uint32_t ppn = ftl_.Lookup(static_cast<uint32_t>(lpn));
    if (ppn == Ftl::kNone) {
      ++unmapped_read_pages_;
      continue;
    }
    AheadUnit& a = ahead_[lpn & ahead_mask_];
    if (a.lpn == lpn && a.ppn == ppn) {
      a.lpn = UINT64_MAX;  // delivered: the slot is free again
      continue;
    }
    const uint32_t page = page_of_.Div(ppn);
    const uint64_t r = NandRead(ppn, page != last_page, tc, t_read_ns_);
    last_page = page;
    if (r > ready) ready = r;
  }
  // A continued stream: once less than half the window is left ahead of this read, read up
  // to a window past it (booked on dies and channels now; units of one NAND page share a
  // sense, so the read-ahead comes in batches of at least half a window).
  if (continues && st->ahead_end < lpn_end + ahead_units_ / 2) {
    const uint64_t from = std::max(st->ahead_end, lpn_end);
    const uint64_t to = std::min<uint64_t>(lpn_end + ahead_units_, g_.user_pages);
    for (uint64_t lpn = from; lpn < to; ++lpn) {
      const uint32_t ppn = ftl_.Lookup(static_cast<uint32_t>(lpn));
      if (ppn == Ftl::kNone) continue;
      const uint32_t page = page_of_.Div(ppn);
      AheadUnit& a = ahead_[lpn & ahead_mask_];
      a.lpn = lpn;
      a.ppn = ppn;
      a.ready_ns = NandRead(ppn, page != last_page, tc, t_read_ns_);
      last_page = page;
    }
    st->ahead_end = std::max(st->ahead_end, to);
  }
  return BookReadLink(ready, bytes, t);
}

uint64_t SimDevice::Trim(uint64_t offset, uint32_t bytes, uint64_t t) {
  const uint64_t tc = BookCtrl(t, ctrl_trim_ns_, t);
  // Only whole 4 KiB units are unmapped; partial ones keep their data.
  const uint64_t lpn_begin = (offset + kUnitBytes - 1) / kUnitBytes;
  const uint64_t lpn_end = (offset + bytes) / kUnitBytes;
  for (uint64_t lpn = lpn_begin; lpn < lpn_end; ++lpn) ftl_.Trim(static_cast<uint32_t>(lpn));
  return tc;
}

void SimDevice::SetRatio() {
  const uint32_t v = ftl_.victim_valid();
  const uint32_t ppb = g_.pages_per_block;
  gc_ratio_ = v >= ppb ? ppb : static_cast<double>(v) / (ppb - v);
}

uint64_t SimDevice::BookErase(uint64_t t) {
  const uint32_t b = ftl_.EraseVictim();
  uint64_t& die_free = dies_[b % g_.dies].free_ns;
  die_free = std::max(t, die_free) + t_erase_ns_;
  return die_free;
}

uint64_t SimDevice::CopyOne(uint64_t t, bool* copied) {
  if (ftl_.victim_valid() == 0) {
    *copied = false;
    return BookErase(t);
  }
  *copied = true;
  GcHot h = LoadGcHot();
  const uint64_t end = CopyPage(h, t);
  StoreGcHot(h);
  return end;
}

bool SimDevice::GcStep(uint64_t t, uint64_t* end) {
  if (!ftl_.collecting()) {
    if (!ftl_.SelectVictim()) return false;
    SetRatio();
  }
  bool copied;
  *end = CopyOne(t, &copied);
  return true;
}

template <class More>
SSDLAB_HOT void SimDevice::SteppedGc(uint64_t t, double pace, More more) {
  if (!ftl_.collecting()) {
    if (!more()) return;
    if (!StartVictim()) return;
  }
  double credit = gc_credit_ + gc_ratio_ * pace;
  if (credit >= 1) {
    GcHot h = LoadGcHot();
    uint32_t left = ftl_.victim_valid();
    do {
      if (left != 0) {
        CopyPageLeft(h, t, &left);
        credit -= 1;
        if (left != 0) continue;  // still collecting this victim
      }
      BookErase(t);
      if (!more() || !NextVictim()) {
        credit = 0;
        break;
      }
      left = ftl_.victim_valid();
    } while (credit >= 1);
    StoreGcHot(h);
  }
  gc_credit_ = credit;
}

SSDLAB_HOT void SimDevice::ForegroundGc(uint64_t t) {
  if (p_.gc_lazy) {
    if (gc_yield_) {
      YieldingGc(t);
    } else if (lazy_batch_ || ftl_.free_blocks() <= LazyBatchStart()) {
      LazyGc(t);  // (else it has nothing to do: no batch under way or due, the pool not dry)
    }
    return;
  }
  // Copy in proportion to host writes, so the victim is free when the host frontier has used
  // up the space it yields (incremental GC interleaved with host writes).
  SteppedGc(t, 1.0, [this] { return BelowWatermark(); });
  // Never let the pool run dry: the frontiers need blocks.
  if (ftl_.free_blocks() <= g_.min_free_blocks) RefillPool(t);
}

bool SimDevice::StartVictim() {
  if (!ftl_.SelectVictim()) return false;
  SetRatio();
  return true;
}

bool SimDevice::NextVictim() {
  if (!ftl_.SelectVictim()) return false;
  SetRatio();
  return true;
}

void SimDevice::RefillPool(uint64_t t) {
  uint64_t end;
  while (ftl_.free_blocks() <= g_.min_free_blocks) {
    if (!GcStep(t, &end)) break;
  }
}

void SimDevice::LazyGc(uint64_t t) {
  // Lazy firmware: nothing until the pool is (nearly) empty, then a batch.
  const uint32_t start = LazyBatchStart();
  if (p_.gc_batch_pace > 0) {
    const uint32_t target = start + g_.batch_blocks;
    if (!lazy_batch_ && ftl_.free_blocks() <= start) lazy_batch_ = true;
    if (lazy_batch_) {
      SteppedGc(t, p_.gc_batch_pace, [&] { return ftl_.free_blocks() < target; });
      if (ftl_.free_blocks() >= target) lazy_batch_ = false;
    }
  } else if (ftl_.free_blocks() <= start) {
    uint64_t end;  // the whole batch at once: new writes wait for it
    while (ftl_.free_blocks() < start + g_.batch_blocks && GcStep(t, &end)) {
    }
  }
  // Never let the pool run dry: the frontiers need blocks.
  RefillPool(t);
}

void SimDevice::YieldingGc(uint64_t t) {
  const uint32_t threshold = YieldThreshold();
  const uint32_t free = ftl_.free_blocks();
  if (free >= threshold) return;
  gc_pending_ = true;
  if (free > g_.min_free_blocks + 1) return;
  // The pool has run dry: a batch is booked now and new writes wait for it; reads do not (GC
  // has its own controller line).
  uint64_t end;
  while (ftl_.free_blocks() < threshold && GcStep(t, &end)) {
  }
  RefillPool(t);
  if (write_hold_until_ < gc_ctrl_free_) write_hold_until_ = gc_ctrl_free_;
}

void SimDevice::GcInGaps(uint64_t t) {
  uint64_t at = std::max(gc_ctrl_free_, ctrl_free_);
  bool ran = false;
  while (at < t) {
    uint64_t end;
    if ((!ftl_.collecting() && ftl_.free_blocks() >= YieldThreshold()) || !GcStep(at, &end)) {
      gc_pending_ = false;
      break;
    }
    ran = true;
    at = std::max(gc_ctrl_free_, at);
  }
  if (ran && gc_ctrl_free_ > t) BookCtrl(t, gc_ctrl_free_ - t, t);
}

uint64_t SimDevice::FoldStep(uint64_t t) {
  const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(slc_used_, g_.units_per_prog));
  slc_used_ -= n;
  slc_folded_ += n;
  const uint32_t read_die = static_cast<uint32_t>(fold_seq_++ % g_.dies);
  uint64_t ready = t;
  for (uint32_t i = 0; i < n; i += g_.units_per_slc_prog) {
    uint64_t& die_free = dies_[read_die].free_ns;
    die_free = std::max(t, die_free) + slc_t_read_ns_;
    ++nand_reads_;
    uint64_t& ch_free = ch_free_[dies_[read_die].ch];
    ch_free = std::max(die_free, ch_free) +
              std::min(n - i, g_.units_per_slc_prog) * kUnitBytes * ch_ps_per_byte_ / 1000;
    ready = std::max(ready, ch_free);
  }
  const uint32_t prog_die = (read_die + g_.dies / 2) % g_.dies;
  return ProgramOnDie(prog_die, n, ready, t_prog_ns_);
}

void SimDevice::Background(uint64_t from, uint64_t to) {
  // Work is queued from `from` on; stop once the work booked reaches `to`. With a GC rate
  // limit (gc_bg_mb_s) the GC steps start one copy gap apart, so the space reclaimed grows
  // with the idle time instead of all of it being queued at once.
  uint64_t horizon = from;
  uint64_t at = from;  // when the next GC step may start
  while (horizon < to && at < to) {
    uint64_t end;
    if (slc_used_ > 0) {
      end = FoldStep(from);
    } else if (ftl_.collecting() || ftl_.free_blocks() < g_.bg_free_blocks) {
      if (!GcStep(at, &end)) break;
      at += bg_copy_gap_ns_;
    } else {
      break;
    }
    horizon = std::max(horizon, end);
  }
}

}  // namespace ssdlab::sim
