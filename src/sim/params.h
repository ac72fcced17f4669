// Simulator parameters: the preset table, the "sim:PRESET?key=value&..." parser, validation,
// and the geometry derived from them (sim-private; the public face is sim.h).
//
// Conventions (docs/sim.md has the long form):
//  - A "page" in the FTL and in every counter is a 4 KiB mapping unit. A NAND page
//    (page_bytes) holds page_bytes / 4096 of them; a program writes `planes` NAND pages at
//    once; an FTL block is one multi-plane erase block: planes x pages_per_block NAND pages.
//  - op_pct is over-provisioning in percent of user capacity: (physical - user) / user.
//    The spare factor is (physical - user) / physical. Physical = all NAND data pages.
//  - Scale: the simulated drive keeps every die, channel, timing and the pages per block, and
//    has `scale` times fewer blocks per die, with the same spare factor. Throughput is that
//    of the full drive; time to fill (and to reach steady state) is `scale` times shorter.
//    TargetInfo.size_bytes is the simulated (scaled) user capacity.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ssdlab::sim {

inline constexpr uint32_t kUnitBytes = 4096;  // FTL mapping unit ("page" in counters)

enum class HostInterface : uint8_t { kSata, kSas, kSasDual, kNvme };
enum class VictimPolicy : uint8_t { kGreedy, kFifo, kDChoices, kCostBenefit };

// Every knob of the model; plain data with the units in the names. Presets fill all fields.
struct SimParams {
  std::string preset;
  std::string description;

  // Capacity and spare area.
  uint64_t capacity_bytes = 0;  // user capacity of the full (unscaled) drive
  double op_pct = 7;            // (physical - user) / user, percent
  uint32_t scale = 1;           // simulate 1/scale of the blocks per die
  uint32_t logical_block_bytes = 4096;

  // Host side.
  HostInterface interface = HostInterface::kSata;
  double link_mb_s = 550;     // effective host link bandwidth, MB/s (10^6 B/s), per direction
                              // (SATA is half duplex: shared by both directions)
  double link_cap_mb_s = 0;   // full-duplex links: both directions together at most this (0 none)
  double cmd_us = 20;         // fixed latency added to every command (protocol, firmware)
  double ctrl_read_us = 10;   // controller occupancy per read command
  double ctrl_write_us = 10;  // controller occupancy per write command
  // The share of ctrl_write_us that is random (exponential, seeded); the mean stays ctrl_write_us.
  double ctrl_write_jitter_pct = 0;
  double ctrl_trim_us = 2;  // controller occupancy per trim command
  // Controller occupancy added to a read after a write and to a write after a read.
  double ctrl_turn_us = 0;
  double ctrl_unit_us = 0.5;  // extra controller occupancy per 4 KiB unit beyond the first
  // Per-KiB controller occupancy of a command's data beyond its first 4 KiB, by direction
  // (added to ctrl_unit_us / 4): a command of B bytes costs
  //   ctrl_{read,write}_us + max(0, B/1024 - 4) x (ctrl_unit_us / 4 + ctrl_{read,write}_kib_us)
  // so ctrl_{read,write}_us stays the 4 KiB command's cost.
  double ctrl_read_kib_us = 0;
  double ctrl_write_kib_us = 0;
  // Read-ahead: a read that starts where an earlier read ended (one of kReadStreams streams)
  // makes the drive read the next `read_ahead_bytes` of that stream from NAND into DRAM; a
  // later read finds those units there (no NAND read, no per-KiB controller time). 0 = off.
  uint64_t read_ahead_bytes = 0;
  double ctrl_gc_us = 1;            // controller occupancy per garbage-collection page copy
  uint64_t buffer_bytes = 8 << 20;  // DRAM write buffer; a write completes once buffered

  // Array targets only (sim/array.h): host time per array I/O (system call, filesystem, md,
  // driver), one at a time over the whole array, so an array does at most 1e6 / array_io_us
  // I/Os per second whatever its members. 0 = none. An array takes its first member's.
  double array_io_us = 0;
  // Host side too: the host sends a read or write larger than this as commands of at most
  // this size, all at once (the OS's maximum transfer size); the request completes with the
  // last of them. 0 = every request is one command.
  uint64_t host_max_cmd_bytes = 0;

  // NAND geometry.
  uint32_t channels = 2;
  uint32_t dies_per_channel = 2;
  uint32_t planes = 1;
  uint32_t page_bytes = 16384;  // bytes one plane programs at once (a TLC wordline: 3 pages)
  uint32_t pages_per_block = 64;
  uint32_t bits_per_cell = 2;  // 1 SLC, 2 MLC, 3 TLC, 4 QLC (SLC-mode programs hold 1/bits)

