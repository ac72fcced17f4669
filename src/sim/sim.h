// Simulated SSD target "sim:PRESET[?key=value&...]": NAND + flash translation layer in
// virtual time, behind the same Backend seam as real devices (backend/backend.h).
//
// A phase runs as a discrete-event simulation in virtual nanoseconds: jobs x queue depth
// submitters are simulated (no OS threads), requests come from the same JobGenerator real runs
// use, and the same spec and seed give bit-identical results. The drive state (mapping, free
// blocks, SLC cache, virtual clock) persists across phases of one SimBackend, so a suite can
// purge, precondition and then measure. The model, presets and their sources: docs/sim.md.
//
// TargetInfo.size_bytes is the *simulated* user capacity: presets simulate 1/scale of the
// blocks of the full drive (same dies, timing, pages per block and spare factor), so
// throughput is the full drive's while filling it takes 1/scale of the time.
//
// With `state=PATH` the drive outlives the process: its state is loaded from PATH at open (a
// factory-fresh drive when PATH does not exist) and saved there by Close() (sim/state.h). The
// backend holds the state's lock (sim/state_lock.h) from open to destruction: one command, and
// one member of an array, uses a state file at a time.
//
// Not thread-safe: one SimBackend is driven by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "sim/state_lock.h"

namespace ssdlab {

namespace sim {
class SimArray;
class SimDevice;
struct SimParams;
struct Geometry;
}  // namespace sim

struct SimOpenOptions;

// True for targets the simulator handles ("sim:..." and arrays of them, "array:...").
bool IsSimTarget(const std::string& target);

// An array of simulated drives as one target string, "array:LAYOUT:CHUNK:MEMBER|MEMBER|...",
// e.g. "array:raid5:64KiB:sim:tiny|sim:tiny|sim:tiny" (what `--target A --target B ...
// --layout raid5 --chunk 64KiB` compose; layouts in sim/raid.h). Invalid for an unknown
// layout, a malformed chunk, too few members for the layout, or a member that is not a
// simulated drive (real arrays are tested as one block device: md, hardware RAID).
Result<std::string> ArrayTarget(const std::vector<std::string>& members, const std::string& layout,
                                const std::string& chunk);

// Cumulative drive counters since the last purge (ResetFactoryFresh or open). "Pages" are
// 4 KiB mapping units.
struct SimCounters {
  uint64_t host_pages_written = 0;
  uint64_t nand_pages_written = 0;  // host + GC copies + SLC folding
  uint64_t gc_page_copies = 0;
  uint64_t erases = 0;
  uint64_t nand_page_reads = 0;
  uint64_t free_blocks = 0;           // now
  uint64_t slc_cache_used_bytes = 0;  // now
  uint64_t virtual_time_ns = 0;       // the simulator's clock
  uint64_t mapped_pages = 0;          // now: 4 KiB units holding data
  uint64_t user_pages = 0;
  uint64_t host_read_pages = 0;
  uint64_t unmapped_read_pages = 0;  // reads that found nothing mapped (no NAND read)
  double write_amplification() const {
    return host_pages_written
               ? static_cast<double>(nand_pages_written) / static_cast<double>(host_pages_written)
               : 0.0;
  }
};

class SimBackend : public Backend {
 public:
  ~SimBackend() override;
  SimBackend(const SimBackend&) = delete;
  SimBackend& operator=(const SimBackend&) = delete;

  const TargetInfo& info() const override { return info_; }

  // Runs the phase in virtual time. Honours every WorkloadSpec field except the data
  // contents (no data is stored: `data` is ignored and `verify` checks nothing). The result's
  // counters_name is "sim" and its counters, over the measured part only, are in this order:
  // write_amplification, host_pages_written, nand_pages_written, gc_page_copies, erases,
  // free_blocks (at the end), free_blocks_min, nand_page_reads, slc_pages_written,
  // slc_cache_used_bytes, virtual_time_s (clock at the end), scale, host_read_pages,
  // unmapped_read_pages. When reads found unwritten space, a note says what share.
  // Returns Invalid if the spec's range does not fit the target or it has no limit.
  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl& control) override;

