// The simulated drive: FTL (ftl.h) plus a resource-reservation timing model in virtual
// nanoseconds. Each resource (host link per direction, controller, every channel, every die)
// has a "busy until" time; an operation booked at time t starts at max(t, busy until) and
// pushes it forward. Commands are submitted in non-decreasing time order by the caller (the
// event loop in sim_backend.cc), which makes the model deterministic and O(1) per 4 KiB unit.
//
// Write path: host link -> controller (per-command + per-unit time) -> DRAM write buffer
// (a ring of `buffer_pages` slots; a slot is reused only when the program holding its data has
// finished, so a full buffer makes the host wait for NAND) -> the command completes once all
// its units are buffered. Buffered units are grouped into multi-plane programs (or smaller
// SLC-mode programs while the SLC cache has room) that occupy a channel (transfer) then a die
// (tPROG). Garbage collection is driven from the write path (foreground) and from host idle
// time (background): every page copy costs controller time, a NAND read on the source die
// (one tR per source NAND page), channel transfers and its share of a program; every erase
// costs tBERS on its die. Host writes queue behind that work, so GC throttles them.
//
// Die placement (an accounting abstraction, as in a superblock-striping controller): the
// program holding physical page ppn runs on die (ppn / units_per_prog) mod dies, reads of ppn
// go to that die, and a block's erase is charged to die (block mod dies).
//
// Read path: controller -> for each mapped unit a NAND read (one tR per NAND page touched) and
// a channel transfer -> host link. Unmapped (never written or trimmed) units skip NAND. NAND
// reads (host and GC) have priority over queued programs, as with program suspend: a read
// waits only for earlier reads of its die and delays the die's queued programs by tR; without
// suspend (`suspend=0`) a read queues behind the programs and erases booked on its die.
// tR can depend on the page type (LSB..MSB), carry a seeded random extra and read retries
// whose chance grows with the block's erase count; periodic firmware housekeeping holds new
// writes (sim/params.h has the knobs; all off by default).
//
// Not thread-safe.
#pragma once

#include <cassert>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/exponential.h"
#include "sim/fastdiv.h"
#include "sim/ftl.h"
#include "sim/params.h"
#include "sim/power_loss.h"
#include "workload/spec.h"

namespace ssdlab::sim {

struct DeviceCounters {
  uint64_t host_pages = 0;  // 4 KiB units written by the host
  uint64_t nand_pages = 0;  // 4 KiB units programmed (host + GC copies + SLC folding)
  uint64_t gc_copies = 0;
  uint64_t erases = 0;
  uint64_t slc_pages = 0;            // host units programmed in SLC mode
  uint64_t slc_folded = 0;           // units moved from SLC to native mode
  uint64_t nand_reads = 0;           // NAND page reads (host and GC)
  uint64_t host_read_pages = 0;      // 4 KiB units read by the host
  uint64_t unmapped_read_pages = 0;  // of which found nothing mapped (answered without NAND)
};

// Bookings of a resource that serves in gaps: a shared half-duplex link (SATA), or the
// controller with gc_yield. Busy intervals in time order. A transfer takes
// the first gap at or after the time its data is ready, so a write command's data can cross
// the link while it would otherwise idle before a read's data (booked earlier, when the read
// was submitted) is ready; a single "busy until" would leave such gaps unused. When every
// booking is at or after the previous ones (e.g. writes only) this is the "busy until" model
// exactly.
class LinkCalendar {
 public:
  void Reset() {
    head_ = tail_ = 0;
    last_ = Interval{0, 0};
  }
  // Books `dur` ns from the first time >= ready that is free for that long; returns its end.
  // REQUIRES: now is non-decreasing over calls and ready >= now.
  [[gnu::always_inline]] uint64_t Book(uint64_t ready, uint64_t dur, uint64_t now) {
    assert(ready >= now && ready + dur >= ready && "a booking in the past or past 2^64 ns");
    if (ready <= last_.end) {
      if (ready >= last_.begin) return last_.end += dur;  // no gap after ready but the end
      return BookInGap(ready, dur, now);
    }
    // After everything booked. Once the last booking has ended by now (ends are in order),
    // none can matter again.
    if (last_.end > now) {
      Append(last_, now);
    } else {
      head_ = tail_ = 0;
    }
    last_ = Interval{ready, ready + dur};
    return last_.end;
  }

