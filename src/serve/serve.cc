#include "serve/serve.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "base/units.h"
#include "serve/data_store.h"
#include "serve/fuse_drive.h"
#include "serve/loop_device.h"
#include "sim/sim.h"

namespace ssdlab::serve {
namespace {

// `dir` resolved without touching it (a dead FUSE mount cannot be stat'ed): its parent
// resolved, then its name.
std::string ResolvedDir(const std::string& dir) {
  std::filesystem::path p = std::filesystem::absolute(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  std::error_code ec;
  auto parent = std::filesystem::canonical(p.parent_path(), ec);
  return ec ? p.string() : (parent / p.filename()).string();
}

// The largest credit: a measured round trip above it is a stalled host's, not the transport's.
constexpr uint64_t kMaxCreditNs = 500'000;

// The transport's round trip each way, measured while the drive answers at no cost.
struct Probes {
  uint64_t read_p10 = 0, read_p50 = 0, write_p10 = 0, write_p50 = 0;
  uint64_t median = 0;  // of the reads and writes together: the credit
};

// `rounds` 4 KiB direct reads of `path` at offset 0, each followed by a direct write of what it
// read (the data already there: nothing changes), after a few of each to warm the path up: the
// round trip a client's 4 KiB reads and writes pay through the transport. The median, not a
// low percentile: it is what a client pays on an idle host (the 10th percentile of reads left
// 15-60 us a request uncredited at QD 1), unless it is more than twice the 10th percentile:
// then the host was busy during the measure, and the 10th percentile is taken (a credit that
// large would answer most requests at once); at most kMaxCreditNs. Clients who see less or more
// than the model's latency are caught by the serve's client check (ServeReport::client_excess). Io
// naming the path.
Result<Probes> RoundTrips(const std::string& path, int rounds) {
  const int fd = open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return Status::Io("cannot open " + path + ": " + std::strerror(errno));
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, 4096) != 0) {
    close(fd);
    return Status::Io("out of memory");
  }
  std::vector<uint64_t> reads, writes;
  Status s = Status::Ok();
  for (int i = 0; i < rounds + 8 && s.ok(); ++i) {
    // In bursts of 8 a millisecond apart: one stall of the host (a few ms) does not hold the
    // median.
    if (i % 8 == 0 && i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const uint64_t t0 = Pacer::MonotonicNs();
    const ssize_t n = pread(fd, buf, 4096, 0);
    const uint64_t t1 = Pacer::MonotonicNs();
    const ssize_t w = n == 4096 ? pwrite(fd, buf, 4096, 0) : 0;
    const uint64_t t2 = Pacer::MonotonicNs();
    if (n != 4096 || w != 4096) {
      const bool read_failed = n != 4096;
      const ssize_t bad = read_failed ? n : w;
      s = Status::Io(std::string("cannot ") + (read_failed ? "read " : "write ") + path + ": " +
                     (bad < 0 ? std::strerror(errno) : "short transfer"));
    }
    if (i >= 8) {
      reads.push_back(t1 - t0);
      writes.push_back(t2 - t1);
    }
  }
  std::free(buf);
  close(fd);
  if (!s.ok()) return s;
  auto at = [](std::vector<uint64_t> v, size_t pct) {
    std::sort(v.begin(), v.end());
    return v[v.size() * pct / 100];
  };
  Probes p;
  p.read_p10 = at(reads, 10);
  p.read_p50 = at(reads, 50);
  p.write_p10 = at(writes, 10);
  p.write_p50 = at(writes, 50);
  std::vector<uint64_t> both = reads;
  both.insert(both.end(), writes.begin(), writes.end());
  // A median more than twice the 10th percentile: the host was busy during the measure (an
  // idle transport's round trips are within a few microseconds of each other): the low one.
  p.median = at(both, 50);
  if (p.median > 2 * at(both, 10)) p.median = at(both, 10);
  // Longer than a transport's round trip ever is (FUSE and a loop device: tens of us): the
  // host stalled through the whole measure (other real-time work on every core).
  p.median = std::min(p.median, kMaxCreditNs);
  return p;
}

// The loop device's clients against the model over the serve (ServeReport::client_*).
void CompareClients(const BlockStat& before, const BlockStat& after, ServeReport* r) {
  const PacerReport& p = r->pacer;
  const uint64_t ios = (after.reads - before.reads) + (after.writes - before.writes);
  const uint64_t ms = (after.read_ms - before.read_ms) + (after.write_ms - before.write_ms);
  const uint64_t served = p.reads + p.writes;
  r->client_ios = ios;
  if (ios > 0) r->client_mean_ns = static_cast<double>(ms) * 1e6 / static_cast<double>(ios);
  if (served > 0) {
    r->model_mean_ns =
        static_cast<double>(p.read_service_ns + p.write_service_ns) / static_cast<double>(served);
  }
  const uint64_t diff = ios > served ? ios - served : served - ios;
  r->client_compared = ios >= 100 && ms >= 100 && diff * 10 <= served && r->model_mean_ns > 0;
}

// The clients' part of the verdict (JudgeTransport, below).
void JudgeClientsAndBacklog(const ServeOptions& o, ServeReport* r) {
  const double backlog = r->transport.backlog_share();
  const std::string saturated = fmt::format(
      "transport saturated: {:.0f}% of the requests were already waiting when the server came "
      "to read them",
      100 * backlog);
  if (r->client_compared) {
    const double excess = r->client_excess();
    if (std::abs(excess) <= o.transport_excess_limit) return;
    // Where most requests were credited the round trip measured while serving (QD 1), that
    // credit holds the clients' own time above the loop device (fio's completion handling and
    // next submission, the block layer above it), which the loop device's counters do not see:
    // its clients then see less than the model by that share, and only an excess is judged.
    const PacerReport& p = r->pacer;
    if (excess < 0 && 2 * p.gap_credited >= p.requests) return;
    r->transport_limited = true;
    r->transport_reason = fmt::format(
        "the transport did not keep up: {}'s clients saw {:.1f} us a read or write on average "
        "where the model's mean was {:.3g} us ({}, limit {:.0f}%){}",
        r->loop_device, r->client_mean_ns / 1e3, r->model_mean_ns / 1e3,
        excess >= 1 ? fmt::format("{:.3g} times the model's", excess + 1)
                    : fmt::format("{:+.0f}%", 100 * excess),
        100 * o.transport_excess_limit, backlog > o.backlog_limit ? "; " + saturated : "");
  } else if (r->transport.io_requests >= 100 && backlog > o.backlog_limit) {
    r->transport_limited = true;
    r->transport_reason = fmt::format("{} (limit {:.0f}%)", saturated, 100 * o.backlog_limit);
  }
}

// The verdict on the transport (ServeReport::transport_limited and its reason): from the
// clients' latencies where they were compared, else from the session thread's backlog; and from
// the server's own estimate of what its clients saw (the host's round trip and the time each
// read or write spent in the server) against the model's service time: a reply cannot leave
// sooner than the server's turnaround, nor a request shorter than the round trip be shown.
void JudgeTransport(const ServeOptions& o, ServeReport* r) {
  JudgeClientsAndBacklog(o, r);
  const PacerReport& p = r->pacer;
  const uint64_t service_ns = p.read_service_ns + p.write_service_ns;
  const uint64_t ios = p.reads + p.writes;
  // (No round trip: no credit, as with the power switch; the clients' check above judges.)
  if (ios < 100 || service_ns == 0 || p.io_round_trip_ns == 0) return;
  const double seen =
      static_cast<double>(p.io_round_trip_ns + p.io_server_ns) / static_cast<double>(service_ns);
  if (seen - 1 <= o.transport_excess_limit) return;
  const double n = static_cast<double>(ios);
  const std::string estimate = fmt::format(
      "the host's round trip ({:.1f} us on average) and the server's time ({:.1f} us from "
      "arrival to reply) come to {:+.0f}% of the model's mean service time of {:.1f} us "
      "(limit {:.0f}%; {:.0f}% of the reads and writes were no longer than the round trip)",
      static_cast<double>(p.io_round_trip_ns) / n / 1e3,
      static_cast<double>(p.io_server_ns) / n / 1e3, 100 * (seen - 1),
      static_cast<double>(service_ns) / n / 1e3, 100 * o.transport_excess_limit,
      100.0 * static_cast<double>(p.shorter_than_transport) / n);
  r->transport_reason = r->transport_limited ? r->transport_reason + "; " + estimate : estimate;
  r->transport_limited = true;
}

}  // namespace

Status CheckUblk() {
  if (access("/dev/ublk-control", F_OK) != 0) {
    return Status::Error(Code::kUnsupported,
                         "ublk: this kernel has no ublk driver (/dev/ublk-control is missing); "
                         "use --fuse DIR");
  }
  return Status::Error(Code::kUnsupported,
                       "ublk: this build of ssdlab serves over FUSE only (the kernel has ublk, "
                       "but the ublk transport is not written yet); use --fuse DIR");
}

Result<ServeReport> Serve(const ServeOptions& o) {
  if (o.ublk) return CheckUblk();
  if (o.fuse_dir.empty()) return Status::Invalid("sim serve: give --fuse DIR");
  if (o.target.rfind("sim:", 0) != 0)
    return Status::Invalid("sim serve serves one simulated drive, sim:PRESET[?...], not " +
                           o.target);
  SSDLAB_RETURN_IF_ERROR(CheckFuseMountable(o.fuse_dir));
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<SimBackend> drive, OpenSimBackend(o.target));
  ServeReport r;
  r.target = o.target;
  r.capacity_bytes = drive->info().size_bytes;
  r.serial = drive->info().serial;
  VersionLog versions;
  if (o.power_cut != nullptr) SSDLAB_RETURN_IF_ERROR(drive->EnablePowerLossTracking());
  std::unique_ptr<DataStore> data;
  if (!drive->state_paths().empty()) {
    r.state = drive->state_paths().front();
    r.data = r.state + ".data";
    SSDLAB_ASSIGN_OR_RETURN(data, OpenFileStore(r.data, r.capacity_bytes, drive->info().serial));
  } else {
    r.data = "memory";
    data = MemoryStore(r.capacity_bytes);
  }
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<FuseDrive> fuse,
                          FuseDrive::Mount(o.fuse_dir, r.capacity_bytes, data.get(), r.serial));
  r.image = fuse->image_path();
  auto say = [&](const std::string& line) {
    if (o.say) o.say(line);
  };
  // The transport's round trip, through what clients use: the loop device when there is one.
  auto rtt = RoundTrips(r.image, o.transport_rounds);
  if (!rtt.ok()) return rtt.status();  // ~FuseDrive unmounts
  BlockStat before;
  if (o.loop) {
    SSDLAB_ASSIGN_OR_RETURN(r.loop_device, AttachLoop(r.image));
    rtt = RoundTrips(r.loop_device, o.transport_rounds);
    auto stat = rtt.ok() ? ReadBlockStat(r.loop_device) : Result<BlockStat>(rtt.status());
    if (!stat.ok()) {
      (void)DetachLoop(r.loop_device);
      return stat.status();
    }
    before = *stat;
  }
  r.transport_ns = rtt->median;
  r.probe_read_p10_ns = rtt->read_p10;
  r.probe_read_p50_ns = rtt->read_p50;
  r.probe_write_p10_ns = rtt->write_p10;
  r.probe_write_p50_ns = rtt->write_p50;
  PacerOptions po;
  po.transport_ns = o.power_cut != nullptr ? 0 : r.transport_ns;
  // At QD 1 the round trip measured while serving replaces the start-up probe: it is the path
  // clients actually take (the probe's drive answered at once, on a hot session thread, and left
  // 15-60 us a request uncredited at QD 1 on a quiet machine). No credit with a power switch.
  po.credit_gap = o.power_cut == nullptr;
  po.gap_limit_ns = kMaxCreditNs;
  po.late_threshold_ns = o.late_threshold_ns;
  po.late_share_limit = o.late_share_limit;
  Pacer pacer(drive.get(), po);
  if (Status s = pacer.Start(); !s.ok()) {
    if (o.loop) (void)DetachLoop(r.loop_device);
    return s;
  }
  if (o.power_cut != nullptr) fuse->RecordVersions(&versions);
  fuse->Attach(&pacer);
  if (o.progress) {
    o.progress(fmt::format("serving {} ({}) at {}{}; transport round trip {:.1f} us; data: {}",
                           o.target, FormatBytes(r.capacity_bytes), r.image,
                           r.loop_device.empty() ? "" : " and " + r.loop_device,
                           static_cast<double>(r.transport_ns) / 1e3, r.data));
  }
  if (o.loop) say("loop: " + r.loop_device);
  if (o.ready) o.ready([&pacer] { return pacer.Counters(); });
  say("ready");
  auto cut_now = [&] { return o.power_cut != nullptr && o.power_cut->load(); };
  while (!o.stop->load() && fuse->alive() && !cut_now())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!fuse->alive()) r.warnings.push_back(r.image + "'s mount went away: stopped");
  Status cut_status = Status::Ok();
  if (cut_now() && fuse->alive()) {
    auto cut = pacer.Cut();  // first: nothing more is acknowledged
    if (cut.ok()) {
      r.power_cut = true;
      r.cut = *cut;
    } else {
      cut_status = cut.status();
    }
  }
  // What the loop device's clients saw, before it goes away.
  std::optional<BlockStat> after;
  if (!r.loop_device.empty()) {
    auto stat = ReadBlockStat(r.loop_device);
    if (stat.ok()) {
      after = *stat;
    } else {
      r.warnings.push_back(stat.status().message());
    }
  }
  // Stop: the loop device first (its last requests are still answered), then the mount.
  if (!r.loop_device.empty()) {
    Status s = DetachLoop(r.loop_device);
    if (!s.ok()) r.warnings.push_back(s.message());
  }
  Status s = r.power_cut ? fuse->PowerOff() : fuse->Unmount();
  if (!s.ok()) r.warnings.push_back(s.message());
  pacer.Stop();
  r.transport = fuse->transport();
  fuse.reset();  // the session has ended: the data is this thread's alone
  r.pacer = pacer.report();
  if (after && !r.power_cut) CompareClients(before, *after, &r);
  if (!r.power_cut) JudgeTransport(o, &r);
  SSDLAB_RETURN_IF_ERROR(cut_status);
  if (r.power_cut) {
    SSDLAB_RETURN_IF_ERROR(versions.Revert(
        *data, [&](uint64_t lpn) { return drive->HeldTag(lpn); }, &r.units_reverted));
  }
  s = data->Sync();
  if (!s.ok()) r.warnings.push_back(s.message());
  SSDLAB_RETURN_IF_ERROR(drive->Close());  // saves the state (state=)
  return r;
}