  // Advances virtual time by `ns` with the host idle: background GC refills the free pool and
  // the SLC cache is folded. Always succeeds.
  Status Idle(uint64_t ns, const RunControl& control) override;

  // One host command from a caller outside a phase (`sim serve`, serve/pacer.h): a read,
  // write or trim of [offset, offset + bytes) submitted at virtual time t_ns; returns its
  // virtual completion time (> t_ns). Reads and writes larger than the drive's largest command
  // (host_max_cmd_bytes) go as several commands, as in a phase. The clock (now_ns()) moves to
  // t_ns; idle time since the last command is used for background GC as in a phase. Invalid
  // when the range is empty or leaves the drive, or t_ns is before now_ns().
  // REQUIRES: no phase's I/Os are in flight across calls (they are drained first).
  Result<uint64_t> SubmitAt(Direction dir, uint64_t offset, uint32_t bytes, uint64_t t_ns);
  // A flush submitted at t_ns; returns its completion (at least t_ns + 1): every write
  // acknowledged before t_ns is durable from then on. With plp=1 (a protected write buffer)
  // it waits for the commands submitted so far; with plp=0 also for the programs of every
  // buffered unit (the open program group is programmed at once). An array: the former.
  uint64_t FlushAt(uint64_t t_ns);

  // Power-loss campaigns (docs/plp.md, sim/power_loss.h), one simulated drive only.
  // Starts tracking which write's data each 4 KiB unit holds (a write's tag). Invalid for an
  // array, or when the model's memory and the tracking's (4 bytes a unit) exceed mem_limit.
  Status EnablePowerLossTracking();
  // A write of [offset, offset + bytes) tagged `tag` (> 0, increasing from write to write),
  // submitted at t_ns; returns its acknowledgement. fua: acknowledged once durable (with
  // plp=0 the write then waits as a flush submitted at t_ns would). Errors as SubmitAt;
  // Internal without tracking.
  Result<uint64_t> SubmitTaggedWrite(uint64_t offset, uint32_t bytes, uint64_t t_ns, uint32_t tag,
                                     bool fua);
  // Cuts power at t_ns (>= now_ns()) and restores it: afterwards HeldTag() is what the drive
  // returns, and the model's own account of what it lost is returned. The clock moves to when
  // the drive is ready again (the work it had booked has ended). Internal without
  // tracking; Invalid for a time before the clock.
  struct PowerCut {
    uint64_t cut_ns = 0, ready_ns = 0;
    uint64_t lost_flushed = 0, lost_unflushed = 0, mapping = 0;  // sim/power_loss.h
    uint64_t units_in_buffer = 0, units_saved = 0;
  };
  Result<PowerCut> PowerCutAt(uint64_t t_ns);
  // The tag of the write whose data 4 KiB unit `lpn` holds (0: none written while tracking).
  // REQUIRES: tracking on, lpn < the drive's units.
  uint32_t HeldTag(uint64_t lpn) const;

  // Purge: all blocks erased, mapping empty, SLC cache empty, counters zeroed. The virtual
  // clock keeps running.
  void ResetFactoryFresh();
  Result<std::string> Purge(const std::string& method, const RunControl& control) override;
  // False even with `state=`: the state is saved when a command ends (not after a SIGKILL),
  // so a resumed suite rebuilds the drive by replaying its stored rounds from the test's purge.
  bool persistent_state() const override { return false; }
  // Saves the state to its `state=` path(s) (an array: every member to its own) when anything
  // ran since it was loaded or saved. Io/NoSpace naming the path when a save fails. A backend
  // opened without the state's lock (SimOpenOptions::lock_state false) saves nothing. A command
  // that fails does not call it: its state file stays as it was (usecase/targets.h EndTargetUse).
  Status Close() override;
  // The `state=` paths: none, one, or one per array member.
  const std::vector<std::string>& state_paths() const { return state_paths_; }

