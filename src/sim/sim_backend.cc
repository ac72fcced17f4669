// SimBackend: the virtual-time event loop that runs a phase against a SimDevice.
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "backend/phase_recorder.h"
#include "base/units.h"
#include "sim/array.h"
#include "sim/device.h"
#include "sim/event_heap.h"
#include "sim/params.h"
#include "sim/sim.h"
#include "sim/state.h"
#include "workload/generator.h"
#include "workload/request_source.h"

namespace ssdlab {
namespace {

using sim::Event;
using sim::SimDevice;

constexpr uint32_t kComplete = 0;
constexpr uint32_t kSubmit = 1;  // open loop: a slot waits for its scheduled time

// Runs one phase. Lives for the duration of RunPhase only. Queue: sim::EventQueue,
// sim::SmallEventQueue for up to sim::kSmallSlots slots in a closed loop, or
// sim::SingleEventQueue when there is one slot. Dev: sim::SimDevice, or sim::SimArray (the
// same interface over member drives).
template <class Queue, class Dev>
class PhaseRunner {
 public:
  using InFlight = SimBackend::InFlight;
  // in_flight: the previous phase's I/Os still running (taken over when this phase is a
  // closed loop); on return, this phase's (when it ended by its runtime), else empty.
  // max_cmd_bytes: the host's largest command (SimParams::host_max_cmd_bytes; 0 = no limit).
  PhaseRunner(const WorkloadSpec& spec, const RunControl& control, Dev* dev, uint64_t start_ns,
              std::vector<InFlight>* in_flight, uint64_t max_cmd_bytes)
      : spec_(spec),
        control_(control),
        dev_(dev),
        max_cmd_bytes_(max_cmd_bytes && max_cmd_bytes < UINT32_MAX
                           ? static_cast<uint32_t>(max_cmd_bytes)
                           : UINT32_MAX),
        start_ns_(start_ns),
        in_flight_(in_flight),
        rec_(start_ns,
             {spec.ramp_ns, spec.ramp_bytes, spec.runtime_ns, spec.io_bytes,
              StartsEmpty(spec, *in_flight, start_ns) ? FillIos(spec, spec.jobs * spec.queue_depth)
                                                      : 0},
             spec.interval_ns, control.io_log, control.on_interval) {}

  PhaseResult Run(uint64_t* end_ns);

 private:
  // Whether the phase's queue starts empty: no I/O of the previous phase goes on in its slots
  // (Run() takes those over only for a closed loop of generated requests).
  static bool StartsEmpty(const WorkloadSpec& spec, const std::vector<InFlight>& in_flight,
                          uint64_t start_ns) {
    if (spec.source || spec.rate_iops > 0) return true;
    return std::none_of(in_flight.begin(), in_flight.end(),
                        [start_ns](const InFlight& f) { return f.done_ns > start_ns; });
  }

  struct Slot {
    uint64_t issue_ns = 0;  // scheduled (open loop) or submission time: latency origin
    uint64_t done_ns = 0;   // completion of the last I/O submitted
    uint64_t offset = 0;
    uint32_t bytes = 0;
    Direction dir = Direction::kRead;
    bool measured = false;
    bool fill = false;       // one of the fill's I/Os (PhaseRecorder::Issued)
    bool held = false;       // the previous phase's I/O (counted there), holding the slot here
    bool preloaded = false;  // timed source: the request was taken when it was scheduled
    uint32_t job = 0;
  };

  // kFast: the caller knows fast_ (measuring, issuing, closed loop), which skips those checks.
  template <bool kFast>
  void Issue(uint32_t slot, uint64_t t, bool replace_top);
  template <bool kFast>
  void Submit(uint32_t slot, uint64_t t, bool replace_top);
  void StartMeasuring();
  // A read or write larger than max_cmd_bytes_ goes to the drive as commands of at most that
  // size, all submitted at t; it completes with the last.
  [[gnu::noinline]] uint64_t SubmitSplit(Direction dir, uint64_t offset, uint32_t bytes,
                                         uint64_t t) {
    if (dir == Direction::kTrim) return dev_->Submit(dir, offset, bytes, t);
    uint64_t done = t;
    for (uint32_t at = 0; at < bytes; at += max_cmd_bytes_) {
      const uint32_t n = std::min(max_cmd_bytes_, bytes - at);
      done = std::max(done, dev_->Submit(dir, offset + at, n, t));
    }
    return done;
  }
  void Complete(uint32_t slot, uint64_t t);
  // replace_top: e is the next event of the slot whose event is being handled (the top).
  [[gnu::always_inline]] void PutEvent(const Event& e, bool replace_top) {
    if (replace_top) {
      heap_.ReplaceTop(e);
    } else {
      heap_.Push(e);
    }
  }

