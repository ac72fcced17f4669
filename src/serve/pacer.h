// Real-time pacing of the simulated drive: each host request enters the simulator at its
// wall-clock arrival and is answered when the wall clock reaches its virtual completion.
//
// Virtual time 0 is the pacer's start (Start()): a request arriving w ns of wall time after it
// is submitted at the drive's clock at start plus w (sim.h SimBackend::SubmitAt), and answered
// at start + (completion - clock at start) - credit, where the credit is the transport's own
// latency (measured by the transport, PacerOptions::transport_ns) or the service time when
// that is shorter: the client, which pays the transport's round trip on top, then sees the
// model's service time, as FEMU does. A request whose service time is shorter than the
// transport is answered at once and counted (shorter_than_transport). With credit_gap, the
// credit is the transport's round trip measured while serving (TransportGap below) once there
// is one, transport_ns until then.
//
// When the host or the transport cannot keep up, replies leave after their due time: each
// reply's lag (reply wall time minus due time) goes into a histogram, and replies later than
// late_threshold_ns are counted as late. Figures of a serve with more than late_share_limit
// late are not the model's (PacerReport::paced false).
//
// Threads: Submit() may be called from any thread. The backend, the due queue and the figures
// are used by one thread at a time, its owner: the pacer's own thread, or a thread inside
// Submit(). A request submitted while the pacer holds nothing else (the pacer's thread idle,
// waiting for work: QD 1) is run through the model on the submitting thread, which owns them
// until it returns; when its reply is due within the spin window (40 us) or already, the
// submitting thread spins to the due time and replies itself, with no hand-off to the pacer's
// thread (whose wake-up took 23-36 us on the development VM: docs/serve.md); otherwise, or when
// another request is waiting for that thread meanwhile (SetArrivalProbe) or one was submitted by
// another thread, or the drive's power is cut, it hands the request, already admitted, to the
// pacer's thread. Every other request is queued for the pacer's thread, which admits it and replies
// at its due time. So replies are called on the pacer's thread or, within Submit(), on the
// submitting one, one at a time; lag, late counting and TransportGap are the same on both paths.
// The transport (serve/fuse_drive.h) is kept apart so that another one (ublk) reuses this.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "base/status.h"
#include "sim/sim.h"
#include "stats/histogram.h"

namespace ssdlab::serve {

enum class Op : uint8_t { kRead, kWrite, kTrim, kFlush };

// Called when a request is answered, on the pacer's thread or within Submit() on the
// submitting one (Threads, above): err 0, or an errno for a request the drive refused (out of
// range).
using ReplyFn = void (*)(void* ctx, int err);
// Whether a request is waiting for the thread that submits them (the transport's queue).
using ArrivalProbeFn = bool (*)(void* ctx);

// The host's round trip measured while serving, as FEMU subtracts its emulation overhead. At
// QD 1 closed loop (the server holds one request at a time and the next arrives after the
// previous reply left), the time from a reply leaving the server to the next request's arrival
// is what the host adds to every request beyond the server's own time: the reply's way back
// (FUSE, the loop device's worker, the block layer), the client's turnaround (its completion
// handling and next submission: a few microseconds for fio, counted too) and the next
// request's way in. A gap is measured only where the server held no other request from the
// previous request's arrival to the next one's (overlapping requests, QD > 1, give none); gaps
// above limit_ns are a client pausing (think time), not the transport: counted apart, not
// measured. The estimate is the mean of the last kWindow gaps (a running sum), refreshed every
// kRefresh gaps; 0 until kRefresh gaps were measured. The mean, not the median: a client's mean
// latency holds the mean round trip, and the gaps' distribution is skewed to the right (the
// median left 5-10 us a request uncredited at QD 1 on the development VM); the window is long
// (about a tenth of a second of a QD 1 client) so that a few slow round trips move it little.
// Not thread-safe (the pacer's thread's own). The times are any one clock's (MonotonicNs()).
class TransportGap {
 public:
  static constexpr size_t kWindow = 1024, kRefresh = 8;
  explicit TransportGap(uint64_t limit_ns) : limit_ns_(limit_ns) {}
  // A request arrived at arrival_ns while the server held `held` other requests unanswered.
  void Arrived(uint64_t arrival_ns, size_t held);
  // A reply left at reply_ns; the server still holds `held` requests unanswered.
  void Replied(uint64_t reply_ns, size_t held);
  uint64_t estimate_ns() const { return estimate_ns_; }
  const Histogram& gaps_ns() const { return gaps_ns_; }  // every gap measured
  uint64_t paused() const { return paused_; }            // gaps above limit_ns, not measured