 private:
  struct Interval {
    uint64_t begin, end;
  };
  void Append(const Interval& v, uint64_t now) {
    if (tail_ == iv_.size()) [[unlikely]]
      MakeRoom(now);
    iv_[tail_++] = v;
  }
  // Drops intervals that end by `now` (no booking starts earlier); the rest move to the
  // front, and the buffer grows if still full.
  void MakeRoom(uint64_t now);
  uint64_t BookInGap(uint64_t ready, uint64_t dur, uint64_t now);

 public:
  // Saved states (sim/state.cc): the bookings in order (the buffer's layout does not matter).
  template <class Ar>
  void VisitState(Ar& ar);

 private:
  // The bookings in order: iv_[head_, tail_) then last_ (the latest; {0, 0} when none), disjoint.
  std::vector<Interval> iv_;
  size_t head_ = 0;
  size_t tail_ = 0;
  Interval last_{0, 0};
};

class SimDevice {
 public:
  // REQUIRES: p validated, g = DeriveGeometry(p). fresh = false: the drive's state is left
  // unset, for sim::LoadState to fill at once (saves touching gigabytes twice).
  SimDevice(const SimParams& p, const Geometry& g, bool fresh = true);

  // Purge: all blocks erased, mapping empty, SLC cache empty, counters zero. Resources are
  // idle from `now_ns` on.
  void ResetFactoryFresh(uint64_t now_ns);

  // Runs one host command submitted at `t_ns` and returns its completion time (> t_ns).
  // REQUIRES: t_ns >= the previous call's t_ns; [offset, offset + bytes) inside user space.
  // Inlined into the event loop: the call's register saves cost more than the checks here.
  [[gnu::always_inline]] uint64_t Submit(Direction dir, uint64_t offset, uint32_t bytes,
                                         uint64_t t_ns) {
    if (t_ns >= noise_.next_hk_ns) [[unlikely]]
      Housekeeping(t_ns);
    if (gc_pending_) [[unlikely]]
      GcInGaps(t_ns);
    if (t_ns >= host_busy_until_ + bg_idle_ns_ &&
        (slc_used_ > 0 || ftl_.collecting() || ftl_.free_blocks() < g_.bg_free_blocks)) {
      Background(host_busy_until_ + bg_idle_ns_, t_ns);
    }
    uint64_t done;
    if (dir == Direction::kWrite) {
      if (merge_unit_ != 0 && !CoversMergeUnits(offset, bytes)) LogPartialWrite(t_ns);
      if (flush_chance_ < 1.0) {
        noise_.last_write_big = bytes > kUnitBytes;
        noise_.flush_skipped = 0;
      }
      done = bytes == kUnitBytes && offset % kUnitBytes == 0 ? WriteUnit(offset / kUnitBytes, t_ns)
                                                             : Write(offset, bytes, t_ns);
    } else if (dir == Direction::kRead) {
      if (read_flush_ && host_group_.count > 0 && t_ns >= host_busy_until_) [[unlikely]]
        ReadFlush(t_ns);
      done = Read(offset, bytes, t_ns);
    } else {
      done = Trim(offset, bytes, t_ns);
    }
    done += cmd_ns_;
    if (done <= t_ns) [[unlikely]]
      done = t_ns + 1;  // a command of zero cost still takes one tick: the clock advances
    if (done > host_busy_until_) host_busy_until_ = done;
    return done;
  }

  // Cache hint for a command about to be submitted (no effect on results).
  [[gnu::always_inline]] void Prefetch(uint64_t offset) const {
    if (offset / kUnitBytes < g_.user_pages) ftl_.PrefetchMapping(offset / kUnitBytes);
  }