  const WorkloadSpec& spec_;
  const RunControl& control_;
  Dev* dev_;
  const uint32_t max_cmd_bytes_;  // UINT32_MAX: no limit
  const uint64_t start_ns_;
  std::vector<InFlight>* in_flight_;

  // Requests are drawn ahead of their submission, per job (the same sequence), so their mapping
  // entries can be prefetched while earlier events run: a ring of two halves of kHalf; once
  // one half is used up it is refilled in one go, so kHalf to 2 kHalf requests lie ahead.
  static constexpr uint32_t kHalf = 16;
  static constexpr uint32_t kRing = 2 * kHalf;
  static constexpr uint32_t kPrefetchAhead = 10;  // prefetch of the mapping entry
  static_assert(kPrefetchAhead < kHalf);
  struct Ahead {
    IoRequest req[kRing];
    uint64_t sched[kRing];  // request source only: due time after the start
    uint32_t pos = 0;       // next to submit
  };
  // Refills n entries of a job's ring from the generator or the request source (bytes 0 once
  // the source is exhausted).
  void FillAhead(uint32_t job, uint32_t from, uint32_t n) {
    Ahead& a = ahead_[job];
    if (!source_) {
      gens_[job].Fill(&a.req[from], n);
      return;
    }
    SourcedRequest buf[kRing];
    size_t got = 0;
    while (got < n) {
      const size_t k = source_->Fill(buf + got, n - got);
      if (k == 0) break;
      got += k;
    }
    for (uint32_t i = 0; i < n; ++i) {
      a.req[from + i] = i < got ? buf[i].req : IoRequest{0, 0, Direction::kRead};
      a.sched[from + i] = i < got ? buf[i].sched_ns : 0;
    }
  }

  std::vector<JobGenerator> gens_;
  RequestSource* source_ = nullptr;  // spec_.source
  std::vector<Ahead> ahead_;
  std::vector<Slot> slots_;
  // A request source's: how long after its scheduled time each slot's request was submitted
  // (waiting for a free slot: the model's queue full), in virtual time; empty without a source.
  std::vector<uint64_t> lag_ns_;
  bool open_loop_ = false;
  std::vector<uint64_t> next_index_;  // open loop: next schedule index per job
  double job_interval_ns_ = 0;        // open loop: time between one job's I/Os
  Queue heap_;

  PhaseRecorder rec_;  // ramp, window, counts, series, I/O log
  bool stop_issuing_ = false;
  bool fast_ = false;  // rec_.measuring() && !stop_issuing_ && !open_loop_
  uint64_t last_event_ns_ = 0;

  sim::DeviceCounters base_counters_;
  sim::ArrayCounters base_array_;  // Dev = SimArray only
  PhaseResult result_;