 private:
  uint64_t limit_ns_;
  bool alone_ = false;       // since the server was last idle, it held one request at a time
  bool have_reply_ = false;  // the server is idle after a reply to a request held alone
  uint64_t reply_ns_ = 0;    // that reply's time
  std::array<uint64_t, kWindow> window_{};
  uint64_t window_sum_ns_ = 0;  // of window_
  uint64_t measured_ = 0;       // gaps measured in all (the window holds the last kWindow)
  uint64_t estimate_ns_ = 0;
  uint64_t paused_ = 0;
  Histogram gaps_ns_;
};

struct PacerOptions {
  uint64_t transport_ns = 0;  // the transport's round trip, credited against service
  // Credit the round trip measured while serving (TransportGap's estimate) once there is one,
  // instead of transport_ns; gaps above gap_limit_ns are not the transport's.
  bool credit_gap = false;
  uint64_t gap_limit_ns = 500'000;
  uint64_t late_threshold_ns = 100'000;  // a reply later than this after its due time is late
  double late_share_limit = 0.01;        // above this share late, the figures were not paced
};

struct PacerReport {
  uint64_t requests = 0;
  uint64_t reads = 0, writes = 0, trims = 0, flushes = 0;
  uint64_t read_bytes = 0, write_bytes = 0, trim_bytes = 0;
  uint64_t errors = 0;  // refused by the drive (out of range)
  uint64_t late = 0;    // answered more than late_threshold_ns after due
  // Reads and writes (not refused) whose service time was no longer than the credit: answered
  // at once, their clients saw the transport's latency, not the model's.
  uint64_t shorter_than_transport = 0;
  // What the clients of the reads and writes (not refused) saw, estimated by the server: the
  // host's round trip at each one's admission (the credit's round trip, before it is capped at
  // the service time), summed, and each one's time in the server (arrival to reply), summed.
  // Their sum against the model's service time says whether the clients could see the model's
  // latencies: a reply cannot leave sooner than the server's own turnaround, nor a request
  // shorter than the round trip be shown (serve.cc JudgeTransport).
  uint64_t io_round_trip_ns = 0;
  uint64_t io_server_ns = 0;
  uint64_t direct_replies = 0;  // answered on the submitting thread, with no hand-off
  // The host's round trip measured while serving (TransportGap, every request's, whether
  // credited or not): the gaps measured, the pauses not counted, the estimate at the end, and
  // the requests credited by the estimate (credit_gap; the others by transport_ns).
  Histogram gap_ns;
  uint64_t gap_pauses = 0;
  uint64_t gap_estimate_ns = 0;
  uint64_t gap_credited = 0;
  uint64_t wall_ns = 0;  // Start() to Stop()
  Histogram lag_ns;      // reply wall time - due time, every reply
  // The server's own time: from a request's arrival to the model's answer for it (its
  // completion and due time known, on the thread that ran the model), every request; and from
  // arrival to its reply for the requests already due by then, which the server could not
  // answer sooner (its turnaround: hand-off, model, reply).
  Histogram admission_ns;
  Histogram turnaround_ns;
  Histogram service_ns;           // the model's service time, every request
  uint64_t read_service_ns = 0;   // the model's service times of the reads, summed
  uint64_t write_service_ns = 0;  // and of the writes
  double late_share() const {
    return requests ? static_cast<double>(late) / static_cast<double>(requests) : 0.0;
  }
  bool paced = true;      // late_share() <= late_share_limit
  bool realtime = false;  // the pacer's thread ran with real-time priority
  // The drive's counters over the serve (differences between Start() and Stop()).
  uint64_t host_pages_written = 0, nand_pages_written = 0, gc_page_copies = 0, erases = 0;
  double write_amplification() const {
    return host_pages_written
               ? static_cast<double>(nand_pages_written) / static_cast<double>(host_pages_written)
               : 0.0;
  }
};

class Pacer {
 public:
  // `drive` is not owned and must outlive the pacer.
  Pacer(SimBackend* drive, const PacerOptions& o) : drive_(drive), o_(o) {}
  ~Pacer();  // stops (Stop()) when still running
  Pacer(const Pacer&) = delete;
  Pacer& operator=(const Pacer&) = delete;

