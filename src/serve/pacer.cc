#include "serve/pacer.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "base/thread.h"

namespace ssdlab::serve {
namespace {

// Below this a wait for a due time spins instead of sleeping (a sleep overshoots by tens of
// microseconds even with the timer slack at its least).
constexpr uint64_t kSpinNs = 40'000;

}  // namespace

uint64_t Pacer::MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

bool Pacer::RaiseToRealTime() {
  sched_param sp{};
  sp.sched_priority = sched_get_priority_min(SCHED_FIFO);
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
}

void TransportGap::Arrived(uint64_t arrival_ns, size_t held) {
  if (held == 0 && have_reply_ && arrival_ns >= reply_ns_) {
    const uint64_t gap = arrival_ns - reply_ns_;
    if (gap > limit_ns_) {
      ++paused_;
    } else {
      gaps_ns_.Record(gap);
      uint64_t& slot = window_[measured_++ % kWindow];
      window_sum_ns_ += gap - slot;  // (the slot held 0 until the window filled)
      slot = gap;
      if (measured_ % kRefresh == 0)
        estimate_ns_ = window_sum_ns_ / std::min<uint64_t>(measured_, kWindow);
    }
  }
  // A request arriving before the last reply left overlapped it: its stretch is not QD 1.
  alone_ = held == 0 && !(have_reply_ && arrival_ns < reply_ns_);
  have_reply_ = false;
}

void TransportGap::Replied(uint64_t reply_ns, size_t held) {
  have_reply_ = held == 0 && alone_;
  reply_ns_ = reply_ns;
}

Pacer::~Pacer() { Stop(); }

Status Pacer::Start() {
  start_wall_ns_ = MonotonicNs();
  start_virtual_ns_ = last_virtual_ns_ = drive_->now_ns();
  start_counters_ = drive_->counters();
  incoming_.reserve(1024);
  batch_.reserve(1024);
  auto t = StartThread([this] { Loop(); }, "the pacer's thread");
  if (!t.ok()) return t.status();
  thread_ = std::move(t).value();
  running_ = true;
  return Status::Ok();
}

bool Pacer::WorkLocked() const {
  return !incoming_.empty() || stopping_ || snapshots_wanted_ > snapshots_answered_;
}

void Pacer::Submit(Op op, uint64_t offset, uint32_t bytes, uint64_t arrival_ns, ReplyFn reply,
                   void* ctx, uint32_t tag) {
  const Pending p{op, bytes, offset, arrival_ns, reply, ctx, tag};
  enum { kQueued, kHere, kOff } way;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The pacer holds nothing (its thread idle): this thread admits it.
    way = cut_ ? kOff : owner_ == Owner::kNone && !WorkLocked() ? kHere : kQueued;
    if (way == kHere) owner_ = Owner::kSubmitter;
    if (way == kQueued) {
      incoming_.push_back(p);
      cv_.notify_one();
    }
  }
  if (way == kHere) AnswerHere(p);
  if (way == kOff) reply(ctx, EIO);  // the drive is off
}

void Pacer::AnswerHere(const Pending& p) {
  Admit(p);
  // Spin to the due time when it is near, as the pacer's thread would, unless the transport has
  // another request for this thread, another thread submitted one or the power was cut: then
  // the pacer's thread takes over (another request may be due sooner).
  uint64_t now = MonotonicNs();
  while (due_.top().due_ns > now && due_.top().due_ns <= now + kSpinNs) {
    if (probe_ != nullptr && probe_(probe_ctx_)) break;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!incoming_.empty() || cut_) break;
    }
    now = MonotonicNs();
  }
  if (due_.top().due_ns <= now) {
    const Due d = due_.top();
    due_.pop();
    ++report_.direct_replies;
    Answer(d, now);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!due_.empty()) {
    owner_ = Owner::kPacer;  // handed off
    cv_.notify_one();
  } else {
    owner_ = Owner::kNone;
    if (WorkLocked()) cv_.notify_one();  // arrived meanwhile from another thread, or Counters()
  }
}