 public:
  // Host 4 KiB units read and of them unmapped, over the measured part (after Run).
  std::pair<double, double> unmapped_{0, 0};
};

template <class Queue, class Dev>
void PhaseRunner<Queue, Dev>::StartMeasuring() {
  fast_ = !stop_issuing_ && !open_loop_;
  base_counters_ = dev_->counters();
  if constexpr (std::is_same_v<Dev, sim::SimArray>) base_array_ = dev_->array_counters();
  dev_->ResetFreeMin();
}

// Issue, Submit and Complete run once per I/O: they are compiled into the event loop.
template <class Queue, class Dev>
template <bool kFast>
[[gnu::always_inline]] inline void PhaseRunner<Queue, Dev>::Issue(uint32_t slot, uint64_t t,
                                                                  bool replace_top) {
  if (!kFast && stop_issuing_) {
    if (replace_top) heap_.Pop();
    return;
  }
  if (!kFast && open_loop_ && source_) {
    // Take the request now: its due time is part of it.
    Slot& s = slots_[slot];
    Ahead& a = ahead_[s.job];
    const uint32_t pos = a.pos;
    const IoRequest req = a.req[pos];
    const uint64_t sched = start_ns_ + a.sched[pos];
    if (pos % kHalf == kHalf - 1) FillAhead(s.job, pos + 1 - kHalf, kHalf);
    a.pos = (pos + 1) % kRing;
    if (req.bytes == 0) {  // exhausted: this slot retires; requests held by others still run
      if (replace_top) heap_.Pop();
      return;
    }
    s.offset = req.offset;
    s.bytes = req.bytes;
    s.dir = req.dir;
    s.preloaded = true;
    s.issue_ns = sched;
    if (sched > t) {
      PutEvent(Event(sched, slot, kSubmit), replace_top);
      return;
    }
  } else if (!kFast && open_loop_) {
    const uint32_t job = slots_[slot].job;
    const uint64_t k = next_index_[job]++;
    const uint64_t sched =
        start_ns_ +
        static_cast<uint64_t>((static_cast<double>(k) + static_cast<double>(job) / spec_.jobs) *
                              job_interval_ns_);
    slots_[slot].issue_ns = sched;
    if (sched > t) {
      PutEvent(Event(sched, slot, kSubmit), replace_top);
      return;
    }
  } else {
    slots_[slot].issue_ns = t;
  }
  Submit<kFast>(slot, t, replace_top);
}

template <class Queue, class Dev>
template <bool kFast>
[[gnu::always_inline]] inline void PhaseRunner<Queue, Dev>::Submit(uint32_t slot, uint64_t t,
                                                                   bool replace_top) {
  Slot& s = slots_[slot];
  const uint64_t issue = s.issue_ns;
  const bool was_measuring = kFast || rec_.measuring();
  const PhaseRecorder::Admit admit = rec_.Open(issue);
  if (!kFast && !was_measuring && rec_.measuring()) StartMeasuring();
  const bool measured = admit != PhaseRecorder::Admit::kRamp;
  if (admit == PhaseRecorder::Admit::kStop) {
    stop_issuing_ = true;
    fast_ = false;
  }
  if (kFast ? admit == PhaseRecorder::Admit::kStop : measured && stop_issuing_) {
    if (replace_top) heap_.Pop();
    return;
  }
  uint64_t offset;
  uint32_t bytes;
  Direction dir;
  if (!kFast && s.preloaded) {  // a timed source's request, taken in Issue()
    offset = s.offset;
    bytes = s.bytes;
    dir = s.dir;
    s.preloaded = false;
    lag_ns_[slot] = t - issue;
    result_.submit_lag.Record(t - issue);
  } else {
    const uint32_t job = s.job;
    Ahead& a = ahead_[job];
    const uint32_t pos = a.pos;
    const IoRequest req = a.req[pos];
    offset = req.offset;
    bytes = req.bytes;
    dir = req.dir;
    if (pos % kHalf == kHalf - 1) FillAhead(job, pos + 1 - kHalf, kHalf);
    a.pos = (pos + 1) % kRing;
    if (bytes == 0) [[unlikely]] {  // the request source is exhausted
      stop_issuing_ = true;
      fast_ = false;
      if (replace_top) heap_.Pop();
      return;
    }
    dev_->Prefetch(a.req[(pos + kPrefetchAhead) % kRing].offset);
    s.offset = offset;
    s.bytes = bytes;
    s.dir = dir;
  }
  s.measured = measured;
  s.held = false;
  s.fill = rec_.Issued(bytes, measured);
  const uint64_t done = bytes > max_cmd_bytes_ ? SubmitSplit(dir, offset, bytes, t)
                                               : dev_->Submit(dir, offset, bytes, t);
  s.done_ns = done;
  PutEvent(Event(done, slot, kComplete), replace_top);
}

template <class Queue, class Dev>
[[gnu::always_inline]] inline void PhaseRunner<Queue, Dev>::Complete(uint32_t slot, uint64_t t) {
  const Slot& s = slots_[slot];
  if (s.held) {
    rec_.HeldCompleted(t);
  } else if (!s.measured) {
    const bool was_measuring = rec_.measuring();
    if (s.fill) rec_.FillCompleted(t);
    rec_.RampCompleted(s.dir, s.offset, s.bytes, s.issue_ns, t);  // may open the window
    if (!was_measuring && rec_.measuring()) StartMeasuring();
  } else {
    rec_.Record(s.dir, s.offset, s.bytes, s.issue_ns, t, lag_ns_.empty() ? 0 : lag_ns_[slot]);
  }
}

template <class Queue, class Dev>
PhaseResult PhaseRunner<Queue, Dev>::Run(uint64_t* end_ns) {
  const uint32_t jobs = spec_.jobs, qd = spec_.queue_depth;
  const uint32_t n_slots = jobs * qd;
  source_ = spec_.source;
  if (!source_) {
    gens_.reserve(jobs);
    for (uint32_t j = 0; j < jobs; ++j) gens_.emplace_back(spec_, j);
  }
  ahead_.resize(jobs);
  for (uint32_t j = 0; j < jobs; ++j) FillAhead(j, 0, kRing);
  open_loop_ = source_ ? source_->timed() : spec_.rate_iops > 0;
  slots_.assign(n_slots, Slot{});
  for (uint32_t s = 0; s < n_slots; ++s) slots_[s].job = s / qd;
  lag_ns_.assign(source_ ? n_slots : 0, 0);
  next_index_.assign(jobs, 0);
  if (spec_.rate_iops > 0) job_interval_ns_ = 1e9 * jobs / spec_.rate_iops;
  heap_.Reserve(n_slots);
  if (rec_.measuring()) StartMeasuring();

  const bool continuous = !open_loop_ && !source_;
  for (uint32_t s = 0; s < n_slots; ++s) {
    if (continuous && s < in_flight_->size() && (*in_flight_)[s].done_ns > start_ns_) {
      const InFlight& f = (*in_flight_)[s];
      Slot& slot = slots_[s];
      slot.issue_ns = f.issue_ns;
      slot.done_ns = f.done_ns;
      slot.bytes = f.bytes;
      slot.dir = f.dir;
      slot.measured = false;
      slot.held = true;  // counted by the phase that issued it; holds the slot here
      heap_.Push(Event(f.done_ns, s, kComplete));
    } else {
      Issue<false>(s, start_ns_, false);
    }
  }
  in_flight_->clear();
  last_event_ns_ = start_ns_;
  uint64_t events = 0;
  while (!heap_.empty()) {
    const Event e = heap_.top();
    last_event_ns_ = e.t_ns;
    if ((++events & 0xfff) == 0 && control_.stop &&
        control_.stop->load(std::memory_order_relaxed) && !stop_issuing_) {
      stop_issuing_ = true;
      fast_ = false;
      result_.interrupted = true;
    }
    if (e.kind == kComplete) {
      Complete(e.slot, e.t_ns);
      if (fast_) {
        Issue<true>(e.slot, e.t_ns, true);
      } else {
        Issue<false>(e.slot, e.t_ns, true);
      }
    } else {
      Submit<false>(e.slot, e.t_ns, true);
    }
  }
  *end_ns = std::max(last_event_ns_, start_ns_);
  if (continuous && rec_.stopped_by_time() && !result_.interrupted) {
    // The I/Os in flight at the end of the runtime (counted here, by the edge rule) go on
    // running in the next phase, which starts then: it takes their slots over.
    in_flight_->resize(n_slots);
    for (uint32_t s = 0; s < n_slots; ++s) {
      const Slot& slot = slots_[s];
      (*in_flight_)[s] = slot.done_ns > rec_.end_ns()
                             ? InFlight{slot.issue_ns, slot.done_ns, slot.bytes, slot.dir}
                             : InFlight{};
    }
    *end_ns = rec_.end_ns();
  }

  rec_.Finish(rec_.MeasuredEnd());
  rec_.MoveInto(result_);
  if (rec_.measuring()) {
    const sim::DeviceCounters c = dev_->counters();
    const double host = static_cast<double>(c.host_pages - base_counters_.host_pages);
    const double nand = static_cast<double>(c.nand_pages - base_counters_.nand_pages);
    result_.counters = {
        {"write_amplification", host > 0 ? nand / host : 0.0},
        {"host_pages_written", host},
        {"nand_pages_written", nand},
        {"gc_page_copies", static_cast<double>(c.gc_copies - base_counters_.gc_copies)},
        {"erases", static_cast<double>(c.erases - base_counters_.erases)},
        {"free_blocks", static_cast<double>(dev_->free_blocks())},
        {"free_blocks_min", static_cast<double>(dev_->free_blocks_min())},
        {"nand_page_reads", static_cast<double>(c.nand_reads - base_counters_.nand_reads)},
        {"slc_pages_written", static_cast<double>(c.slc_pages - base_counters_.slc_pages)},
        {"slc_cache_used_bytes", static_cast<double>(dev_->slc_used_pages() * sim::kUnitBytes)},
        {"virtual_time_s", static_cast<double>(*end_ns) * 1e-9},
    };
    const uint64_t read_pages = c.host_read_pages - base_counters_.host_read_pages;
    const uint64_t unmapped = c.unmapped_read_pages - base_counters_.unmapped_read_pages;
    unmapped_ = {static_cast<double>(read_pages), static_cast<double>(unmapped)};
    if (unmapped > 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.3g",
                    100.0 * static_cast<double>(unmapped) / static_cast<double>(read_pages));
      result_.notes.push_back(std::string(pct) +
                              "% of reads found unwritten space and were answered without NAND "
                              "reads (use --prefill or precondition first)");
    }
    if constexpr (std::is_same_v<Dev, sim::SimArray>) {
      // The array's commands and what they cost its members (member figures are the sums).
      const sim::ArrayCounters& a = dev_->array_counters();
      const sim::ArrayCounters& b = base_array_;
      const double host_ios =
          static_cast<double>((a.host_reads - b.host_reads) + (a.host_writes - b.host_writes) +
                              (a.host_trims - b.host_trims));
      const double member_ios = static_cast<double>((a.member_reads - b.member_reads) +
                                                    (a.member_writes - b.member_writes) +
                                                    (a.member_trims - b.member_trims));
      result_.counters.insert(
          result_.counters.end(),
          {{"array_members", static_cast<double>(dev_->members())},
           {"array_host_ios", host_ios},
           {"array_member_reads", static_cast<double>(a.member_reads - b.member_reads)},
           {"array_member_writes", static_cast<double>(a.member_writes - b.member_writes)},
           {"array_member_read_bytes",
            static_cast<double>(a.member_read_bytes - b.member_read_bytes)},
           {"array_member_write_bytes",
            static_cast<double>(a.member_write_bytes - b.member_write_bytes)},
           {"array_member_ios_per_host_io", host_ios > 0 ? member_ios / host_ios : 0.0}});
    }
  }
  result_.counters_name = "sim";
  return std::move(result_);
}

// Whether `b` continues the I/O stream of `a` (the same workload but for its seed and
// durations), so that b may take over a's I/Os in flight (SimBackend::InFlight).
bool SameStream(const WorkloadSpec& a, const WorkloadSpec& b) {
  if (a.pattern != b.pattern || a.read_pct != b.read_pct || a.trim != b.trim || a.jobs != b.jobs ||
      a.queue_depth != b.queue_depth || a.range_begin_bytes != b.range_begin_bytes ||
      a.range_end_bytes != b.range_end_bytes || a.dist.kind != b.dist.kind ||
      a.dist.param != b.dist.param || a.block_sizes.size() != b.block_sizes.size()) {
    return false;
  }
  for (size_t i = 0; i < a.block_sizes.size(); ++i) {
    if (a.block_sizes[i].bytes != b.block_sizes[i].bytes ||
        a.block_sizes[i].pct != b.block_sizes[i].pct) {
      return false;
    }
  }
  return true;
}

std::string HexHash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

template <class F>
void SimBackend::WithDevice(F&& f) {
  if (array_) {
    f(array_.get());
  } else {
    f(dev_.get());
  }
}

bool IsSimTarget(const std::string& target) {
  return target.rfind("sim:", 0) == 0 || target.rfind("array:", 0) == 0;
}

SimBackend::SimBackend(const sim::SimParams& p, const std::string& target, bool fresh)
    : p_(std::make_unique<sim::SimParams>(p)),
      g_(std::make_unique<sim::Geometry>(sim::DeriveGeometry(p))),
      dev_(std::make_unique<SimDevice>(*p_, *g_, fresh)) {
  params_ = sim::ParamPairs(p);
  params_.emplace_back("preset", p.preset);
  params_.emplace_back("sim_blocks", std::to_string(g_->blocks));
  params_.emplace_back("sim_pages_per_block", std::to_string(g_->pages_per_block));
  params_.emplace_back("sim_user_bytes", std::to_string(g_->user_bytes()));
  params_.emplace_back("sim_physical_bytes", std::to_string(g_->physical_bytes()));
  std::string serial_src;
  for (const auto& [k, v] : params_) serial_src += k + "=" + v + ";";
  info_.path = target;
  info_.kind = "sim";
  info_.size_bytes = g_->user_bytes();
  info_.logical_block_bytes = p.logical_block_bytes;
  info_.physical_block_bytes = sim::kUnitBytes;
  info_.model = p.preset;
  info_.serial = "SIM" + HexHash(serial_src).substr(0, 12);
  info_.firmware = "ssdlab-sim";
  info_.details = params_;
}

Result<std::string> SimBackend::Purge(const std::string& method, const RunControl&) {
  if (method == "none") return std::string("none");
  dirty_ = true;
  // Unlike ResetFactoryFresh() the clock restarts too, so a purged drive is the same state
  // whatever ran before it: a suite resumed in a new process replays identically.
  now_ns_ = 0;
  in_flight_.clear();
  WithDevice([](auto* dev) { dev->ResetFactoryFresh(0); });
  return std::string("simulator factory-fresh state (all blocks erased, mapping empty, clock 0)");
}

bool IsSimIdentityDetail(const std::string& key) {
  if (key == "state" || key == "state_origin" || key == "mem_limit") return false;
  const std::string member = "array_member_";
  if (key.rfind(member, 0) == 0)
    return key.size() > 7 && key.compare(key.size() - 7, 7, "_serial") == 0;
  return true;
}

SimBackend::~SimBackend() = default;

Result<std::unique_ptr<SimBackend>> OpenSimBackend(const std::string& target,
                                                   const SimOpenOptions& o) {
  if (target.rfind("array:", 0) == 0) return OpenSimArrayBackend(target, o);
  auto p = sim::ParseSimTarget(target);
  if (!p.ok()) return p.status();
  const std::string& path = p->state_path;
  const bool load = o.load_state && !o.probe;
  if (path.empty()) {
    auto b = std::unique_ptr<SimBackend>(new SimBackend(p.value(), target, !o.probe));
    b->probe_ = o.probe;
    return b;
  }
  std::vector<sim::StateLock> locks;
  if (o.lock_state) {
    SSDLAB_ASSIGN_OR_RETURN(sim::StateLock lock, sim::LockState(path));
    locks.push_back(std::move(lock));
  }
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);  // through a symlink
  auto b =
      std::unique_ptr<SimBackend>(new SimBackend(p.value(), target, !(exists && load) && !o.probe));
  b->probe_ = o.probe;
  std::string origin = "new (factory-fresh; saved when the command ends)";
  if (exists) {
    bool damaged = false;
    Status s = load ? sim::LoadState(path, b->dev_.get(), &b->now_ns_, nullptr, &damaged)
                    : sim::ReadStateHeader(path, *b->p_, &damaged).status();
    if (s.ok()) {
      origin = "loaded";
    } else if (damaged && o.reset_damaged_state) {
      b.reset(new SimBackend(p.value(), target, !o.probe));  // the partial load discarded
      b->probe_ = o.probe;
      origin = "damaged (replaced by a factory-fresh drive; its wear is lost)";
    } else {
      return s;
    }
  }
  b->state_paths_ = {path};
  b->state_locks_ = std::move(locks);
  b->zstd_level_ = o.state_zstd_level;
  b->zstd_workers_ = o.state_zstd_workers;
  b->info_.details.emplace_back("state", path);
  b->info_.details.emplace_back("state_origin", origin);
  return b;
}