std::string SummaryText(const ServeReport& r, const ServeOptions& o) {
  const PacerReport& p = r.pacer;
  std::string t;
  t += fmt::format(
      "served {} for {:.1f} s: {} requests ({} reads {}, {} writes {}, {} trims {}, "
      "{} flushes)\n",
      r.target, static_cast<double>(p.wall_ns) / 1e9, p.requests, p.reads,
      FormatBytes(p.read_bytes), p.writes, FormatBytes(p.write_bytes), p.trims,
      FormatBytes(p.trim_bytes), p.flushes);
  t += fmt::format(
      "transport: {:.1f} us a round trip through FUSE{} (the median of no-cost 4 KiB reads "
      "and rewrites at start: reads p50 {:.1f} us, writes p50 {:.1f} us), the credit subtracted "
      "from each service time where it is shorter, as FEMU does, until the round trip measured "
      "at QD 1 (below) replaces it; {} requests were shorter than their credit and "
      "were answered at once\n",
      static_cast<double>(r.transport_ns) / 1e3,
      r.loop_device.empty() ? "" : " and the loop device",
      static_cast<double>(r.probe_read_p50_ns) / 1e3,
      static_cast<double>(r.probe_write_p50_ns) / 1e3, p.shorter_than_transport);
  if (p.gap_ns.count() > 0) {
    t += fmt::format(
        "transport at QD 1: {} gaps between a reply and the next request, p50 {:.1f} us, p90 "
        "{:.1f} us ({} pauses over {:.0f} us not counted); their running median ({:.1f} us at "
        "the end) was the credit of {} requests{}\n",
        p.gap_ns.count(), p.gap_ns.Percentile(50) / 1e3, p.gap_ns.Percentile(90) / 1e3,
        p.gap_pauses, static_cast<double>(kMaxCreditNs) / 1e3,
        static_cast<double>(p.gap_estimate_ns) / 1e3, p.gap_credited,
        o.power_cut != nullptr        ? " (no credit with the power switch)"
        : p.gap_credited < p.requests ? ", the start-up round trip of the others"
                                      : "");
  } else if (!r.power_cut) {
    t += "transport at QD 1: no gap measured (no request alone in the server): the start-up "
         "round trip was the credit\n";
  }
  t += fmt::format(
      "transport load: {:.1f}% of the requests were already waiting when the server came to "
      "read them; the server's session thread was busy {:.1f}% of the time\n",
      100 * r.transport.backlog_share(),
      p.wall_ns ? 100.0 * static_cast<double>(r.transport.busy_ns) / static_cast<double>(p.wall_ns)
                : 0.0);
  if (r.client_compared) {
    t += fmt::format(
        "clients: {}'s {} reads and writes took {:.1f} us on average (its block layer), the "
        "model's {:.3g} us: {:+.1f}% (limit {:.0f}%)\n",
        r.loop_device, r.client_ios, r.client_mean_ns / 1e3, r.model_mean_ns / 1e3,
        100 * r.client_excess(), 100 * o.transport_excess_limit);
  } else if (!r.loop_device.empty() && !r.power_cut) {
    t += fmt::format(
        "clients: {}'s {} reads and writes not compared with the server's {} (too few, or "
        "split on their way)\n",
        r.loop_device, r.client_ios, p.reads + p.writes);
  }
  t += fmt::format(
      "pacing: lag behind the due time p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us; {:.2f}% "
      "late by more than {:.0f} us\n",
      p.lag_ns.Percentile(50) / 1e3, p.lag_ns.Percentile(99) / 1e3,
      static_cast<double>(p.lag_ns.max()) / 1e3, 100 * p.late_share(),
      static_cast<double>(o.late_threshold_ns) / 1e3);
  t += fmt::format(
      "server: the model's answer {:.1f} us after a request's arrival (p50; p90 {:.1f} us); "
      "the {} requests already due by then were answered {:.1f} us after their arrival (p50; "
      "p90 {:.1f} us, mean {:.1f} us): the server's own turnaround; {} requests answered on "
      "the session thread, with no hand-off to the pacer's thread\n",
      p.admission_ns.Percentile(50) / 1e3, p.admission_ns.Percentile(90) / 1e3,
      p.turnaround_ns.count(), p.turnaround_ns.Percentile(50) / 1e3,
      p.turnaround_ns.Percentile(90) / 1e3, p.turnaround_ns.Mean() / 1e3, p.direct_replies);
  if (!p.realtime)
    t += "pacing: without real-time priority (SCHED_FIFO not permitted): a busy host delays "
         "replies\n";
  t += fmt::format(
      "drive over the serve: host writes {} pages, NAND writes {} pages, WA {:.3f}, GC copies "
      "{}, erases {} (4 KiB pages)\n",
      p.host_pages_written, p.nand_pages_written, p.write_amplification(), p.gc_page_copies,
      p.erases);
  t += r.state.empty() ? "data: in memory, dropped now (give state=FILE to keep the drive)\n"
                       : fmt::format("data: {}; state saved to {}\n", r.data, r.state);
  if (r.transport_limited) t += "NOT PACED: " + r.transport_reason + "\n";
  if (!p.paced) {
    t += fmt::format(
        "NOT PACED: {:.2f}% of the requests were answered more than {:.0f} us late (limit "
        "{:.0f}%): the host or the transport could not keep up, and the latencies and IOPS "
        "clients saw are not the model's\n",
        100 * p.late_share(), static_cast<double>(o.late_threshold_ns) / 1e3,
        100 * o.late_share_limit);
  }
  if (r.power_cut) {
    t += fmt::format(
        "power cut at {:.3f} s (virtual): the model lost {} flushed and {} unflushed units ({} "
        "by lost mapping updates; {} of {} buffered units saved by the capacitors); {} units "
        "put back to what the drive holds; ready {:.3f} ms after the cut\n",
        static_cast<double>(r.cut.cut_ns) / 1e9, r.cut.lost_flushed, r.cut.lost_unflushed,
        r.cut.mapping, r.cut.units_saved, r.cut.units_in_buffer, r.units_reverted,
        static_cast<double>(r.cut.ready_ns - r.cut.cut_ns) / 1e6);
  }
  for (const std::string& w : r.warnings) t += "warning: " + w + "\n";
  return t;
}