  // Host idle during [from_ns, to_ns): background GC and SLC folding use the resources.
  // REQUIRES: from_ns >= the last Submit's t_ns.
  void Background(uint64_t from_ns, uint64_t to_ns);

  // When host activity last ended (latest completion so far); background work may start
  // bg_idle after it.
  uint64_t host_busy_until_ns() const { return host_busy_until_; }
  uint64_t bg_idle_ns() const { return bg_idle_ns_; }

  DeviceCounters counters() const;
  uint32_t free_blocks() const { return ftl_.free_blocks(); }
  // Lowest free-block count seen since the last ResetFreeMin().
  uint32_t free_blocks_min() const { return ftl_.free_blocks_min(); }
  void ResetFreeMin() { ftl_.ResetFreeMin(); }
  uint64_t slc_used_pages() const { return slc_used_; }
  uint64_t slc_capacity_pages() const;
  const Ftl& ftl() const { return ftl_; }
  const Geometry& geometry() const { return g_; }
  const SimParams& params() const { return p_; }

  // Power-loss tracking (sim/power_loss.h), off until enabled: the hot path then does one
  // branch on a null pointer. Enabling it starts from a drive that holds nothing tagged.
  void EnablePowerLossTracking();
  PowerLossTracker* power_loss() { return plp_.get(); }
  // A flush (or the flush part of a FUA write) submitted at t_ns; returns when it completes
  // (> t_ns). plp: when every command so far has completed (the buffer is protected). No plp:
  // the units the open program group holds are programmed now, and the flush completes once
  // every buffered unit's program has ended as well.
  uint64_t Flush(uint64_t t_ns);

  // Saved states (sim/state.cc): visits every field of the drive's state (FTL included) in a
  // fixed order; CheckLoaded() checks the indices a loaded state could hold out of range
  // (empty string: fine).
  template <class Ar>
  void VisitState(Ar& ar);
  std::string CheckLoaded() const;
  // After a load has passed CheckLoaded(): rebuilds what is not stored (the reverse map).
  void RebuildAfterLoad() { ftl_.RebuildReverseMap(); }

 private:
  // (Saved whole in states: the padding is explicit, so that a state's bytes do not depend on
  // what the memory held before; sim/state.cc checks that saved types have none left.)
  struct Group {  // units accumulating toward one program
    uint32_t count = 0;
    uint32_t size = 0;
    uint32_t first_ppn = 0;
    uint32_t padding0 = 0;
    uint64_t ready_ns = 0;    // all data in controller memory
    uint64_t first_slot = 0;  // host groups: buffer slot sequence of the first unit
    bool slc = false;
    uint8_t padding1[7] = {};
  };