Status SimBackend::Close() {
  if (!dirty_ || state_paths_.empty() || state_locks_.empty()) return Status::Ok();
  sim::StateSaveOptions o;
  o.zstd_level = zstd_level_;
  o.zstd_workers = zstd_workers_;
  if (array_) {
    for (size_t i = 0; i < array_->members(); ++i)
      SSDLAB_RETURN_IF_ERROR(sim::SaveState(state_paths_[i], array_->member(i), now_ns_, o));
  } else {
    SSDLAB_RETURN_IF_ERROR(sim::SaveState(state_paths_.front(), *dev_, now_ns_, o));
  }
  dirty_ = false;
  return Status::Ok();
}

Result<PhaseResult> SimBackend::RunPhase(const WorkloadSpec& spec, const RunControl& control) {
  if (probe_) return Status::Error(Code::kInternal, "sim: a probe's backend runs no I/O");
  if (spec.jobs == 0 || spec.queue_depth == 0) {
    return Status::Invalid("sim: jobs and queue depth must be at least 1");
  }
  if (spec.runtime_ns == 0 && spec.io_bytes == 0 && !spec.source) {
    return Status::Invalid("sim: the phase needs a runtime or an io size");
  }
  if (spec.block_sizes.empty() || spec.MinBlockBytes() == 0) {
    return Status::Invalid("sim: no block size");
  }
  if (spec.range_end_bytes > info_.size_bytes || spec.range_begin_bytes >= spec.range_end_bytes ||
      spec.range_end_bytes - spec.range_begin_bytes < spec.MaxBlockBytes()) {
    return Status::Invalid("sim: range " + std::to_string(spec.range_begin_bytes) + "-" +
                           std::to_string(spec.range_end_bytes) + " does not fit the " +
                           std::to_string(info_.size_bytes) + "-byte simulated drive");
  }
  // Virtual time never wraps: a phase starts before 2^62 ns and adds at most a runtime
  // (< 2^60 ns) or a source's due times (< kMaxSchedNs = 2^62 ns) and service times, so every
  // time stays below 2^63 ns.
  if (now_ns_ >= kMaxSchedNs) {
    return Status::Invalid("sim: the drive's virtual clock stands at " + std::to_string(now_ns_) +
                           " ns, beyond 2^62 ns (146 years); purge it or start a new state");
  }
  uint64_t end_ns = now_ns_;
  if (!SameStream(in_flight_spec_, spec)) DrainInFlight();
  in_flight_spec_ = spec;
  in_flight_spec_.source = nullptr;
  PhaseResult r;
  std::pair<double, double> unmapped{0, 0};
  dirty_ = true;
  const uint64_t max_cmd = p_->host_max_cmd_bytes;
  auto run = [&](auto* dev) {
    using Dev = std::remove_pointer_t<decltype(dev)>;
    if (spec.jobs == 1 && spec.queue_depth == 1) {
      PhaseRunner<sim::SingleEventQueue, Dev> runner(spec, control, dev, now_ns_, &in_flight_,
                                                     max_cmd);
      r = runner.Run(&end_ns);
      unmapped = runner.unmapped_;
    } else if (uint64_t{spec.jobs} * spec.queue_depth <= sim::kSmallSlots && spec.rate_iops == 0 &&
               !(spec.source && spec.source->timed())) {  // closed loop: SmallEventQueue
      PhaseRunner<sim::SmallEventQueue, Dev> runner(spec, control, dev, now_ns_, &in_flight_,
                                                    max_cmd);
      r = runner.Run(&end_ns);
      unmapped = runner.unmapped_;
    } else {
      PhaseRunner<sim::EventQueue, Dev> runner(spec, control, dev, now_ns_, &in_flight_, max_cmd);
      r = runner.Run(&end_ns);
      unmapped = runner.unmapped_;
    }
  };
  if (array_) {
    run(array_.get());
  } else {
    run(dev_.get());
  }
  now_ns_ = end_ns;
  r.counters.emplace_back("scale", static_cast<double>(p_->scale));
  if (!r.counters.empty() && r.counters.front().first == "write_amplification") {
    r.counters.emplace_back("host_read_pages", unmapped.first);
    r.counters.emplace_back("unmapped_read_pages", unmapped.second);
  }
  // cpu_user_s/cpu_sys_s stay 0: a drive in virtual time costs its host no CPU, and the
  // simulator's own CPU time would make identical runs store different results.
  return r;
}