  // NAND timing (per operation on one die, all planes at once) and channel speed.
  double t_read_us = 60;
  double t_prog_us = 1300;
  double t_erase_us = 5000;
  double ch_mb_s = 400;  // per channel
  // Spread of NAND timing (defaults: none, the old model).
  bool suspend = true;         // reads suspend programs/erases (else queue behind them)
  double t_read_type_pct = 0;  // tR from (1 - x) t_read (LSB) to (1 + x) t_read (MSB)
  double t_prog_type_pct = 0;  // tPROG from (1 - x) t_prog (LSB) to (1 + x) t_prog (MSB)
  // A read reaching an idle drive (nothing in flight) while written data waits in the buffer
  // for its program: the controller programs it first and serves the read once it has ended.
  bool read_flush = false;
  // read_flush after a write larger than 4 KiB: the chance (%) that the next read waits for the
  // program; otherwise reads wait for nothing until the next write (100: always, no draw).
  double read_flush_big_pct = 100;
  double t_read_jitter_us = 0;    // mean exponential extra per NAND read (seeded)
  double t_prog_jitter_us = 0;    // mean exponential extra per native program (seeded)
  double read_retry_pct = 0;      // chance of one retry (an extra tR) per read, fresh block
  double read_retry_kpe_pct = 0;  // added chance per 1000 erases of the block
  // Firmware housekeeping: every hk_period_ms new writes wait hk_us (0 = none).
  double hk_period_ms = 0;
  double hk_us = 0;
  // Deferred merges of partial writes (merge_unit_bytes 0 = none): a firmware that maps
  // merge_unit_bytes units logs a write that does not cover whole aligned units of that size
  // and merges it into its unit later. Every merge_every logged writes, the merge holds new
  // writes for merge_us (merge_every 0: never). With merge_unit_bytes set, a housekeeping
  // window holds writes only when the log took a write since the window before (it folds
  // the log): a drive written in whole units has no housekeeping holds.
  uint64_t merge_unit_bytes = 0;
  uint32_t merge_every = 0;
  double merge_us = 0;

  // Garbage collection.
  VictimPolicy gc = VictimPolicy::kGreedy;
  uint32_t gc_d = 8;      // d of d-choices (Van Houdt 2013)
  double gc_low_pct = 1;  // foreground GC keeps at least this % of blocks free
  double gc_bg_pct = 3;   // background GC (host idle) refills the pool to this % of blocks
  bool gc_lazy = false;   // lazy: start only when the pool is empty, then reclaim a batch
  // Lazy GC yields the controller to host commands: once the pool is less than a batch above
  // its minimum it runs in the controller's idle time between them, back up to that level, so
  // a command waits at most for the copy in progress; only when the pool runs dry do new writes
  // wait for a batch. Reads never wait for GC's controller time. No effect on eager GC
  // (gc_lazy 0), which copies in step with the writes (so `?gc_lazy=0` on a preset with it
  // needs nothing else).
  bool gc_yield = false;
  double gc_batch_pct = 1;      // lazy: blocks reclaimed per batch, % of blocks (gc_batch 0)
  uint64_t gc_batch_bytes = 0;  // lazy: bytes of blocks per batch, full-drive size (not scaled);
                                // 0 = gc_batch_pct
  // Lazy GC's pace: a batch (begun when the pool runs dry) copies between the host's writes,
  // gc_batch_pace times the victim's steady ratio of copies per unit written, until the batch
  // is reclaimed; a write then waits for a few copies, not for the whole batch. 0: the whole
  // batch at once, new writes waiting for it. No effect with gc_yield or eager GC.
  double gc_batch_pace = 0;
  double gc_bg_mb_s = 0;  // background GC copy rate limit, MB/s (0 = unlimited)
  double bg_idle_ms = 5;  // host idle time before background GC / SLC folding starts

  // SLC write cache (0 + 0 = none).
  uint64_t slc_static_bytes = 0;  // full-drive size (scaled like capacity)
  double slc_dynamic_pct = 0;     // share of unused user space usable in SLC mode, percent
  double slc_t_read_us = 30;
  double slc_t_prog_us = 200;

  // Power loss (docs/plp.md): whether the write buffer is power-loss protected (capacitors
  // flush it at a cut; a flush then waits for no program) or volatile (a flush and a FUA
  // write wait until the buffered data is on NAND). They change durability and the cost of
  // flushes, never the timing of reads and writes.
  bool plp = true;
  uint64_t plp_flush_bytes = 0;  // plp: bytes the capacitors can flush at a cut (0 = all)
  // The mapping table is persisted every map_persist_ms of virtual time; a cut loses the
  // updates since the last checkpoint (their units read their older data). 0 = persisted with
  // the data.
  double map_persist_ms = 0;

  uint64_t seed = 1;             // for randomised victim choice (d-choices)
  uint64_t mem_limit_bytes = 0;  // 0 = half the machine's RAM

  // Not a drive parameter: where the drive's state is kept between commands (`state=PATH`,
  // sim/state.h); empty = the drive lives in this process only. Not in ParamPairs().
  std::string state_path;

  std::vector<std::pair<std::string, std::string>> sources;  // figure -> where it comes from
};