  // Starts the pacer's thread; virtual time 0 is now. IoError when the thread cannot start.
  Status Start();
  // A request that arrived at wall time `arrival_ns` (MonotonicNs()); `reply(ctx, err)` is
  // called once, at its due time: within this call, on this thread, when the pacer held nothing
  // else and the reply is due within the spin window (Threads, above), else later on the
  // pacer's thread. Thread-safe; no allocation once the queues have grown. REQUIRES: Start()
  // returned Ok and Stop() has not been called.
  // `tag` (> 0, increasing from write to write; power-loss tracking on) marks a write's data
  // for the model's power-loss account (SimBackend::SubmitTaggedWrite); 0: untagged. After
  // Cut(), a request is answered at once with EIO (the drive is off).
  void Submit(Op op, uint64_t offset, uint32_t bytes, uint64_t arrival_ns, ReplyFn reply, void* ctx,
              uint32_t tag = 0);
  // Answers every queued request at its due time, stops the thread and moves the drive's clock
  // to the end of the serve (host idle since the last request). Idempotent.
  void Stop();
  // A power cut now (the drive's power switch; power-loss tracking on): stops the thread at
  // once, answers every request the model completed by the cut (virtual time T: the wall
  // clock's, at least the last submission's) as done and every other one, queued or not yet
  // admitted, with EIO, then applies the model's cut at T (SimBackend::PowerCutAt). Answers
  // are exact only without a transport credit (PacerOptions::transport_ns 0, credit_gap false): a
  // reply then never leaves before the model's completion. Errors as PowerCutAt. REQUIRES: Start()
  // returned Ok and neither Stop() nor Cut() has been called.
  Result<SimBackend::PowerCut> Cut();
  // The drive's counters now, read on the pacer's thread between two batches of admissions
  // (it waits for that thread; as of the last request admitted: the idle time since then is
  // not simulated yet). Thread-safe. After Stop() or Cut(): the counters at the end.
  // REQUIRES: Start() returned Ok.
  SimCounters Counters();
  // The figures so far; complete after Stop() or Cut(). REQUIRES: one of them was called.
  const PacerReport& report() const { return report_; }

  // While a Submit() call waits to reply on its own thread, it asks `probe(ctx)` whether a
  // request is waiting for that thread, and if so hands its reply to the pacer's thread, so
  // that the transport's next request is not held up. REQUIRES: before the first Submit().
  void SetArrivalProbe(ArrivalProbeFn probe, void* ctx) {
    probe_ = probe;
    probe_ctx_ = ctx;
  }

  // CLOCK_MONOTONIC in ns.
  static uint64_t MonotonicNs();
  // Moves the calling thread to real-time scheduling (SCHED_FIFO, lowest priority), so that a
  // busy host's other work does not delay its wake-ups; false when not permitted (no
  // CAP_SYS_NICE): it stays as it was. The pacer's thread does this itself; a transport calls
  // it on the thread that receives requests.
  static bool RaiseToRealTime();

 private:
  struct Pending {
    Op op;
    uint32_t bytes;
    uint64_t offset;
    uint64_t arrival_ns;
    ReplyFn reply;
    void* ctx;
    uint32_t tag;
  };
  struct Due {
    uint64_t due_ns;      // wall
    uint64_t done_ns;     // virtual: the model's completion
    uint64_t arrival_ns;  // wall
    bool due_at_once;     // already due when the model had answered (report_.turnaround_ns)
    bool io;              // a read or write the drive served (report_.io_server_ns)
    uint64_t seq;
    ReplyFn reply;
    void* ctx;
    int err;
    bool operator>(const Due& o) const {
      return due_ns != o.due_ns ? due_ns > o.due_ns : seq > o.seq;
    }
  };
  // Who uses the backend, due_ and the figures (Threads, above): nobody (the pacer's thread
  // idle, holding nothing: a Submit() may take them), the pacer's thread, or a thread inside
  // Submit().
  enum class Owner : uint8_t { kNone, kPacer, kSubmitter };
  void Loop();
  // On the submitting thread, owner: admits `p`, replies when due within the spin window, and
  // gives the backend back (kNone) or hands `p` to the pacer's thread (kPacer).
  void AnswerHere(const Pending& p);
  bool WorkLocked() const;       // for the pacer's thread: requests, a stop, a snapshot. mu_ held
  void Admit(const Pending& p);  // into the simulator, then the due heap
  void Answer(const Due& d, uint64_t now_ns);
  // The figures at the end (Stop() or Cut()), from the drive's counters.
  void Finish(uint64_t end_wall_ns);

  SimBackend* drive_;
  const PacerOptions o_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Pending> incoming_;  // guarded by mu_
  bool stopping_ = false;          // guarded by mu_
  bool cut_ = false;               // guarded by mu_: Cut() called, the thread ends at once
  Owner owner_ = Owner::kNone;     // guarded by mu_
  ArrivalProbeFn probe_ = nullptr;
  void* probe_ctx_ = nullptr;
  // Counters(): asked (wanted_) and answered (answered_) snapshots, the last one taken, and
  // whether the thread has ended (then Counters() reads the drive itself). Guarded by mu_.
  uint64_t snapshots_wanted_ = 0, snapshots_answered_ = 0;
  SimCounters snapshot_;
  bool thread_ended_ = false;
  std::condition_variable snapshot_cv_;
  bool running_ = false;
  // The pacer thread's own.
  std::vector<Pending> batch_;
  // The owner's (owner_; the caller of Stop() or Cut() once the pacer's thread has ended).
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  uint64_t seq_ = 0;
  TransportGap gap_{o_.gap_limit_ns};
  uint64_t start_wall_ns_ = 0, start_virtual_ns_ = 0, last_virtual_ns_ = 0;
  SimCounters start_counters_;
  PacerReport report_;
};

}  // namespace ssdlab::serve