Result<uint64_t> SimBackend::SubmitAt(Direction dir, uint64_t offset, uint32_t bytes,
                                      uint64_t t_ns) {
  if (probe_) return Status::Error(Code::kInternal, "sim: a probe's backend runs no I/O");
  if (bytes == 0 || offset > info_.size_bytes || bytes > info_.size_bytes - offset) {
    return Status::Invalid("sim: command " + std::to_string(offset) + "+" + std::to_string(bytes) +
                           " does not fit the " + std::to_string(info_.size_bytes) +
                           "-byte simulated drive");
  }
  if (!in_flight_.empty()) DrainInFlight();
  if (t_ns < now_ns_) {
    return Status::Invalid("sim: command at " + std::to_string(t_ns) +
                           " ns submitted before the clock, " + std::to_string(now_ns_) + " ns");
  }
  dirty_ = true;
  now_ns_ = t_ns;
  const uint64_t max_cmd = p_->host_max_cmd_bytes && p_->host_max_cmd_bytes < UINT32_MAX
                               ? p_->host_max_cmd_bytes
                               : UINT32_MAX;
  uint64_t done = t_ns + 1;
  WithDevice([&](auto* dev) {
    if (dir == Direction::kTrim) {
      done = dev->Submit(dir, offset, bytes, t_ns);
      return;
    }
    for (uint64_t at = 0; at < bytes; at += max_cmd) {
      const auto n = static_cast<uint32_t>(std::min<uint64_t>(max_cmd, bytes - at));
      done = std::max(done, dev->Submit(dir, offset + at, n, t_ns));
    }
  });
  return done;
}