std::string ReportJson(const ServeReport& r, const ServeOptions& o) {
  const PacerReport& p = r.pacer;
  nlohmann::json lag = nlohmann::json::array();
  for (const auto& [low, n] : p.lag_ns.NonEmptyBuckets()) lag.push_back({low, n});
  nlohmann::json doc = {
      {"schema_version", 1},
      {"kind", "sim_serve"},
      {"target", r.target},
      {"image", r.image},
      {"loop_device", r.loop_device},
      {"data", r.data},
      {"state", r.state},
      {"capacity_bytes", r.capacity_bytes},
      {"wall_s", static_cast<double>(p.wall_ns) / 1e9},
      {"transport_round_trip_ns", r.transport_ns},
      {"requests", p.requests},
      {"reads", p.reads},
      {"writes", p.writes},
      {"trims", p.trims},
      {"flushes", p.flushes},
      {"errors", p.errors},
      {"read_bytes", p.read_bytes},
      {"write_bytes", p.write_bytes},
      {"trim_bytes", p.trim_bytes},
      {"shorter_than_transport", p.shorter_than_transport},
      {"io_round_trip_ns", p.io_round_trip_ns},
      {"io_server_ns", p.io_server_ns},
      {"io_service_ns", p.read_service_ns + p.write_service_ns},
      {"direct_replies", p.direct_replies},
      {"late_threshold_ns", o.late_threshold_ns},
      {"late", p.late},
      {"late_share", p.late_share()},
      {"late_share_limit", o.late_share_limit},
      {"paced", r.paced()},
      {"replies_paced", p.paced},
      {"transport_limited", r.transport_limited},
      {"transport_reason", r.transport_reason},
      {"transport_probe_ns",
       {{"read_p10", r.probe_read_p10_ns},
        {"read_p50", r.probe_read_p50_ns},
        {"write_p10", r.probe_write_p10_ns},
        {"write_p50", r.probe_write_p50_ns}}},
      {"transport_gap_ns",
       {{"count", p.gap_ns.count()},
        {"p50", p.gap_ns.Percentile(50)},
        {"p90", p.gap_ns.Percentile(90)},
        {"mean", p.gap_ns.Mean()},
        {"pauses", p.gap_pauses},
        {"limit", kMaxCreditNs},
        {"estimate", p.gap_estimate_ns},
        {"credited", p.gap_credited}}},
      {"backlog_share", r.transport.backlog_share()},
      {"transport_busy_share",
       p.wall_ns ? static_cast<double>(r.transport.busy_ns) / static_cast<double>(p.wall_ns) : 0.0},
      {"fuse_max_background", r.transport.max_background},
      {"clients",
       {{"compared", r.client_compared},
        {"ios", r.client_ios},
        {"mean_ns", r.client_mean_ns},
        {"model_mean_ns", r.model_mean_ns},
        {"excess", r.client_excess()},
        {"excess_limit", o.transport_excess_limit}}},
      {"backlog_limit", o.backlog_limit},
      {"realtime_priority", p.realtime},
      {"lag_ns",
       {{"p50", p.lag_ns.Percentile(50)},
        {"p99", p.lag_ns.Percentile(99)},
        {"max", p.lag_ns.max()},
        {"mean", p.lag_ns.Mean()},
        {"buckets", lag}}},
      {"admission_ns",
       {{"p50", p.admission_ns.Percentile(50)},
        {"p90", p.admission_ns.Percentile(90)},
        {"mean", p.admission_ns.Mean()}}},
      {"turnaround_ns",
       {{"count", p.turnaround_ns.count()},
        {"p50", p.turnaround_ns.Percentile(50)},
        {"p90", p.turnaround_ns.Percentile(90)},
        {"mean", p.turnaround_ns.Mean()}}},
      {"service_ns",
       {{"mean", p.service_ns.Mean()},
        {"p50", p.service_ns.Percentile(50)},
        {"p99", p.service_ns.Percentile(99)}}},
      {"host_pages_written", p.host_pages_written},
      {"nand_pages_written", p.nand_pages_written},
      {"write_amplification", p.write_amplification()},
      {"gc_page_copies", p.gc_page_copies},
      {"erases", p.erases},
      {"warnings", r.warnings},
  };
  return doc.dump(1) + "\n";
}