  SimCounters counters() const;
  // The resolved parameter set, key -> value in a fixed order (echo it into results), and a
  // few derived figures (simulated blocks, user and physical bytes, OP) after it.
  const std::vector<std::pair<std::string, std::string>>& params() const { return params_; }
  uint64_t now_ns() const { return now_ns_; }

  // I/Os of the last closed-loop phase still in flight when its runtime ended, by slot. That
  // phase counted them (the edge rule of backend/phase_recorder.h); the next closed-loop phase
  // of the same workload takes them over (they hold their slots until they complete, as its
  // ramp's I/Os would, and it reissues from those slots then), so back-to-back rounds run as
  // one continuous closed loop, each I/O counted once, and the drive sees no idle gap between
  // rounds. Idle and a phase of another workload (only the seed and durations may differ)
  // first let them complete, as a host waits for its I/Os before it sleeps or starts another
  // job (DrainInFlight: the clock moves to their last completion). Purges drop them.
  struct InFlight {  // (public for the event loop in sim_backend.cc)
    uint64_t issue_ns = 0, done_ns = 0;
    uint32_t bytes = 0;
    Direction dir = Direction::kRead;
  };

 private:
  friend Result<std::unique_ptr<SimBackend>> OpenSimBackend(const std::string& target,
                                                            const SimOpenOptions& o);
  friend Result<std::unique_ptr<SimBackend>> OpenSimArrayBackend(const std::string& target,
                                                                 const SimOpenOptions& o);
  // fresh = false: the drive is left for sim::LoadState (OpenSimBackend with a state).
  SimBackend(const sim::SimParams& p, const std::string& target, bool fresh = true);
  // Calls f(dev) with the drive, or the array when this backend is one.
  template <class F>
  void WithDevice(F&& f);

  std::unique_ptr<sim::SimParams> p_;  // an array's: its first member's
  std::unique_ptr<sim::Geometry> g_;
  std::unique_ptr<sim::SimDevice> dev_;   // null for an array
  std::unique_ptr<sim::SimArray> array_;  // set for an array target
  TargetInfo info_;
  std::vector<std::pair<std::string, std::string>> params_;
  uint64_t now_ns_ = 0;
  // Moves the clock to the last completion of in_flight_ and drops them.
  void DrainInFlight();
  std::vector<InFlight> in_flight_;
  WorkloadSpec in_flight_spec_;  // the phase they belong to
  std::vector<std::string> state_paths_;
  std::vector<sim::StateLock> state_locks_;  // held until destruction; empty: Close() saves nothing
  bool dirty_ = false;                       // changed since loaded or saved
  bool probe_ = false;                       // SimOpenOptions::probe: no I/O
  int zstd_level_ = -3, zstd_workers_ = -1;
};

struct SimOpenOptions {
  // Load an existing `state=` file. false: only its header is checked (a probe, or a purge
  // that replaces it); the drive starts factory-fresh.
  bool load_state = true;
  // Lock the state file for the backend's life (sim/state_lock.h): Refused, naming the file,
  // when another process or another backend holds it. false: a look only (`info`, a twin's
  // throw-away drives): no lock is taken and Close() saves nothing.
  bool lock_state = true;
  // `purge --destructive`: a state file that is ssdlab's but damaged or truncated (sim/state.h
  // LoadState's `damaged`) is not refused but replaced: the drive starts factory-fresh, with no
  // wear, and its details say state_origin "damaged". Foreign files, states of a newer version
  // or made for other parameters are still refused.
  bool reset_damaged_state = false;
  // How Close() compresses the state (benchmarks; sim/state.h StateSaveOptions).
  int state_zstd_level = -3;
  int state_zstd_workers = -1;  // -1: one per CPU (at most 4); 0: single-threaded
  // A probe: only the target's facts (info()) and the checks of opening it (parameters, the
  // state file's header, its lock) are wanted, so the model's tables are allocated but never
  // filled (no page of them is touched: a command that probes and then opens its target builds
  // one model, not two). Such a backend runs no I/O: RunPhase, Idle and SubmitAt return
  // Internal. Implies load_state = false.
  bool probe = false;
};