uint64_t SimBackend::FlushAt(uint64_t t_ns) {
  if (array_) return std::max(t_ns + 1, array_->host_busy_until_ns());
  if (!p_->plp) dirty_ = true;  // the open program group is programmed
  const uint64_t done = dev_->Flush(t_ns);
  if (sim::PowerLossTracker* t = dev_->power_loss()) t->Flushed(t_ns, done);
  return done;
}

Status SimBackend::EnablePowerLossTracking() {
  if (array_)
    return Status::Invalid("sim: power-loss tracking needs one simulated drive, not an array");
  const uint64_t need = g_->memory_bytes + sim::PowerLossTracker::MemoryBytes(g_->user_pages);
  const uint64_t limit = sim::MemoryLimit(*p_);
  if (need > limit) {
    return Status::Invalid("sim: power-loss tracking needs " + FormatBytes(need) +
                           " with the model, more than its mem_limit of " + FormatBytes(limit) +
                           " (raise scale or mem_limit)");
  }
  dev_->EnablePowerLossTracking();
  return Status::Ok();
}

Result<uint64_t> SimBackend::SubmitTaggedWrite(uint64_t offset, uint32_t bytes, uint64_t t_ns,
                                               uint32_t tag, bool fua) {
  sim::PowerLossTracker* t = dev_ ? dev_->power_loss() : nullptr;
  if (!t) return Status::Error(Code::kInternal, "sim: power-loss tracking is off");
  t->SetTag(tag);
  auto done = SubmitAt(Direction::kWrite, offset, bytes, t_ns);
  t->SetTag(0);
  if (!done.ok()) return done;
  uint64_t ack = done.value();
  if (fua && !p_->plp) ack = std::max(ack, dev_->Flush(t_ns));
  t->Acked(ack, fua);
  return ack;
}

