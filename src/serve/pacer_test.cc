#include "serve/pacer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "serve/data_store.h"
#include "sim/sim.h"

namespace ssdlab::serve {
namespace {

std::unique_ptr<SimBackend> Open(const std::string& target) {
  auto b = OpenSimBackend(target);
  EXPECT_TRUE(b.ok()) << b.status().message();
  return std::move(b).value();
}

struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  int answered = 0;
  int err = -1;
  uint64_t at_ns = 0;
  std::thread::id on;  // the thread that replied last
  static void Reply(void* p, int err) {
    auto* w = static_cast<Waiter*>(p);
    std::lock_guard<std::mutex> lock(w->mu);
    w->at_ns = Pacer::MonotonicNs();
    w->on = std::this_thread::get_id();
    w->err = err;
    ++w->answered;
    w->cv.notify_all();
  }
  void Wait(int n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return answered >= n; });
  }
};

// Counters() reads the drive's counters on the pacer's thread while it serves: after a write's
// reply they include it, and after the stop they are the drive's own.
TEST(Pacer, CountersWhileServingIncludeEveryAdmittedRequest) {
  auto drive = Open("sim:tiny?capacity=64MiB");
  Pacer pacer(drive.get(), PacerOptions{});
  ASSERT_TRUE(pacer.Start().ok());
  const SimCounters before = pacer.Counters();
  Waiter w;
  pacer.Submit(Op::kWrite, 0, 64 << 10, Pacer::MonotonicNs(), Waiter::Reply, &w);
  w.Wait(1);
  const SimCounters after = pacer.Counters();
  EXPECT_EQ(after.host_pages_written - before.host_pages_written, 16u);
  EXPECT_GE(after.nand_pages_written, before.nand_pages_written);
  pacer.Stop();
  EXPECT_EQ(pacer.Counters().host_pages_written, drive->counters().host_pages_written);
}

// A request is never answered before the model's completion time, less the transport's credit:
// a 1 MiB write on the tiny drive takes milliseconds of model time, and the reply waits for it.
TEST(Pacer, AnswersNoSoonerThanTheModelCompletes) {
  auto twin = Open("sim:tiny?capacity=64MiB");
  const uint64_t t0 = twin->now_ns();
  const uint64_t service = *twin->SubmitAt(Direction::kWrite, 0, 1 << 20, t0) - t0;
  ASSERT_GT(service, 1'000'000u);  // > 1 ms: well above the pacer's own overhead
  auto drive = Open("sim:tiny?capacity=64MiB");
  PacerOptions o;
  o.transport_ns = 200'000;
  Pacer pacer(drive.get(), o);
  ASSERT_TRUE(pacer.Start().ok());
  Waiter w;
  const uint64_t arrival = Pacer::MonotonicNs();
  pacer.Submit(Op::kWrite, 0, 1 << 20, arrival, Waiter::Reply, &w);
  w.Wait(1);
  EXPECT_EQ(w.err, 0);
  EXPECT_GE(w.at_ns - arrival, service - o.transport_ns);
  pacer.Stop();
  const PacerReport& r = pacer.report();
  EXPECT_EQ(r.requests, 1u);
  EXPECT_EQ(r.writes, 1u);
  EXPECT_EQ(r.write_bytes, 1u << 20);
  EXPECT_EQ(r.lag_ns.count(), 1u);
  EXPECT_EQ(r.service_ns.max(), service);
  EXPECT_EQ(r.host_pages_written, 256u);
  EXPECT_EQ(r.shorter_than_transport, 0u);
}