  uint64_t Write(uint64_t offset, uint32_t bytes, uint64_t t);
  // Write() of one aligned 4 KiB unit `lpn` (the same bookings, without the general loop).
  uint64_t WriteUnit(uint64_t lpn, uint64_t t);
  // Starts the host program group with the unit in buffer slot `slot`.
  void OpenHostGroup(uint64_t slot);
  // OpenHostGroup, inline when the drive has no SLC cache (groups are all native programs).
  void StartHostGroup(uint64_t slot) {
    if (slc_cache_) {
      OpenHostGroup(slot);
    } else {
      host_group_.first_slot = slot;
      host_group_.ready_ns = 0;
    }
  }
  // A host unit `lpn` written into buffer slot `slot` (at `t`, the controller done at `tc`), its
  // data there at `ready`: told to the PLP model, mapped to the next page of the open host group
  // (programmed once full), then foreground GC as the free pool needs. Write and WriteUnit.
  [[gnu::always_inline]] void BufferHostUnit(uint64_t slot, uint64_t lpn, uint64_t ready,
                                             uint64_t t, uint64_t tc) {
    if (plp_) [[unlikely]]
      plp_->Buffered(slot, lpn, ready, t);
    Group& grp = host_group_;
    if (grp.count == 0) StartHostGroup(slot);
    const uint32_t ppn = ftl_.HostWrite(static_cast<uint32_t>(lpn));
    if (grp.count == 0) grp.first_ppn = ppn;
    if (ready > grp.ready_ns) grp.ready_ns = ready;
    if (++grp.count == grp.size) ProgramHostGroup();
    ForegroundGc(tc);
  }
  // The transfer of a read's `bytes` to the host once its data is ready at `ready` (the request
  // at `t`): on the shared link (half duplex) or the read direction's, within the cap of both
  // directions' sum. Returns the transfer's end.
  uint64_t BookReadLink(uint64_t ready, uint32_t bytes, uint64_t t) {
    if (half_duplex_) return shared_link_.Book(ready, read_xfer_.Ns(bytes, link_ps_per_byte_), t);
    uint64_t& link = link_free_[1];
    link = std::max(ready, link) + read_xfer_.Ns(bytes, link_ps_per_byte_);
    if (cap_ps_per_byte_) return std::max(link, shared_link_.Book(ready, CapNs(bytes), t));
    return link;
  }
  // Books the program of the full host group and the release of its buffer slots.
  void ProgramHostGroup();
  // read_flush: programs the open host group's buffered units now, as one program, releases
  // their buffer slots and holds the controller until it has ended. REQUIRES: count > 0.
  void FlushHostGroup(uint64_t t);
  // After the open host group's `count` units were booked as one smaller program ending at
  // `end`: their buffer slots are released then, the SLC room booked for a full program is
  // given back, and the group is empty.
  void CloseShortHostGroup(uint64_t end);
  // A read reaching an idle drive with units in the open host group: FlushHostGroup, except
  // after a write larger than 4 KiB, where it flushes with chance read_flush_big_pct (one draw
  // per write; a read that draws no flush leaves the reads after it unflushed too).
  void ReadFlush(uint64_t t);
  uint64_t Read(uint64_t offset, uint32_t bytes, uint64_t t);
  // Read() with read-ahead (read_ahead_bytes > 0): units of a stream found in the read-ahead
  // buffer skip NAND and the per-KiB controller time; a read continuing a stream reads the
  // stream's next read_ahead_bytes into the buffer.
  uint64_t ReadWithReadAhead(uint64_t offset, uint32_t bytes, uint64_t t);
  // Controller time (ns) of `bytes` of a command's data beyond its first 4 KiB.
  uint64_t ExtraCtrlNs(uint64_t bytes, uint64_t ps_per_byte) const {
    return bytes > kUnitBytes ? (bytes - kUnitBytes) * ps_per_byte / 1000 : 0;
  }
  uint64_t Trim(uint64_t offset, uint32_t bytes, uint64_t t);
  // Books a program of `units` on the die holding `first_ppn` (or on `die`), data ready at
  // `ready`; returns its end.
  uint64_t Program(uint32_t first_ppn, uint32_t units, uint64_t ready, uint64_t t_prog);
  uint64_t ProgramOnDie(uint32_t die, uint32_t units, uint64_t ready, uint64_t t_prog);
  // Books a NAND read (when `sense`; otherwise the page is already in the die's register) of
  // the page holding ppn and the transfer of one unit to the controller; returns when the
  // data is in controller memory.
  uint64_t NandRead(uint32_t ppn, bool sense, uint64_t t, uint64_t t_read);
  // NandRead with gc_yield: the host's read goes ahead of the GC reads and transfers queued
  // on its die and channel (they move back by its time).
  uint64_t HostFirstRead(uint32_t die, uint32_t ch, bool sense, uint64_t t, uint64_t t_read,
                         uint32_t ppn);
  // Books a NAND read of tR `tr` on `die` at t (suspending programs or queued behind them);
  // returns when the data is in the die's register.
  uint64_t SenseOnDie(uint32_t die, uint64_t t, uint64_t tr);
  // The page type (0 LSB .. bits - 1 MSB) of the program holding ppn: successive programs of
  // a die are successive pages of its blocks, so their types cycle.
  uint32_t PageType(uint32_t ppn) const;
  // tPROG of a native-mode program starting at ppn (by page type with t_prog_type_pct, plus
  // the random extra of t_prog_jitter_us).
  uint64_t NativeProgNs(uint32_t ppn) {
    const uint64_t t = typed_prog_ ? type_tprog_ns_[PageType(ppn)] : t_prog_ns_;
    if (prog_jitter_mean_ns_ > 0) [[unlikely]]
      return t + ExponentialNs(prog_jitter_mean_ns_);
    return t;
  }
  // Controller time of a write command's first 4 KiB: ctrl_write_us, of which the share
  // ctrl_write_jitter_pct is drawn (exponential), and ctrl_turn_us after a read.
  uint64_t WriteCtrlNs() {
    const uint64_t turn = TurnNs(true);
    if (write_jitter_mean_ns_ > 0) [[unlikely]]
      return ctrl_write_ns_ + turn + ExponentialNs(write_jitter_mean_ns_);
    return ctrl_write_ns_ + turn;
  }
  // Controller time of a read command's first 4 KiB: ctrl_read_us, and ctrl_turn_us after a
  // write.
  uint64_t ReadCtrlNs() { return ctrl_read_ns_ + TurnNs(false); }
  // tPROG of the open host group's program (SLC mode or native).
  uint64_t HostProgNs(const Group& grp) {
    return grp.slc ? slc_t_prog_ns_ : NativeProgNs(grp.first_ppn);
  }
  // tR of the page holding ppn with page type, random extra and read retries.
  uint64_t NoisyReadTime(uint32_t ppn);
  // Uniform in [1, 2^53] from the device's seeded generator (xorshift64*, its top 53 bits).
  uint64_t NextUniform53() {
    uint64_t x = noise_.rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    noise_.rng = x;
    return ((x * 0x2545f4914f6cdd1dull) >> 11) + 1;
  }
  // Uniform in (0, 1]: NextUniform53() * 2^-53. (At most 2^53: converted as a signed value,
  // one instruction, as exactly as unsigned.)
  double Uniform() {
    return static_cast<double>(static_cast<int64_t>(NextUniform53())) * 0x1.0p-53;
  }
  // A seeded exponential draw of mean `mean_ns`, in whole ns: -mean_ns * log(Uniform())
  // truncated, bit for bit, mostly without a libm call (sim/exponential.h).
  [[gnu::always_inline]] uint64_t ExponentialNs(double mean_ns) {
    return TruncatedExponentialNs(NextUniform53(), mean_ns);
  }
  // Books the housekeeping windows due by t (writes wait for the latest).
  void Housekeeping(uint64_t t);
  // A write not covering whole merge units, submitted at t: logged; every merge_every-th
  // holds new writes (itself included) for merge_us.
  [[gnu::always_inline]] void LogPartialWrite(uint64_t t) {
    noise_.hk_log = 1;
    if (merge_every_ == 0 || ++noise_.merge_logged < merge_every_) [[likely]]
      return;
    noise_.merge_logged = 0;
    write_hold_until_ = std::max(write_hold_until_, t + merge_ns_);
  }
  // Whether [offset, offset + bytes) is whole aligned merge units (REQUIRES: merge_unit_ > 0);
  // a mask when merge_unit_ is a power of two (no division per write).
  [[gnu::always_inline]] bool CoversMergeUnits(uint64_t offset, uint64_t bytes) const {
    if (merge_mask_ != 0) [[likely]]
      return ((offset | bytes) & merge_mask_) == 0;
    return offset % merge_unit_ == 0 && bytes % merge_unit_ == 0;
  }
  void ForegroundGc(uint64_t t);
  // Eager GC: whether the free space, the pool's blocks and the host frontier's unwritten
  // pages, is down to the watermark, low_free_blocks and half a block (the mean the host
  // frontier holds unwritten): then a victim is started. So the pool and the frontier keep
  // what the watermark declares, as an FTL that collects whole victims on demand keeps it
  // (sim/testing/reference_ftl.h). Starting only once the pool was below low_free_blocks
  // (before issue 44) left it one to two blocks under: spare the drive's declared reserve does
  // not have, WA 2.7-2.9% under that reference on drives of 321 and 334 blocks at 7% OP.
  bool BelowWatermark() const {
    const uint64_t ppb = g_.pages_per_block;
    const uint64_t free_pages =
        uint64_t{ftl_.free_blocks()} * ppb + (ppb - ftl_.host_frontier_used());
    return 2 * free_pages <= (2 * uint64_t{g_.low_free_blocks} + 1) * ppb;
  }
  // Out-of-line parts of ForegroundGc: the first victim of a GC period (false: none), the
  // next one, keeping the pool above its minimum, lazy GC.
  bool StartVictim();
  bool NextVictim();
  void RefillPool(uint64_t t);
  // GC in step with the host's writes, called once per unit written: copies `pace` times the
  // victim's ratio of copies per unit on average (the remainder carried in gc_credit_),
  // erasing each victim once empty and taking the next while `more()` holds.
  template <class More>
  void SteppedGc(uint64_t t, double pace, More more);
  // Lazy GC without gc_yield: nothing until the pool is down to LazyBatchStart(), then a batch
  // of batch_blocks: at once, or paced by gc_batch_pace (lazy_batch_ while one is under way).
  void LazyGc(uint64_t t);
  uint32_t LazyBatchStart() const {
    return g_.min_free_blocks + 1 + (p_.gc_batch_pace > 0 ? kPacedBatchLeadBlocks : 0);
  }
  // LazyGc with gc_yield: once the pool is less than a batch above its minimum, GC becomes
  // pending (GcInGaps runs it, back up to that level); once the pool has run dry, a batch is
  // booked at once and new writes wait for its end.
  void YieldingGc(uint64_t t);
  // The pool level yielding GC keeps: a batch above the minimum (absolute, as the batch).
  uint32_t YieldThreshold() const { return g_.min_free_blocks + 1 + g_.batch_blocks; }
  // gc_yield: runs the pending GC's steps that start before t in the controller's idle time
  // (after the host's work and the previous step); a host command waits for the step in
  // progress only.
  void GcInGaps(uint64_t t);
  // Books `cost` ns of the controller for a host command whose data is ready at `ready`
  // (>= now, the command's submission); returns its end. With gc_yield the controller serves
  // host commands in the first gap (a read goes ahead of writes held by a GC stall).
  uint64_t BookCtrl(uint64_t ready, uint64_t cost, uint64_t now) {
    if (!gc_yield_) return ctrl_free_ = std::max(ready, ctrl_free_) + cost;
    const uint64_t end = ctrl_cal_.Book(ready, cost, now);
    if (end > ctrl_free_) ctrl_free_ = end;
    return end;
  }
  // The controller time GC books: its own line with gc_yield, else the host's.
  uint64_t& GcCtrlFree() { return gc_yield_ ? gc_ctrl_free_ : ctrl_free_; }
  // One step of GC at time t: select a victim if none, then copy one page (erasing the
  // victim once empty). Sets *end to when the booked work ends. False: no victim would
  // yield space.
  bool GcStep(uint64_t t, uint64_t* end);
  // Copies one page of the current victim, or erases it when none is left (*copied false).
  uint64_t CopyOne(uint64_t t, bool* copied);
  // State of GC copying that changes with every copy, held in registers over a run of copies
  // (members do not stay in registers across stores to the resource arrays).
  struct GcHot {
    uint64_t ctrl_free;  // GcCtrlFree()
    uint64_t grp_ready;  // gc_group_
    uint32_t grp_count;
    uint32_t last_page;  // last_gc_read_page_
    uint32_t last_ch;    // its channel
  };
  GcHot LoadGcHot() const;
  void StoreGcHot(const GcHot& h);
  // Copies the next valid page of the victim (erasing the victim if that was its last one);
  // returns when the booked work ends. REQUIRES: ftl_.victim_valid() > 0.
  inline uint64_t CopyPage(GcHot& h, uint64_t t);
  // CopyPage without the erase: sets *left to the valid pages left in the victim.
  inline uint64_t CopyPageLeft(GcHot& h, uint64_t t, uint32_t* left);
  uint64_t BookErase(uint64_t t);
  void SetRatio();
  // Folds one native-mode program's worth of SLC data at time t; returns its end.
  uint64_t FoldStep(uint64_t t);