Result<SimBackend::PowerCut> SimBackend::PowerCutAt(uint64_t t_ns) {
  sim::PowerLossTracker* t = dev_ ? dev_->power_loss() : nullptr;
  if (!t) return Status::Error(Code::kInternal, "sim: power-loss tracking is off");
  if (t_ns < now_ns_) {
    return Status::Invalid("sim: power cut at " + std::to_string(t_ns) + " ns, before the clock, " +
                           std::to_string(now_ns_) + " ns");
  }
  in_flight_.clear();
  const sim::PowerCutTruth truth = t->Cut(t_ns);
  PowerCut c;
  c.cut_ns = t_ns;
  c.lost_flushed = truth.lost_flushed;
  c.lost_unflushed = truth.lost_unflushed;
  c.mapping = truth.mapping;
  c.units_in_buffer = truth.units_in_buffer;
  c.units_saved = truth.units_saved;
  // The drive comes back once the work it had booked before the cut has ended (its
  // resources are busy until then in the model).
  c.ready_ns = std::max(t_ns, dev_->host_busy_until_ns());
  now_ns_ = c.ready_ns;
  dirty_ = true;
  return c;
}

uint32_t SimBackend::HeldTag(uint64_t lpn) const { return dev_->power_loss()->Held(lpn); }