// A request submitted while the pacer holds nothing, and due at once (its service time shorter
// than the credit: due at its arrival), is answered on the submitting thread before Submit()
// returns, with no hand-off; its lag and its turnaround (due by the time the model answered)
// are recorded as the pacer's thread records them. Again for a second one: the first gave the
// pacer back.
TEST(Pacer, ARequestDueAtOnceIsAnsweredOnTheSubmittingThread) {
  auto drive = Open("sim:tiny?capacity=64MiB");
  PacerOptions o;
  o.transport_ns = 10'000'000'000;  // 10 s: every service time is shorter
  Pacer pacer(drive.get(), o);
  ASSERT_TRUE(pacer.Start().ok());
  Waiter w;
  pacer.Submit(Op::kWrite, 0, 4096, Pacer::MonotonicNs(), Waiter::Reply, &w);
  {
    std::lock_guard<std::mutex> lock(w.mu);
    EXPECT_EQ(w.answered, 1);  // already: within Submit()
    EXPECT_EQ(w.on, std::this_thread::get_id());
    EXPECT_EQ(w.err, 0);
  }
  pacer.Submit(Op::kRead, 0, 4096, Pacer::MonotonicNs(), Waiter::Reply, &w);
  {
    std::lock_guard<std::mutex> lock(w.mu);
    EXPECT_EQ(w.answered, 2);
    EXPECT_EQ(w.on, std::this_thread::get_id());
  }
  pacer.Stop();
  const PacerReport& r = pacer.report();
  EXPECT_EQ(r.requests, 2u);
  EXPECT_EQ(r.direct_replies, 2u);
  EXPECT_EQ(r.lag_ns.count(), 2u);
  EXPECT_EQ(r.admission_ns.count(), 2u);
  EXPECT_EQ(r.turnaround_ns.count(), 2u);
  EXPECT_EQ(r.shorter_than_transport, 2u);
  EXPECT_EQ(r.host_pages_written, 1u);
}

// A request due later than the spin window (a 16 MiB write, hundreds of milliseconds of model
// time, with no credit) is admitted on the submitting thread and handed to the pacer's thread,
// which replies at its due time; a request submitted while the pacer holds another is queued
// for the pacer's thread. Every reply's lag is recorded.
TEST(Pacer, RequestsNotDueAtOnceAreHandedToThePacersThread) {
  auto twin = Open("sim:tiny?capacity=64MiB");
  const uint64_t t0 = twin->now_ns();
  const uint64_t service = *twin->SubmitAt(Direction::kWrite, 0, 16 << 20, t0) - t0;
  ASSERT_GT(service, 100'000'000u);  // > 100 ms: far beyond the spin window
  auto drive = Open("sim:tiny?capacity=64MiB");
  Pacer pacer(drive.get(), PacerOptions{});
  ASSERT_TRUE(pacer.Start().ok());
  Waiter big, small;
  const uint64_t arrival = Pacer::MonotonicNs();
  pacer.Submit(Op::kWrite, 0, 16 << 20, arrival, Waiter::Reply, &big);
  pacer.Submit(Op::kRead, 0, 4096, Pacer::MonotonicNs(), Waiter::Reply, &small);
  big.Wait(1);
  small.Wait(1);
  EXPECT_NE(big.on, std::this_thread::get_id());
  EXPECT_NE(small.on, std::this_thread::get_id());
  EXPECT_GE(big.at_ns - arrival, service);
  pacer.Stop();
  const PacerReport& r = pacer.report();
  EXPECT_EQ(r.requests, 2u);
  EXPECT_EQ(r.direct_replies, 0u);
  EXPECT_EQ(r.lag_ns.count(), 2u);
  EXPECT_EQ(r.admission_ns.count(), 2u);
  EXPECT_EQ(r.host_pages_written, 4096u);
}