  const SimParams p_;
  const Geometry g_;
  Ftl ftl_;
  std::unique_ptr<PowerLossTracker> plp_;  // null: power-loss tracking off

  // Timing constants, ns (per-byte ones in ps).
  uint64_t cmd_ns_, ctrl_read_ns_, ctrl_write_ns_, ctrl_trim_ns_, ctrl_gc_ns_;
  // ctrl_turn_us, and whether the last host read or write was a write (the direction a
  // command of the other one turns the controller from).
  uint64_t ctrl_turn_ns_ = 0;
  bool last_was_write_ = false;
  uint64_t TurnNs(bool write) {
    const bool turned = write != last_was_write_;
    last_was_write_ = write;
    return turned ? ctrl_turn_ns_ : 0;
  }
  // Per-byte controller time beyond a command's first 4 KiB (ctrl_unit_us / 4 + *_kib_us), ps.
  uint64_t ctrl_read_ps_per_byte_, ctrl_write_ps_per_byte_;
  uint64_t t_read_ns_, t_prog_ns_, t_erase_ns_, slc_t_read_ns_, slc_t_prog_ns_;
  uint64_t link_ps_per_byte_, ch_ps_per_byte_, unit_ch_ns_, prog_ch_ns_;
  // Host link time of a command's data, remembered for the last size (sizes repeat).
  struct XferCache {
    uint32_t bytes = 0;
    uint64_t ns = 0;
    uint64_t Ns(uint32_t b, uint64_t ps_per_byte) {
      if (b != bytes) {
        bytes = b;
        ns = b * ps_per_byte / 1000;
      }
      return ns;
    }
  };
  XferCache write_xfer_, read_xfer_;
  uint64_t unit_link_ns_;  // host link time of 4 KiB
  uint64_t bg_idle_ns_;
  uint64_t bg_copy_gap_ns_;  // background GC: time between copies (0: no limit)
  bool suspend_;
  bool read_flush_;
  double flush_chance_;          // read_flush_big_pct / 100
  double write_jitter_mean_ns_;  // the random share of ctrl_write_us
  bool gc_yield_;
  bool typed_prog_;                 // t_prog_type_pct > 0
  uint64_t type_tprog_ns_[4] = {};  // native tPROG by page type
  bool noisy_read_;                 // any of page-type tR, jitter, read retry
  uint64_t type_tr_ns_[4] = {};     // tR by page type
  double jitter_mean_ns_ = 0;
  double prog_jitter_mean_ns_ = 0;               // t_prog_jitter_us
  double retry_base_ = 0, retry_per_erase_ = 0;  // probabilities
  uint64_t hk_period_ns_ = 0, hk_ns_ = 0;
  uint64_t merge_unit_ = 0, merge_ns_ = 0;  // merge_unit_bytes (0 = no log), merge_us
  uint32_t merge_every_ = 0;
  uint64_t merge_mask_ = 0;        // merge_unit_ - 1 when that is a power of two above 1, else 0
  uint64_t write_hold_until_ = 0;  // writes admitted from then on (housekeeping, a GC stall)
  FastDiv block_of_;               // ppn -> block
  bool half_duplex_;
  // Full-duplex links with a shared cap (link_cap_mb_s): both directions also book
  // shared_link_ at the cap's rate (0: no cap).
  uint64_t cap_ps_per_byte_ = 0;
  uint64_t CapNs(uint64_t bytes) const { return bytes * cap_ps_per_byte_ / 1000; }
  bool slc_cache_;    // an SLC cache, static or dynamic
  FastDiv prog_of_;   // ppn -> program index
  FastDiv page_of_;   // ppn -> NAND page index
  FastDiv die_mod_;   // program index -> die
  FastDiv type_mod_;  // page types: min(4, bits_per_cell)