// Sizes derived from SimParams (all in 4 KiB units unless named otherwise).
struct Geometry {
  uint32_t dies = 0;
  uint32_t units_per_page = 0;      // 4 KiB units in one NAND page
  uint32_t units_per_prog = 0;      // units per multi-plane program
  uint32_t units_per_slc_prog = 0;  // units per program in SLC mode
  uint32_t pages_per_block = 0;     // FTL block size in units (>= 256)
  uint32_t blocks = 0;              // simulated blocks
  uint64_t user_pages = 0;          // simulated user capacity in units
  uint64_t physical_pages = 0;      // blocks * pages_per_block
  uint32_t min_free_blocks = 0;     // never below: frontier refills
  uint32_t low_free_blocks = 0;     // foreground GC threshold
  uint32_t bg_free_blocks = 0;      // background GC target
  uint32_t batch_blocks = 0;        // lazy GC batch
  uint64_t slc_static_pages = 0;    // simulated
  uint64_t buffer_pages = 0;
  uint64_t memory_bytes = 0;  // mapping tables + metadata

  uint64_t user_bytes() const { return user_pages * kUnitBytes; }
  uint64_t physical_bytes() const { return physical_pages * kUnitBytes; }
  double op_pct() const {
    return 100.0 * (static_cast<double>(physical_pages) - static_cast<double>(user_pages)) /
           static_cast<double>(user_pages);
  }
  double spare_factor() const {
    return (static_cast<double>(physical_pages) - static_cast<double>(user_pages)) /
           static_cast<double>(physical_pages);
  }
};

// How a parameter's value is written in a preset file: a TOML number, string or boolean.
enum class ParamKind : uint8_t { kNumber, kText, kBool };

// One row of the parameter table, the single list of keys shared by the target query
// ("sim:PRESET?key=value"), preset files (sim/preset_file.h) and the listings: key, unit,
// one-line help, setter (parses and range-checks one value given as text; Invalid naming
// the key otherwise) and getter (the resolved value as text, the form the setter reads).
struct ParamDef {
  const char* key;
  const char* unit;
  const char* help;
  std::function<Status(SimParams&, const std::string&)> set;
  std::function<std::string(const SimParams&)> get;
  ParamKind kind = ParamKind::kNumber;
};
// Every parameter key, in listing order.
const std::vector<ParamDef>& ParamTable();
// The row of `key`, or null when there is none.
const ParamDef* FindParam(std::string_view key);

// Parses "sim:PRESET" or "sim:PRESET?key=value&key=value", where PRESET is a built-in
// preset's name or the path of a preset file ending in ".toml" (sim/preset_file.h). Unknown
// preset or key, bad value, value out of range, geometry that does not fit in memory ->
// Status::Invalid (one line).
Result<SimParams> ParseSimTarget(const std::string& target);
// `target` ("sim:PRESET[?...]") simulated at `scale`: its query's scale= is set to it. A query
// that already sets another scale is Invalid naming both, unless `replace`. Invalid for
// anything but one simulated drive (an array's members are scaled one by one by the caller).
Result<std::string> SimTargetAtScale(const std::string& target, uint32_t scale, bool replace);
// Whether `target`'s query ("sim:PRESET?key=value&...") sets `key`.
bool SimTargetSets(const std::string& target, const std::string& key);
// REQUIRES: p passed ParseSimTarget's validation (or is a preset).
Geometry DeriveGeometry(const SimParams& p);

// Blocks the eager foreground GC keeps out of the collected population on average (the free
// pool at its watermark of low_free_blocks, and the two open frontiers' unwritten pages):
// low_free_blocks + 0.5.
double ReserveBlocks(uint32_t low_free_blocks);

// A paced lazy batch (gc_batch_pace > 0) begins this many blocks above the pool level where a
// batch at once begins (the minimum + 1): one for each write frontier (host, GC) to take while
// the batch's first victim is collected, so the pool never reaches its minimum, where a whole
// victim is collected at once (a stall of 10-20 ms on the DC400 preset's 8 MiB blocks).
inline constexpr uint32_t kPacedBatchLeadBlocks = 2;

// The memory the model may use: mem_limit, or half the usable RAM when it is 0.
uint64_t MemoryLimit(const SimParams& p);

// Cross-field checks and the derived geometry (spare area, memory).
Status ValidateParams(const SimParams& p);

// The built-in presets, in listing order (preset files embedded at build time,
// sim/preset_file.h).
const std::vector<SimParams>& Presets();

// Resolved parameters as key/value strings, in the order of the parameter table.
std::vector<std::pair<std::string, std::string>> ParamPairs(const SimParams& p);
// Unit and one-line help of a parameter key (for listings); empty if unknown.
std::pair<std::string, std::string> ParamDoc(const std::string& key);

const char* InterfaceName(HostInterface i);
// MB/s: the most a host interface's line can carry per direction (per port), what no link_mb_s
// can exceed: SATA 6 Gb/s and SAS-3 12 Gb/s with 8b/10b coding, 600 and 1200 MB/s (a dual-port
// SAS drive, 2400 over both ports); 0 for NVMe (its lanes and generation are not modelled).
double LineRateMbS(HostInterface i);
const char* PolicyName(VictimPolicy v);

}  // namespace ssdlab::sim