void SimBackend::DrainInFlight() {
  for (const InFlight& f : in_flight_) now_ns_ = std::max(now_ns_, f.done_ns);
  in_flight_.clear();
}

Status SimBackend::Idle(uint64_t ns, const RunControl& control) {
  if (probe_) return Status::Error(Code::kInternal, "sim: a probe's backend runs no I/O");
  dirty_ = true;
  DrainInFlight();
  const uint64_t to = now_ns_ + ns;
  WithDevice([&](auto* dev) {
    const uint64_t from = std::max(now_ns_, dev->host_busy_until_ns() + dev->bg_idle_ns());
    if (from < to) dev->Background(from, to);
  });
  now_ns_ = to;
  return Status::Ok();
}

void SimBackend::ResetFactoryFresh() {
  dirty_ = true;
  in_flight_.clear();
  WithDevice([&](auto* dev) {
    now_ns_ = std::max(now_ns_, dev->host_busy_until_ns());
    dev->ResetFactoryFresh(now_ns_);
  });
}

SimCounters SimBackend::counters() const {
  SimCounters s;
  const_cast<SimBackend*>(this)->WithDevice([&](auto* dev) {
    const sim::DeviceCounters c = dev->counters();
    s.host_pages_written = c.host_pages;
    s.nand_pages_written = c.nand_pages;
    s.gc_page_copies = c.gc_copies;
    s.erases = c.erases;
    s.nand_page_reads = c.nand_reads;
    s.free_blocks = dev->free_blocks();
    s.slc_cache_used_bytes = dev->slc_used_pages() * sim::kUnitBytes;
    s.host_read_pages = c.host_read_pages;
    s.unmapped_read_pages = c.unmapped_read_pages;
  });
  if (array_) {
    for (size_t i = 0; i < array_->members(); ++i) {
      s.mapped_pages += array_->member(i).ftl().mapped_pages();
      s.user_pages += array_->member(i).geometry().user_pages;
    }
  } else {
    s.mapped_pages = dev_->ftl().mapped_pages();
    s.user_pages = g_->user_pages;
  }
  s.virtual_time_ns = now_ns_;
  return s;
}

}  // namespace ssdlab