  // Resource state.
  uint64_t link_free_[2] = {0, 0};  // [0] host->drive, [1] drive->host (full duplex)
  LinkCalendar shared_link_;        // half duplex (SATA), or the cap of a full-duplex link
  uint64_t ctrl_free_ = 0;          // the host's controller work booked up to then
  LinkCalendar ctrl_cal_;           // gc_yield: the host's controller bookings
  // gc_yield: GC's own controller line and whether GC is left pending.
  uint64_t gc_ctrl_free_ = 0;
  bool gc_pending_ = false;
  struct Die {
    uint64_t free_ns = 0;            // programs, erases (and reads' share)
    uint64_t read_free_ns = 0;       // reads only: they preempt queued programs
    uint64_t host_read_free_ns = 0;  // gc_yield: host reads only, ahead of GC's reads
    uint32_t ch = 0;                 // its channel
    uint32_t padding = 0;            // (saved whole in states; see Group)
  };
  std::vector<Die> dies_;
  std::vector<uint64_t> ch_free_;
  std::vector<uint64_t> ch_host_free_;  // gc_yield: host read transfers, ahead of GC's
  std::vector<uint64_t> buffer_ring_;   // release time of each buffer slot
  uint64_t buffer_mask_ = 0;
  uint64_t buffer_seq_ = 0;
  uint64_t host_busy_until_ = 0;