std::string PowerCutJson(const ServeReport& r) {
  const nlohmann::json doc = {{"schema_version", 1},
                              {"kind", "power_cut"},
                              {"target", r.target},
                              {"serial", r.serial},
                              {"cut_ns", r.cut.cut_ns},
                              {"ready_ns", r.cut.ready_ns},
                              {"lost_flushed", r.cut.lost_flushed},
                              {"lost_unflushed", r.cut.lost_unflushed},
                              {"mapping", r.cut.mapping},
                              {"units_in_buffer", r.cut.units_in_buffer},
                              {"units_saved", r.cut.units_saved},
                              {"units_reverted", r.units_reverted}};
  return doc.dump(1) + "\n";
}

Status Cleanup(const std::string& dir, std::vector<std::string>* done) {
  const std::string resolved = ResolvedDir(dir);
  const std::string image = resolved + "/" + kImageName;
  std::string failed;
  for (const std::string& dev : LoopsBackedBy(image)) {
    Status s = DetachLoop(dev);
    if (s.ok()) {
      done->push_back("detached " + dev + " (" + image + ")");
    } else {
      failed += (failed.empty() ? "" : "; ") + s.message();
    }
  }
  if (IsMountPoint(resolved)) {
    std::string how;
    Status s = UnmountFuseDir(resolved, &how);
    if (s.ok()) {
      done->push_back(how + " " + resolved);
    } else {
      failed += (failed.empty() ? "" : "; ") + s.message();
    }
  }
  if (!failed.empty()) return Status::Io(failed);
  return Status::Ok();
}

}  // namespace ssdlab::serve