void Pacer::Admit(const Pending& p) {
  // Arrivals are in order from one transport thread; from several, a late stamp is moved to the
  // latest virtual time already used (the simulator takes commands in time order).
  gap_.Arrived(p.arrival_ns, due_.size());
  const uint64_t since_start = p.arrival_ns > start_wall_ns_ ? p.arrival_ns - start_wall_ns_ : 0;
  const uint64_t t = std::max(start_virtual_ns_ + since_start, last_virtual_ns_);
  last_virtual_ns_ = t;
  ++report_.requests;
  uint64_t done = t + 1;
  int err = 0;
  switch (p.op) {
    case Op::kFlush:
      ++report_.flushes;
      done = drive_->FlushAt(t);
      break;
    case Op::kRead:
    case Op::kWrite:
    case Op::kTrim: {
      const Direction dir = p.op == Op::kRead    ? Direction::kRead
                            : p.op == Op::kWrite ? Direction::kWrite
                                                 : Direction::kTrim;
      auto r = p.tag != 0 ? drive_->SubmitTaggedWrite(p.offset, p.bytes, t, p.tag, false)
                          : drive_->SubmitAt(dir, p.offset, p.bytes, t);
      if (!r.ok()) {
        ++report_.errors;
        err = EIO;
        break;
      }
      done = *r;
      if (p.op == Op::kRead) {
        ++report_.reads;
        report_.read_bytes += p.bytes;
      } else if (p.op == Op::kWrite) {
        ++report_.writes;
        report_.write_bytes += p.bytes;
      } else {
        ++report_.trims;
        report_.trim_bytes += p.bytes;
      }
      break;
    }
  }
  const uint64_t service = done - t;
  report_.service_ns.Record(service);
  if (err == 0 && p.op == Op::kRead) report_.read_service_ns += service;
  if (err == 0 && p.op == Op::kWrite) report_.write_service_ns += service;
  const bool by_gap = o_.credit_gap && gap_.estimate_ns() > 0;
  const uint64_t round_trip = by_gap ? gap_.estimate_ns() : o_.transport_ns;
  if (by_gap) ++report_.gap_credited;
  const uint64_t credit = std::min(service, round_trip);
  const bool io = err == 0 && (p.op == Op::kRead || p.op == Op::kWrite);
  if (io) {
    if (service <= round_trip) ++report_.shorter_than_transport;
    report_.io_round_trip_ns += round_trip;
  }
  const uint64_t due = start_wall_ns_ + (done - start_virtual_ns_) - credit;
  const uint64_t answered = MonotonicNs();
  report_.admission_ns.Record(answered > p.arrival_ns ? answered - p.arrival_ns : 0);
  due_.push(Due{due, done, p.arrival_ns, due <= answered, io, seq_++, p.reply, p.ctx, err});
}

void Pacer::Answer(const Due& d, uint64_t now_ns) {
  const uint64_t lag = now_ns > d.due_ns ? now_ns - d.due_ns : 0;
  report_.lag_ns.Record(lag);
  if (lag > o_.late_threshold_ns) ++report_.late;
  const uint64_t held = now_ns > d.arrival_ns ? now_ns - d.arrival_ns : 0;
  if (d.due_at_once) report_.turnaround_ns.Record(held);
  if (d.io) report_.io_server_ns += held;
  gap_.Replied(now_ns, due_.size());
  d.reply(d.ctx, d.err);
}

SimCounters Pacer::Counters() {
  std::unique_lock<std::mutex> lock(mu_);
  if (thread_ended_) return drive_->counters();
  const uint64_t want = ++snapshots_wanted_;
  cv_.notify_one();
  snapshot_cv_.wait(lock, [&] { return snapshots_answered_ >= want || thread_ended_; });
  return snapshots_answered_ >= want ? snapshot_ : drive_->counters();
}