// A reply due within the spin window, not yet due when the model answered, is handed to the
// pacer's thread as soon as the transport has another request for the submitting thread (the
// arrival probe says so, here every time it is asked). The reply is due 20 us after arrival
// (credit: the model's service time less 20 us, the same on a fresh twin); a host that stalls
// the submitting thread for those 20 us finds it due at once, and it is answered there, unasked.
TEST(Pacer, ANearReplyIsHandedOverWhenTheTransportHasAnotherRequest) {
  auto twin = Open("sim:tiny?capacity=64MiB");
  const uint64_t t0 = twin->now_ns();
  const uint64_t service = *twin->SubmitAt(Direction::kWrite, 0, 4096, t0) - t0;
  ASSERT_GT(service, 20'000u);
  auto drive = Open("sim:tiny?capacity=64MiB");
  PacerOptions o;
  o.transport_ns = service - 20'000;
  Pacer pacer(drive.get(), o);
  int probes = 0;
  pacer.SetArrivalProbe(
      [](void* ctx) {
        ++*static_cast<int*>(ctx);
        return true;
      },
      &probes);
  ASSERT_TRUE(pacer.Start().ok());
  Waiter w;
  pacer.Submit(Op::kWrite, 0, 4096, Pacer::MonotonicNs(), Waiter::Reply, &w);
  w.Wait(1);
  pacer.Stop();
  const PacerReport& r = pacer.report();
  EXPECT_EQ(r.service_ns.max(), service);
  EXPECT_EQ(r.lag_ns.count(), 1u);
  if (probes > 0) {
    EXPECT_EQ(probes, 1);
    EXPECT_NE(w.on, std::this_thread::get_id());
    EXPECT_EQ(r.direct_replies, 0u);
  } else {
    EXPECT_EQ(w.on, std::this_thread::get_id());
    EXPECT_EQ(r.direct_replies, 1u);
  }
}

// A service time shorter than the transport's round trip is answered at once and counted (a
// read or write); a request outside the drive is answered with EIO and counted as an error; a
// flush is answered (neither counted as shorter: only reads and writes are compared).
TEST(Pacer, ShortServiceOutOfRangeAndFlush) {
  auto drive = Open("sim:tiny?capacity=64MiB");
  PacerOptions o;
  o.transport_ns = 10'000'000'000;  // 10 s: every service time is shorter
  Pacer pacer(drive.get(), o);
  ASSERT_TRUE(pacer.Start().ok());
  Waiter ok, bad, flush;
  pacer.Submit(Op::kRead, 0, 4096, Pacer::MonotonicNs(), Waiter::Reply, &ok);
  pacer.Submit(Op::kRead, drive->info().size_bytes, 4096, Pacer::MonotonicNs(), Waiter::Reply,
               &bad);
  pacer.Submit(Op::kFlush, 0, 0, Pacer::MonotonicNs(), Waiter::Reply, &flush);
  ok.Wait(1);
  bad.Wait(1);
  flush.Wait(1);
  pacer.Stop();
  EXPECT_EQ(ok.err, 0);
  EXPECT_EQ(bad.err, EIO);
  EXPECT_EQ(flush.err, 0);
  EXPECT_EQ(pacer.report().errors, 1u);
  EXPECT_EQ(pacer.report().flushes, 1u);
  EXPECT_EQ(pacer.report().shorter_than_transport, 1u);
  // The server's estimate of what the read's client saw: the round trip (10 s, uncapped) and
  // its time in the server (answered at once: far below a second).
  EXPECT_EQ(pacer.report().io_round_trip_ns, 10'000'000'000u);
  EXPECT_LT(pacer.report().io_server_ns, 1'000'000'000u);
}

// At QD 1 closed loop the gap from each reply to the next arrival is the host's round trip:
// gaps cycling through 28-32 us give their mean as the estimate, refreshed every 8 gaps (the
// last refresh at 32 gaps: 20 of them before the pause, starting at 28, and 12 after, starting
// at 29: 959,000 / 32 ns); a 5 ms pause of the client is not the transport's and is counted
// apart.
TEST(TransportGap, QueueDepthOneGapsGiveTheirMeanAndPausesAreIgnored) {
  TransportGap g(500'000);
  EXPECT_EQ(g.estimate_ns(), 0u);
  uint64_t t = 1'000'000;
  const uint64_t gaps[] = {28'000, 29'000, 30'000, 31'000, 32'000};
  for (int i = 0; i < 40; ++i) {
    g.Arrived(t, 0);
    t += 100'000;  // the server's time
    g.Replied(t, 0);
    t += i == 20 ? 5'000'000 : gaps[i % 5];
    if (i == 7) EXPECT_EQ(g.estimate_ns(), 0u);  // 7 gaps: none yet
  }
  EXPECT_EQ(g.estimate_ns(), 29'968u);
  EXPECT_EQ(g.gaps_ns().count(), 38u);  // 39 gaps, the pause not among them
  EXPECT_EQ(g.paused(), 1u);
  EXPECT_LE(g.gaps_ns().max(), 32'000u);
}

// Overlapping requests give no gap: a second request arriving while the first is held, and one
// stamped before the previous reply left (admitted after it), make their stretches not QD 1,
// so neither the gap after them nor the one before counts.
TEST(TransportGap, OverlappingRequestsContributeNothing) {
  TransportGap g(500'000);
  uint64_t t = 1'000'000;
  for (int i = 0; i < 40; ++i) {
    g.Arrived(t, 0);
    g.Arrived(t + 1'000, 1);  // QD 2
    g.Replied(t + 100'000, 1);
    g.Replied(t + 101'000, 0);
    g.Arrived(t + 131'000, 0);  // 30 us after the last reply, but that stretch held two
    g.Replied(t + 200'000, 0);
    g.Arrived(t + 199'000, 0);  // stamped before the reply it follows
    g.Replied(t + 300'000, 0);
    t += 330'000;  // 30 us after that reply: its stretch overlapped the one before
  }
  EXPECT_EQ(g.gaps_ns().count(), 0u);
  EXPECT_EQ(g.estimate_ns(), 0u);
  EXPECT_EQ(g.paused(), 0u);
}

// The pacer measures the gaps of a QD 1 client from its own replies and, with credit_gap,
// credits their estimate once there is one: a client answering each reply with a request
// stamped 30 us after it saw the reply gives one gap per request after the first, each at least
// 30 us; requests after the 8th gap are credited by the estimate. A burst of requests stamped
// together with the last of those (before its reply) gives none.
TEST(Pacer, MeasuresTheGapsOfAQueueDepthOneClient) {
  auto drive = Open("sim:tiny?capacity=64MiB");
  PacerOptions o;
  o.credit_gap = true;
  o.gap_limit_ns = 10'000'000'000;  // 10 s: no gap is a pause, however busy the host
  Pacer pacer(drive.get(), o);
  ASSERT_TRUE(pacer.Start().ok());
  Waiter w;
  uint64_t arrival = Pacer::MonotonicNs(), last = 0;
  for (int i = 0; i < 20; ++i) {
    pacer.Submit(Op::kRead, static_cast<uint64_t>(i) * 4096, 4096, arrival, Waiter::Reply, &w);
    w.Wait(i + 1);
    last = arrival;
    arrival = w.at_ns + 30'000;  // at_ns: after the reply left
  }
  Waiter burst;
  for (int i = 0; i < 4; ++i) pacer.Submit(Op::kRead, 0, 4096, last, Waiter::Reply, &burst);
  burst.Wait(4);
  pacer.Stop();
  const PacerReport& r = pacer.report();
  EXPECT_EQ(r.gap_ns.count(), 19u);
  EXPECT_GE(r.gap_ns.min(), 30'000u);
  EXPECT_GE(r.gap_estimate_ns, 30'000u);
  EXPECT_EQ(r.gap_pauses, 0u);
  EXPECT_EQ(r.gap_credited, 16u);  // requests 9-20 (after the 8th gap) and the burst
}

TEST(DataStore, MemoryIsSparseAndPunchReadsZeros) {
  auto s = MemoryStore(1 << 20);
  std::vector<char> buf(10000, 'x'), out(10000, 'y');
  ASSERT_TRUE(s->Read(100, 10000, out.data()).ok());
  EXPECT_EQ(out, std::vector<char>(10000, 0));
  ASSERT_TRUE(s->Write(100, 10000, buf.data()).ok());
  ASSERT_TRUE(s->Read(100, 10000, out.data()).ok());
  EXPECT_EQ(out, buf);
  ASSERT_TRUE(s->Punch(4096, 4096).ok());
  ASSERT_TRUE(s->Read(0, 10000, out.data()).ok());
  EXPECT_EQ(out[99], 0);
  EXPECT_EQ(out[100], 'x');
  EXPECT_EQ(out[4096], 0);
  EXPECT_EQ(out[8191], 0);
  EXPECT_EQ(out[8192], 'x');
}

TEST(DataStore, FileKeepsDataAndRefusesAnotherDrive) {
  const char* tmp = std::getenv("SSDLAB_TEST_TMP");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/serve_data_store";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/d.st.data";
  std::vector<char> buf(4096, 'z'), out(4096);
  {
    auto s = OpenFileStore(path, 1 << 20, "SIMabc");
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_TRUE((*s)->Write(8192, 4096, buf.data()).ok());
  }
  auto again = OpenFileStore(path, 1 << 20, "SIMabc");
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_TRUE((*again)->Read(8192, 4096, out.data()).ok());
  EXPECT_EQ(out, buf);
  auto other = OpenFileStore(path, 1 << 20, "SIMdef");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("belongs to another drive"), std::string::npos);
  EXPECT_EQ(other.status().message().find('\n'), std::string::npos);
  std::filesystem::remove(path);
  { std::ofstream(path) << "not ours"; }
  auto foreign = OpenFileStore(path, 1 << 20, "SIMabc");
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("is not a served drive's data"), std::string::npos);
}

}  // namespace
}  // namespace ssdlab::serve