  Group host_group_;
  Group gc_group_;
  uint32_t last_gc_read_page_ = UINT32_MAX;
  uint32_t last_gc_read_ch_ = 0;
  double gc_credit_ = 0;
  double gc_ratio_ = 0;
  bool lazy_batch_ = false;  // a paced lazy batch is under way (LazyGc)
  uint64_t slc_used_ = 0;
  uint64_t slc_pages_ = 0, slc_folded_ = 0, nand_reads_ = 0, fold_seq_ = 0;
  uint64_t host_read_pages_ = 0, unmapped_read_pages_ = 0;
  // Read-ahead (read_ahead_bytes > 0): the last few sequential streams and the buffer of
  // read-ahead units, a direct-mapped ring indexed by lpn (an entry is a hit only while its
  // lpn and physical page still match: a rewrite makes it stale).
  struct ReadStream {
    uint64_t next = UINT64_MAX;  // byte offset where the stream's next read would start
    uint64_t ahead_end = 0;      // lpn up to which the stream has been read ahead
  };
  struct AheadUnit {
    uint64_t lpn = UINT64_MAX;
    uint64_t ready_ns = 0;  // in DRAM from then on
    uint32_t ppn = 0;
    uint32_t padding = 0;  // (saved whole in states; see Group)
  };
  static constexpr uint32_t kReadStreams = 4;
  ReadStream streams_[kReadStreams];
  uint32_t stream_victim_ = 0;  // round robin replacement
  uint64_t ahead_units_ = 0;    // read_ahead_bytes / 4 KiB
  std::vector<AheadUnit> ahead_;
  uint64_t ahead_mask_ = 0;
  struct Noise {
    uint64_t rng = 0;                  // xorshift64* state
    uint64_t next_hk_ns = UINT64_MAX;  // next housekeeping window
    uint32_t last_write_big = 0;       // read_flush_big_pct < 100: the last write was > 4 KiB
    uint32_t flush_skipped = 0;        // a read since that write drew no flush
    uint32_t merge_logged = 0;         // partial writes logged since the last merge
    uint32_t hk_log = 0;               // the log took a write since the last housekeeping
  } noise_;
};

}  // namespace ssdlab::sim