void Pacer::Loop() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // sleeps end as close to their deadline as can be
  report_.realtime = RaiseToRealTime();
  struct Ended {  // Counters() callers waiting when the thread ends read the drive themselves
    Pacer* p;
    ~Ended() {
      std::lock_guard<std::mutex> lock(p->mu_);
      p->thread_ended_ = true;
      p->snapshot_cv_.notify_all();
    }
  } ended{this};
  for (;;) {
    bool stopping;
    uint64_t snapshot_wanted;
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto woken = [&] { return WorkLocked(); };
      // Holding nothing, with nothing to do: idle, and a Submit() may answer on its own thread
      // (owner_ kSubmitter) until it gives the backend back (kNone) or hands a request over
      // (kPacer). At the first pass the thread has not owned anything yet.
      if (owner_ == Owner::kPacer && due_.empty() && !woken()) owner_ = Owner::kNone;
      if (owner_ != Owner::kPacer) {
        cv_.wait(lock,
                 [&] { return owner_ == Owner::kPacer || (owner_ == Owner::kNone && woken()); });
        owner_ = Owner::kPacer;
      } else if (!woken()) {
        const uint64_t now = MonotonicNs(), due = due_.top().due_ns;
        if (due > now + kSpinNs) {
          const auto until =
              std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due - kSpinNs / 2));
          cv_.wait_until(lock, until, woken);
        }
      }
      if (cut_) return;
      batch_.swap(incoming_);
      stopping = stopping_;
      snapshot_wanted = snapshots_wanted_;
    }
    for (const Pending& p : batch_) Admit(p);
    batch_.clear();
    if (snapshot_wanted > snapshots_answered_) {
      const SimCounters c = drive_->counters();
      std::lock_guard<std::mutex> lock(mu_);
      snapshot_ = c;
      snapshots_answered_ = snapshot_wanted;
      snapshot_cv_.notify_all();
    }
    // Replies due within the spin window: spin to each one's due time, unless new requests
    // arrive meanwhile (they are admitted first: one may be due sooner).
    uint64_t now = MonotonicNs();
    while (!due_.empty() && due_.top().due_ns <= now + kSpinNs) {
      if (due_.top().due_ns > now) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (!incoming_.empty() || cut_) break;
        }
        now = MonotonicNs();
        continue;
      }
      const Due d = due_.top();
      due_.pop();
      Answer(d, now);
      now = MonotonicNs();
    }
    if (stopping && due_.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (incoming_.empty()) return;
    }
  }
}

void Pacer::Stop() {
  if (!running_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
  running_ = false;
  const uint64_t end_wall = MonotonicNs();
  // The host was idle from the last request to the end: background work runs in that time.
  const uint64_t end_virtual = start_virtual_ns_ + (end_wall - start_wall_ns_);
  if (end_virtual > drive_->now_ns()) (void)drive_->Idle(end_virtual - drive_->now_ns(), {});
  Finish(end_wall);
}

Result<SimBackend::PowerCut> Pacer::Cut() {
  std::vector<Pending> never;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cut_ = stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
  running_ = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    never.swap(incoming_);  // arrived, never reached the drive
  }
  const uint64_t end_wall = MonotonicNs();
  const uint64_t t = std::max(
      {start_virtual_ns_ + (end_wall - start_wall_ns_), last_virtual_ns_, drive_->now_ns()});
  for (; !due_.empty(); due_.pop()) {
    const Due& d = due_.top();
    d.reply(d.ctx, d.done_ns <= t ? d.err : EIO);
  }
  for (const Pending& p : never) p.reply(p.ctx, EIO);
  auto cut = drive_->PowerCutAt(t);
  Finish(end_wall);
  return cut;
}

void Pacer::Finish(uint64_t end_wall_ns) {
  report_.wall_ns = end_wall_ns - start_wall_ns_;
  const SimCounters c = drive_->counters();
  report_.host_pages_written = c.host_pages_written - start_counters_.host_pages_written;
  report_.nand_pages_written = c.nand_pages_written - start_counters_.nand_pages_written;
  report_.gc_page_copies = c.gc_page_copies - start_counters_.gc_page_copies;
  report_.erases = c.erases - start_counters_.erases;
  report_.gap_ns = gap_.gaps_ns();
  report_.gap_pauses = gap_.paused();
  report_.gap_estimate_ns = gap_.estimate_ns();
  report_.paced = report_.late_share() <= o_.late_share_limit;
}

}  // namespace ssdlab::serve