// `target` is the full string, e.g. "sim:tiny?op=28&gc=greedy". Unknown preset or key,
// out-of-range value, spare area too small to garbage-collect, geometry that does not fit in
// memory -> Status::Invalid with a one-line message naming the problem. With `state=PATH`
// the state is locked (SimOpenOptions::lock_state; errors of sim::LockState: Refused when in use)
// and loaded from PATH if it exists (through a symlink, which stays one); the errors of
// sim::LoadState (not a state, newer version, damaged or truncated, other parameters) are
// Invalid.
Result<std::unique_ptr<SimBackend>> OpenSimBackend(const std::string& target,
                                                   const SimOpenOptions& o = {});
// An array target (ArrayTarget): every member opened as by OpenSimBackend. Invalid as
// ArrayTarget, or naming mismatched members (different capacities: an array's members must
// match, as md would otherwise waste the difference), two members with one state path (however
// spelled: paths are compared resolved, sim/state_lock.h ResolveStatePath), or members with and
// without state=.
Result<std::unique_ptr<SimBackend>> OpenSimArrayBackend(const std::string& target,
                                                        const SimOpenOptions& o = {});

// Whether `key` of a simulated drive's TargetInfo::details is part of the drive's identity: its
// parameters (those sim/state.h fingerprints a state by), derived geometry, an array's layout
// and each member's serial (a digest of its parameters); not where its state lives (state,
// state_origin), its memory cap (mem_limit) or an array member's target text. `pts --resume`
// refuses a drive whose identity differs from the stored one.
bool IsSimIdentityDetail(const std::string& key);

// The files a simulated target uses, member by member (one for a single drive): the state= path
// (read when it exists and written at the end; "" without one) and the preset file (read; ""
// for a built-in preset). Invalid as OpenSimBackend for a malformed target or member.
struct SimTargetFiles {
  struct Member {
    std::string target;  // the member's own "sim:..." string
    std::string state_path;
    std::string preset_file;
  };
  std::vector<Member> members;
};
Result<SimTargetFiles> SimTargetFilesOf(const std::string& target);

struct PresetInfo {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> params;   // key -> value, resolved
  std::vector<std::pair<std::string, std::string>> sources;  // figure -> where it comes from
};
std::vector<PresetInfo> ListPresets();

// Unit and one-line help of a parameter key ("" if unknown), for `ssdlab sim presets`.
std::pair<std::string, std::string> SimParamDoc(const std::string& key);

// The resolved parameters of a sim: target (overrides applied) as a preset file, every key
// with its unit and help, and the sources (sim/preset_file.h): what `ssdlab sim describe`
// prints, loadable as sim:FILE.toml. Same errors as OpenSimBackend.
Result<std::string> SimPresetToml(const std::string& target);

// One derived figure for `ssdlab sim describe`.
struct SimFigure {
  std::string key;    // e.g. "analytic_wa"
  std::string value;  // formatted number or text
  std::string unit;   // "bytes", "%", "IOPS", "MB/s", "" ...
};
// Raw and user capacity (full and simulated), spare factor, OP, blocks, reserve, analytic
// steady-state WA and 4 KiB random write IOPS (fresh and steady, with the limiting resource),
// read IOPS, sequential MB/s, SLC cache. Same errors as OpenSimBackend.
Result<std::vector<SimFigure>> DescribeSim(const std::string& target);

}  // namespace ssdlab
