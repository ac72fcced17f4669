// `ssdlab sim serve`: a simulated drive served in real time to the host's own tools, as a file
// on a FUSE mount (serve/fuse_drive.h) and, optionally, a loop device over it
// (serve/loop_device.h), paced by serve/pacer.h. docs/serve.md is the user's page.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "serve/fuse_drive.h"
#include "serve/pacer.h"
#include "sim/sim.h"

namespace ssdlab::serve {

struct ServeOptions {
  std::string target;    // "sim:PRESET[?key=value&...]", state= optional
  std::string fuse_dir;  // --fuse DIR: an empty directory, not a mount point
  bool loop = false;     // --loop: a loop device over DIR/drive.img
  bool ublk = false;     // --ublk: refused (this build serves over FUSE only)
  uint64_t late_threshold_ns = 100'000;
  double late_share_limit = 0.01;
  // A serve whose clients saw a mean latency further than this share from the model's (through
  // the loop device: Transport below) was not paced: the transport did not keep up. Nor was
  // one whose reads and writes, by the server's own estimate (the host's round trip plus each
  // one's time in the server; PacerReport::io_round_trip_ns, io_server_ns), took their clients
  // more than this share longer than the model's service time.
  double transport_excess_limit = 0.10;
  // Without that comparison (no loop device, requests split, too few): a serve where more than
  // this share of the requests were already waiting when the session thread came to read them
  // was not paced (transport saturated; TransportStats::backlog_share).
  double backlog_limit = 0.5;
  int transport_rounds = 64;  // no-cost round trips measured at start, reads and writes each
  // Set (e.g. by SIGINT/SIGTERM) to stop; polled every 50 ms. REQUIRES: not null.
  const std::atomic<bool>* stop = nullptr;
  // The power switch (--power-switch): power-loss tracking on, every write's versions kept
  // (serve/power_switch.h), no transport credit (a reply never leaves before the model's
  // completion); setting *power_cut (e.g. SIGUSR1) cuts the power. Null: no switch.
  const std::atomic<bool>* power_cut = nullptr;
  // Lines for the user as the serve starts: "loop: /dev/loopN" then "ready" (stdout), and
  // progress (stderr). Either may be empty.
  std::function<void(const std::string&)> say;
  std::function<void(const std::string&)> progress;
  // Called on Serve's thread once the drive can be used, just before "ready" is said, with a
  // function that returns the drive's counters now (Pacer::Counters): callable from any thread
  // until *stop is set. May be empty.
  std::function<void(const std::function<SimCounters()>& counters)> ready;
};

struct ServeReport {
  std::string target;
  std::string image;        // DIR/drive.img
  std::string loop_device;  // "" without --loop
  std::string data;         // "memory" or the data file
  std::string state;        // the state file ("" without state=)
  uint64_t capacity_bytes = 0;
  // The transport's round trip measured at start: no-cost 4 KiB direct reads and rewrites (of
  // the data already there) of the loop device, else drive.img, while the drive answers at
  // once. transport_ns, the credit, is the median of both.
  uint64_t transport_ns = 0;
  uint64_t probe_read_p10_ns = 0, probe_read_p50_ns = 0;
  uint64_t probe_write_p10_ns = 0, probe_write_p50_ns = 0;
  PacerReport pacer;
  TransportStats transport;  // the session thread's view (backlog_share, busy)
  // The loop device's clients as its block layer saw them over the serve (reads and writes:
  // their number and mean latency), against the model's mean service time of the reads and
  // writes it served. Compared (client_compared) with a loop device when both sides counted
  // the same requests (within 10%: no splitting), at least 100 of them, 100 ms in all.
  uint64_t client_ios = 0;
  double client_mean_ns = 0, model_mean_ns = 0;
  bool client_compared = false;
  double client_excess() const {  // client / model - 1
    return client_compared && model_mean_ns > 0 ? client_mean_ns / model_mean_ns - 1 : 0.0;
  }
  // Not paced because the transport did not keep up (|client_excess()| above its limit, or
  // without that comparison, the backlog above its limit), and why, one sentence. Set by Serve.
  bool transport_limited = false;
  std::string transport_reason;
  // The verdict: the replies left on time (pacer.paced) and the clients saw the model's
  // latencies (not transport_limited).
  bool paced() const { return pacer.paced && !transport_limited; }
  std::vector<std::string> warnings;  // what went wrong while stopping
  std::string serial;                 // the drive's (drive.img's xattr user.ssdlab.serial)
  // A power cut (the serve ended by *power_cut): the model's account of it, and the units
  // whose data was put back to what the model holds.
  bool power_cut = false;
  SimBackend::PowerCut cut;
  uint64_t units_reverted = 0;
};

// Refuses --ublk: Unsupported, one line: the kernel has no ublk driver, or this build serves
// over FUSE only.
Status CheckUblk();

// Serves until *o.stop is set or the mount goes away, then detaches the loop device, unmounts,
// saves the data and the state (state=) and returns the figures. With a power switch, until
// *o.power_cut is set too: then the model's cut is applied at that moment (Pacer::Cut: the
// requests it had not completed fail with EIO), the loop device and the mount go away, each
// unit's data is put back to what the model holds (VersionLog::Revert), and the data and the
// state are saved as at a stop: a restart with the same state is the drive powered on. Errors
// before serving, each one line: --ublk (CheckUblk), a target that is not one simulated drive or
// fails to open (OpenSimBackend's errors; Refused when another process holds its state), the
// directory (CheckFuseMountable), a data file of another drive, losetup's failure. While stopping,
// a failure to save the state is returned (Io) after everything else was undone.
Result<ServeReport> Serve(const ServeOptions& o);

// The stop summary, a few lines; says when the figures were not paced.
std::string SummaryText(const ServeReport& r, const ServeOptions& o);
// The figures as a JSON document (schema_version 1).
std::string ReportJson(const ServeReport& r, const ServeOptions& o);
// A power cut's account (kind "power_cut", schema_version 1): the model's cut_ns, ready_ns,
// lost_flushed, lost_unflushed, mapping, units_in_buffer, units_saved (sim/power_loss.h), the
// units reverted in the data and the drive's serial. REQUIRES: r.power_cut.
std::string PowerCutJson(const ServeReport& r);

// `sim serve --cleanup DIR` after a server was killed: detaches the loop devices backed by
// DIR/drive.img and unmounts DIR (lazily when busy). `done`: one line per thing undone
// (nothing when nothing was left). Io naming what could not be undone.
Status Cleanup(const std::string& dir, std::vector<std::string>* done);

}  // namespace ssdlab::serve
