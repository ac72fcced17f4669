#include "serve/serve.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
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

// The 10th percentile of `rounds` 4 KiB direct reads of `path` (a few more first, to warm the
// path up), while the drive answers at no cost: the transport's round trip. A low percentile,
// not the median: on a busy host the median holds the host's delays, and a credit that large
// would answer every request at once. Io naming the path.
Result<uint64_t> RoundTripNs(const std::string& path, int rounds) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return Status::Io("cannot open " + path + ": " + std::strerror(errno));
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, 4096) != 0) {
    close(fd);
    return Status::Io("out of memory");
  }
  std::vector<uint64_t> ns;
  Status s = Status::Ok();
  for (int i = 0; i < rounds + 8 && s.ok(); ++i) {
    const uint64_t t0 = Pacer::MonotonicNs();
    const ssize_t n = pread(fd, buf, 4096, 0);
    const uint64_t t1 = Pacer::MonotonicNs();
    if (n != 4096)
      s = Status::Io("cannot read " + path + ": " + (n < 0 ? std::strerror(errno) : "short read"));
    if (i >= 8) ns.push_back(t1 - t0);
  }
  std::free(buf);
  close(fd);
  if (!s.ok()) return s;
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 10];
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
  auto rtt = RoundTripNs(r.image, o.transport_rounds);
  if (!rtt.ok()) return rtt.status();  // ~FuseDrive unmounts
  r.transport_ns = *rtt;
  if (o.loop) {
    SSDLAB_ASSIGN_OR_RETURN(r.loop_device, AttachLoop(r.image));
    rtt = RoundTripNs(r.loop_device, o.transport_rounds);
    if (!rtt.ok()) {
      (void)DetachLoop(r.loop_device);
      return rtt.status();
    }
    r.transport_ns = *rtt;
  }
  PacerOptions po;
  po.transport_ns = o.power_cut != nullptr ? 0 : r.transport_ns;
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
  // Stop: the loop device first (its last requests are still answered), then the mount.
  if (!r.loop_device.empty()) {
    Status s = DetachLoop(r.loop_device);
    if (!s.ok()) r.warnings.push_back(s.message());
  }
  Status s = r.power_cut ? fuse->PowerOff() : fuse->Unmount();
  if (!s.ok()) r.warnings.push_back(s.message());
  pacer.Stop();
  fuse.reset();  // the session has ended: the data is this thread's alone
  r.pacer = pacer.report();
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
      "transport: {:.1f} us a round trip through FUSE{} (measured at start), subtracted from "
      "each service time where it is shorter, as FEMU does; {} requests were shorter than it "
      "and were answered at once\n",
      static_cast<double>(r.transport_ns) / 1e3,
      r.loop_device.empty() ? "" : " and the loop device", p.shorter_than_transport);
  t += fmt::format(
      "pacing: lag behind the due time p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us; {:.2f}% "
      "late by more than {:.0f} us\n",
      p.lag_ns.Percentile(50) / 1e3, p.lag_ns.Percentile(99) / 1e3,
      static_cast<double>(p.lag_ns.max()) / 1e3, 100 * p.late_share(),
      static_cast<double>(o.late_threshold_ns) / 1e3);
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
      {"late_threshold_ns", o.late_threshold_ns},
      {"late", p.late},
      {"late_share", p.late_share()},
      {"late_share_limit", o.late_share_limit},
      {"paced", p.paced},
      {"realtime_priority", p.realtime},
      {"lag_ns",
       {{"p50", p.lag_ns.Percentile(50)},
        {"p99", p.lag_ns.Percentile(99)},
        {"max", p.lag_ns.max()},
        {"mean", p.lag_ns.Mean()},
        {"buckets", lag}}},
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
