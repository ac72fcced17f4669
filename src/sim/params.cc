#include "sim/params.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "base/strings.h"
#include "base/units.h"
#include "sim/preset_file.h"

namespace ssdlab::sim {
namespace {

std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Status OutOfRange(const std::string& key, const std::string& value, const char* range) {
  return Status::Invalid("sim parameter " + key + "=" + value + " is out of range (" + range + ")");
}

// Why `value`, which its parser refused, is refused: a number outside [lo, hi], with at most a
// unit after it ("1e300" for a count, "1e400" beyond a double, "1e300GiB"), is out of range,
// which says more than that it is not `a` (a number, a whole number, a size).
Status Unparsed(const std::string& key, const std::string& value, double lo, double hi,
                const char* range, const std::string& a) {
  const char* begin = value.c_str();
  char* end = nullptr;
  const double d = std::strtod(begin, &end);  // +-HUGE_VAL beyond a double
  bool unit = end != begin && !std::isnan(d);
  for (const char* c = end; unit && *c; ++c) unit = std::isalpha(static_cast<unsigned char>(*c));
  if (unit && !(d >= lo && d <= hi)) return OutOfRange(key, value, range);
  return Status::Invalid("sim parameter " + key + ": '" + value + "' is not " + a);
}

ParamDef DoubleParam(const char* key, const char* unit, const char* help, double SimParams::*field,
                     double lo, double hi, const char* range) {
  return ParamDef{key, unit, help,
                  [=](SimParams& p, const std::string& v) -> Status {
                    auto d = ParseDouble(v);
                    if (!d.ok()) return Unparsed(key, v, lo, hi, range, "a number");
                    if (!(d.value() >= lo && d.value() <= hi)) return OutOfRange(key, v, range);
                    p.*field = d.value();
                    return Status::Ok();
                  },
                  [=](const SimParams& p) { return FormatDouble(p.*field); }};
}

ParamDef UintParam(const char* key, const char* unit, const char* help, uint32_t SimParams::*field,
                   uint64_t lo, uint64_t hi, const char* range) {
  return ParamDef{key, unit, help,
                  [=](SimParams& p, const std::string& v) -> Status {
                    auto n = ParseCount(v);
                    if (!n.ok()) return Unparsed(key, v, lo, hi, range, "a whole number");
                    if (n.value() < lo || n.value() > hi) return OutOfRange(key, v, range);
                    p.*field = static_cast<uint32_t>(n.value());
                    return Status::Ok();
                  },
                  [=](const SimParams& p) { return std::to_string(p.*field); }};
}

ParamDef BytesParam(const char* key, const char* help, uint64_t SimParams::*field, uint64_t lo,
                    uint64_t hi, const char* range) {
  return ParamDef{key, "bytes", help,
                  [=](SimParams& p, const std::string& v) -> Status {
                    auto n = ParseBytes(v);
                    if (!n.ok()) return Unparsed(key, v, lo, hi, range, "a size");
                    if (n.value() < lo || n.value() > hi) return OutOfRange(key, v, range);
                    p.*field = n.value();
                    return Status::Ok();
                  },
                  [=](const SimParams& p) { return std::to_string(p.*field); }};
}

ParamDef BoolParam(const char* key, const char* help, bool SimParams::*field) {
  return ParamDef{key,
                  "",
                  help,
                  [=](SimParams& p, const std::string& v) -> Status {
                    if (v == "1" || v == "true") {
                      p.*field = true;
                    } else if (v == "0" || v == "false") {
                      p.*field = false;
                    } else {
                      return Status::Invalid("sim parameter " + std::string(key) + "=" + v +
                                             ": expected 0 or 1");
                    }
                    return Status::Ok();
                  },
                  [=](const SimParams& p) { return std::string(p.*field ? "1" : "0"); },
                  ParamKind::kBool};
}

}  // namespace

const std::vector<ParamDef>& ParamTable() {
  static const std::vector<ParamDef> table = [] {
    std::vector<ParamDef> t;
    t.push_back(BytesParam("capacity", "user capacity of the full drive",
                           &SimParams::capacity_bytes, 1 << 20, 1ull << 50, "1 MiB..1 PiB"));
    t.push_back(DoubleParam("op", "%", "over-provisioning, (physical - user) / user",
                            &SimParams::op_pct, 0, 1000, "0..1000"));
    t.push_back(UintParam("scale", "x", "simulate 1/scale of the blocks per die", &SimParams::scale,
                          1, 1 << 20, "1..1048576"));
    t.push_back(UintParam("logical_block", "bytes", "logical block size (512 or 4096)",
                          &SimParams::logical_block_bytes, 512, 4096, "512 or 4096"));
    t.push_back(ParamDef{"interface", "",
                         "host interface: sata, sas, sas-dual, nvme (sets link_mb_s default)",
                         [](SimParams& p, const std::string& v) -> Status {
                           if (v == "sata") {
                             p.interface = HostInterface::kSata, p.link_mb_s = 550;
                           } else if (v == "sas") {
                             p.interface = HostInterface::kSas, p.link_mb_s = 1100;
                           } else if (v == "sas-dual") {
                             p.interface = HostInterface::kSasDual, p.link_mb_s = 2200;
                           } else if (v == "nvme") {
                             p.interface = HostInterface::kNvme, p.link_mb_s = 3500;
                           } else {
                             return Status::Invalid("sim parameter interface=" + v +
                                                    ": expected sata, sas, sas-dual or nvme");
                           }
                           return Status::Ok();
                         },
                         [](const SimParams& p) { return std::string(InterfaceName(p.interface)); },
                         ParamKind::kText});
    t.push_back(DoubleParam("link_mb_s", "MB/s", "effective host link bandwidth per direction",
                            &SimParams::link_mb_s, 1, 1e6, "1..1e6"));
    t.push_back(DoubleParam("link_cap_mb_s", "MB/s",
                            "SAS/NVMe: both directions together at most this (0 = no cap)",
                            &SimParams::link_cap_mb_s, 0, 1e6, "0..1e6"));
    // Times of the controller and the command path: microseconds, 0..1e6.
    auto us = [](const char* key, const char* help, double SimParams::*field) {
      return DoubleParam(key, "us", help, field, 0, 1e6, "0..1e6");
    };
    t.push_back(us("cmd_us", "fixed latency added to every command", &SimParams::cmd_us));
    t.push_back(us("ctrl_read_us", "controller time per read command", &SimParams::ctrl_read_us));
    t.push_back(
        us("ctrl_write_us", "controller time per write command", &SimParams::ctrl_write_us));
    t.push_back(DoubleParam("ctrl_write_jitter_pct", "%",
                            "share of ctrl_write_us that is random (exponential, seeded; the "
                            "mean stays ctrl_write_us)",
                            &SimParams::ctrl_write_jitter_pct, 0, 100, "0..100"));
    t.push_back(us("ctrl_trim_us", "controller time per trim command", &SimParams::ctrl_trim_us));
    t.push_back(us("ctrl_turn_us",
                   "controller time added to a read after a write, or a write after a read",
                   &SimParams::ctrl_turn_us));
    t.push_back(us("ctrl_unit_us", "controller time per extra 4 KiB of a command",
                   &SimParams::ctrl_unit_us));
    t.push_back(us("ctrl_read_kib_us",
                   "controller time per KiB of a read beyond 4 KiB (with ctrl_unit_us/4)",
                   &SimParams::ctrl_read_kib_us));
    t.push_back(us("ctrl_write_kib_us",
                   "controller time per KiB of a write beyond 4 KiB (with ctrl_unit_us/4)",
                   &SimParams::ctrl_write_kib_us));
    t.push_back(us("ctrl_gc_us", "controller time per GC page copy", &SimParams::ctrl_gc_us));
    t.push_back(BytesParam("buffer", "DRAM write buffer", &SimParams::buffer_bytes, 64 << 10,
                           1ull << 34, "64 KiB..16 GiB"));
    t.push_back(BytesParam(
        "read_ahead", "read-ahead of sequential read streams, bytes past a stream's end (0 off)",
        &SimParams::read_ahead_bytes, 0, 64ull << 20, "0..64 MiB"));
    t.push_back(us("array_io_us",
                   "array targets: host time per array I/O, one at a time (caps the array's "
                   "IOPS at 1e6/array_io_us; 0 = none; the first member's)",
                   &SimParams::array_io_us));
    t.push_back(BytesParam("host_max_cmd",
                           "host: larger reads and writes go as commands of this size, all at "
                           "once (the OS's maximum transfer; 0 = one command each)",
                           &SimParams::host_max_cmd_bytes, 0, 1ull << 30, "0..1 GiB"));
    t.push_back(UintParam("channels", "", "NAND channels", &SimParams::channels, 1, 64, "1..64"));
    t.push_back(UintParam("dies_per_channel", "", "dies per channel", &SimParams::dies_per_channel,
                          1, 64, "1..64"));
    t.push_back(UintParam("planes", "", "planes per die (programmed together)", &SimParams::planes,
                          1, 8, "1..8"));
    t.push_back(UintParam("page_bytes", "bytes", "NAND page (per plane), multiple of 4096",
                          &SimParams::page_bytes, 4096, 1 << 20, "4096..1048576"));
    t.push_back(UintParam("pages_per_block", "", "NAND pages per erase block",
                          &SimParams::pages_per_block, 1, 1 << 16, "1..65536"));
    t.push_back(UintParam("bits_per_cell", "", "1 SLC, 2 MLC, 3 TLC, 4 QLC",
                          &SimParams::bits_per_cell, 1, 4, "1..4"));
    t.push_back(DoubleParam("t_read_us", "us", "NAND page read (tR)", &SimParams::t_read_us, 0, 1e6,
                            "0..1e6"));
    t.push_back(DoubleParam("t_prog_us", "us", "NAND program, all planes (tPROG)",
                            &SimParams::t_prog_us, 0.001, 1e6, "0.001..1e6"));
    t.push_back(DoubleParam("t_erase_us", "us", "NAND block erase (tBERS)", &SimParams::t_erase_us,
                            0, 1e7, "0..1e7"));
    t.push_back(BoolParam("suspend",
                          "1: NAND reads suspend the die's programs and erases; 0: they queue "
                          "behind them",
                          &SimParams::suspend));
    t.push_back(DoubleParam("t_read_type_pct", "%",
                            "tR by page type: LSB to MSB spread this much around t_read_us",
                            &SimParams::t_read_type_pct, 0, 90, "0..90"));
    t.push_back(DoubleParam("t_prog_type_pct", "%",
                            "tPROG by page type: LSB to MSB spread this much around t_prog_us",
                            &SimParams::t_prog_type_pct, 0, 90, "0..90"));
    t.push_back(BoolParam("read_flush",
                          "1: a read reaching an idle drive waits while the controller programs "
                          "the writes its buffer holds; 0: it does not",
                          &SimParams::read_flush));
    t.push_back(DoubleParam("read_flush_big_pct", "%",
                            "read_flush after a write larger than 4 KiB: chance that the next "
                            "read waits (else no read waits until the next write)",
                            &SimParams::read_flush_big_pct, 0, 100, "0..100"));
    t.push_back(DoubleParam("t_read_jitter_us", "us",
                            "mean of a random (exponential, seeded) extra time per NAND read",
                            &SimParams::t_read_jitter_us, 0, 1e5, "0..1e5"));
    t.push_back(DoubleParam("t_prog_jitter_us", "us",
                            "mean of a random (exponential, seeded) extra time per native-mode "
                            "program (program-verify loops)",
                            &SimParams::t_prog_jitter_us, 0, 1e6, "0..1e6"));
    t.push_back(DoubleParam("read_retry_pct", "%", "chance of a read retry (one more tR), fresh",
                            &SimParams::read_retry_pct, 0, 100, "0..100"));
    t.push_back(DoubleParam("read_retry_kpe_pct", "%",
                            "added chance of a read retry per 1000 erases of the block",
                            &SimParams::read_retry_kpe_pct, 0, 100, "0..100"));
    t.push_back(DoubleParam("hk_period_ms", "ms",
                            "firmware housekeeping (journal flush) every this long (0 = none)",
                            &SimParams::hk_period_ms, 0, 1e7, "0..1e7"));
    t.push_back(DoubleParam("hk_us", "us", "housekeeping: time it holds new writes",
                            &SimParams::hk_us, 0, 1e7, "0..1e7"));
    t.push_back(BytesParam("merge_unit",
                           "writes not covering whole aligned units of this size are logged "
                           "for a deferred merge; housekeeping then holds writes only after "
                           "such writes (0 = none)",
                           &SimParams::merge_unit_bytes, 0, 1 << 20, "0..1 MiB"));
    t.push_back(UintParam("merge_every", "",
                          "every this many logged partial writes, a merge "
                          "holds new writes for merge_us (0 = never)",
                          &SimParams::merge_every, 0, 1u << 30, "0..2^30"));
    t.push_back(DoubleParam("merge_us", "us",
                            "time a merge of the partial-write log holds new "
                            "writes",
                            &SimParams::merge_us, 0, 1e7, "0..1e7"));
    t.push_back(DoubleParam("ch_mb_s", "MB/s", "channel transfer rate", &SimParams::ch_mb_s, 1, 1e5,
                            "1..1e5"));
    t.push_back(ParamDef{
        "gc", "", "victim policy: greedy, fifo, dchoices, costbenefit",
        [](SimParams& p, const std::string& v) -> Status {
          if (v == "greedy") {
            p.gc = VictimPolicy::kGreedy;
          } else if (v == "fifo") {
            p.gc = VictimPolicy::kFifo;
          } else if (v == "dchoices" || v == "d-choices") {
            p.gc = VictimPolicy::kDChoices;
          } else if (v == "costbenefit" || v == "cost-benefit") {
            p.gc = VictimPolicy::kCostBenefit;
          } else {
            return Status::Invalid("sim parameter gc=" + v +
                                   ": expected greedy, fifo, dchoices or costbenefit");
          }
          return Status::Ok();
        },
        [](const SimParams& p) { return std::string(PolicyName(p.gc)); }, ParamKind::kText});
    t.push_back(UintParam("gc_d", "", "d of d-choices", &SimParams::gc_d, 1, 1024, "1..1024"));
    t.push_back(DoubleParam("gc_low_pct", "%", "foreground GC keeps this share of blocks free",
                            &SimParams::gc_low_pct, 0, 50, "0..50"));
    t.push_back(DoubleParam("gc_bg_pct", "%", "background GC refills the pool to this share",
                            &SimParams::gc_bg_pct, 0, 50, "0..50"));
    t.push_back(BoolParam("gc_lazy", "1: GC starts only when the pool is empty, in batches",
                          &SimParams::gc_lazy));
    t.push_back(BoolParam("gc_yield",
                          "1: lazy GC runs in the controller's idle time between host commands; "
                          "writes wait for it only when the pool runs dry (no effect on eager GC)",
                          &SimParams::gc_yield));
    t.push_back(DoubleParam("gc_batch_pct", "%", "lazy GC: blocks reclaimed per batch",
                            &SimParams::gc_batch_pct, 0, 25, "0..25"));
    t.push_back(BytesParam("gc_batch",
                           "lazy GC: blocks reclaimed per batch, absolute (0 = gc_batch_pct)",
                           &SimParams::gc_batch_bytes, 0, 1ull << 50, "0..1 PiB"));
    t.push_back(DoubleParam("gc_batch_pace", "x",
                            "lazy GC: a batch copies between the writes at this multiple of the "
                            "steady rate (0 = the whole batch at once, writes waiting for it)",
                            &SimParams::gc_batch_pace, 0, 100, "0..100"));
    t.push_back(DoubleParam("gc_bg_mb_s", "MB/s",
                            "background GC: rate of page copies (0 = as fast as the NAND allows)",
                            &SimParams::gc_bg_mb_s, 0, 1e6, "0..1e6"));
    t.push_back(DoubleParam("bg_idle_ms", "ms", "host idle time before background work starts",
                            &SimParams::bg_idle_ms, 0, 1e7, "0..1e7"));
    t.push_back(BytesParam("slc_static", "static SLC cache of the full drive",
                           &SimParams::slc_static_bytes, 0, 1ull << 50, "0..1 PiB"));
    t.push_back(DoubleParam("slc_dynamic_pct", "%", "share of unused user space used as SLC",
                            &SimParams::slc_dynamic_pct, 0, 100, "0..100"));
    t.push_back(DoubleParam("slc_t_read_us", "us", "SLC-mode read", &SimParams::slc_t_read_us, 0,
                            1e6, "0..1e6"));
    t.push_back(DoubleParam("slc_t_prog_us", "us", "SLC-mode program", &SimParams::slc_t_prog_us,
                            0.001, 1e6, "0.001..1e6"));
    t.push_back(BoolParam("plp",
                          "1: the write buffer is power-loss protected (a flush waits for no "
                          "program); 0: volatile (flush and FUA wait for NAND)",
                          &SimParams::plp));
    t.push_back(BytesParam("plp_flush",
                           "plp: bytes the capacitors can flush to NAND at a power cut (0 = all)",
                           &SimParams::plp_flush_bytes, 0, 1ull << 50, "0..1 PiB"));
    t.push_back(DoubleParam("map_persist_ms", "ms",
                            "the mapping table is persisted this often; a power cut loses the "
                            "updates since (0 = with the data)",
                            &SimParams::map_persist_ms, 0, 1e7, "0..1e7"));
    t.push_back(ParamDef{"seed", "", "seed of randomised victim choice",
                         [](SimParams& p, const std::string& v) -> Status {
                           auto n = ParseCount(v);
                           if (!n.ok())
                             return Status::Invalid("sim parameter seed: '" + v +
                                                    "' is not a whole number");
                           p.seed = n.value();
                           return Status::Ok();
                         },
                         [](const SimParams& p) { return std::to_string(p.seed); }});
    t.push_back(BytesParam("mem_limit", "memory the model may use (0 = half the RAM)",
                           &SimParams::mem_limit_bytes, 0, 1ull << 50, "0..1 PiB"));
    return t;
  }();
  return table;
}

const ParamDef* FindParam(std::string_view key) {
  for (const auto& d : ParamTable()) {
    if (key == d.key) return &d;
  }
  return nullptr;
}

namespace {

// The machine's RAM, or the address-space limit (RLIMIT_AS, `ulimit -v`, `prlimit --as`)
// when that is lower: what the process can actually allocate.
uint64_t UsableMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  uint64_t ram = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                                       : 8ull << 30;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    ram = std::min<uint64_t>(ram, as.rlim_cur);
  return ram;
}

uint64_t DefaultMemLimit() { return UsableMemory() / 2; }

}  // namespace

double LineRateMbS(HostInterface i) {
  switch (i) {
    case HostInterface::kSata:
      return 600;
    case HostInterface::kSas:
      return 1200;
    case HostInterface::kSasDual:
      return 2400;
    case HostInterface::kNvme:
      return 0;
  }
  return 0;
}

const char* InterfaceName(HostInterface i) {
  switch (i) {
    case HostInterface::kSata:
      return "sata";
    case HostInterface::kSas:
      return "sas";
    case HostInterface::kSasDual:
      return "sas-dual";
    case HostInterface::kNvme:
      return "nvme";
  }
  return "?";
}

const char* PolicyName(VictimPolicy v) {
  switch (v) {
    case VictimPolicy::kGreedy:
      return "greedy";
    case VictimPolicy::kFifo:
      return "fifo";
    case VictimPolicy::kDChoices:
      return "dchoices";
    case VictimPolicy::kCostBenefit:
      return "costbenefit";
  }
  return "?";
}

std::vector<std::pair<std::string, std::string>> ParamPairs(const SimParams& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : ParamTable()) out.emplace_back(d.key, d.get(p));
  return out;
}

std::pair<std::string, std::string> ParamDoc(const std::string& key) {
  for (const auto& d : ParamTable()) {
    if (key == d.key) return {d.unit, d.help};
  }
  if (key == "state")
    return {"path",
            "file the drive's state is loaded from (when it exists) and saved to at the end of "
            "the command; not a drive parameter"};
  return {};
}

namespace {

// The least watermark of the eager GC: its copies, in proportion to host writes, start below
// it, and the pool dips about a block (each frontier opening one) before the victim is freed;
// at or below Geometry::min_free_blocks (2) the GC refills the pool at once, a stall of a whole
// victim's copies. kMinLowFreeBlocks leaves the proportional GC that room on a drive of
// kRoomyDriveBlocks or more; with 3 (before, and still on smaller drives, which cannot spare
// more), a drive of a few hundred blocks (the DC400 preset at 4x its scale, 242 blocks, 0.5%
// of them 1.2) started its GC at the emergency level itself, and every QD 1 write cell caught
// stalls of tens of milliseconds that the same drive at its own scale (5 blocks) never has:
// a 4 KiB write mean 116 us against 94 us.
constexpr uint32_t kMinLowFreeBlocks = 5;
constexpr uint32_t kSmallDriveMinLowFreeBlocks = 3;
constexpr double kRoomyDriveBlocks = 100;

// Lazy GC with an absolute batch: blocks per batch (0 when the batch is a share of the blocks).
uint32_t AbsoluteBatchBlocks(const SimParams& p, uint32_t block_units) {
  if (!p.gc_lazy || p.gc_batch_bytes == 0) return 0;
  const uint64_t block_bytes = uint64_t{block_units} * kUnitBytes;
  return static_cast<uint32_t>(
      std::max<uint64_t>(1, (p.gc_batch_bytes + block_bytes - 1) / block_bytes));
}

// The eager GC's watermark: gc_low_pct of the blocks, but at least kMinLowFreeBlocks
// (kSmallDriveMinLowFreeBlocks on a small drive).
uint32_t LowFreeBlocks(const SimParams& p, double blocks) {
  return std::max<uint32_t>(
      blocks >= kRoomyDriveBlocks ? kMinLowFreeBlocks : kSmallDriveMinLowFreeBlocks,
      static_cast<uint32_t>(std::ceil(blocks * p.gc_low_pct / 100.0)));
}

}  // namespace

double ReserveBlocks(uint32_t low_free_blocks) {
  // The eager GC keeps the pool and the host frontier's unwritten pages at low_free_blocks and
  // half a block (SimDevice::BelowWatermark); with the GC frontier's unwritten pages the
  // population garbage collection works on lacks about low_free_blocks + 0.5 blocks: the
  // greedy and FIFO WA of the simulator and of a reference FTL with the same blocks and
  // reserve (src/sim/reference_ftl_test.cc) match the limit model with it within 0.3% on drives
  // of 321 to 1096 blocks at 7% OP (issue 44). Below kMinLowFreeBlocks (drives of under
  // kRoomyDriveBlocks) the pool reaches the emergency level whenever a frontier opens a block,
  // and the refill collects the victim at once: a block more, fitted to the WA of a drive of
  // 84 blocks at 28% OP against the same drive at 655 blocks.
  return low_free_blocks + (low_free_blocks >= kMinLowFreeBlocks ? 0.5 : 1.5);
}

Geometry DeriveGeometry(const SimParams& p) {
  Geometry g;
  g.dies = p.channels * p.dies_per_channel;
  g.units_per_page = p.page_bytes / kUnitBytes;
  g.units_per_prog = g.units_per_page * p.planes;
  g.units_per_slc_prog = std::max<uint32_t>(1, g.units_per_prog / p.bits_per_cell);
  g.pages_per_block = g.units_per_prog * p.pages_per_block;
  const double ppb = g.pages_per_block;
  const double alpha = 1.0 + p.op_pct / 100.0;
  // The full drive: whole blocks for the physical side, then the user side from the exact OP.
  const uint64_t capacity_units = p.capacity_bytes / kUnitBytes;  // whole 4 KiB units
  const double user_full_target = static_cast<double>(capacity_units);
  const double blocks_full = std::max(1.0, std::round(user_full_target * alpha / ppb));
  // Whole blocks may round the physical side up: the user side never exceeds the capacity.
  const double user_full = std::min(user_full_target, std::floor(blocks_full * ppb / alpha));
  if (p.scale == 1) {
    g.blocks = static_cast<uint32_t>(std::min(blocks_full, 4.0e9));
    g.user_pages = static_cast<uint64_t>(std::max(1.0, user_full));
    g.low_free_blocks = LowFreeBlocks(p, g.blocks);
  } else {
    // Scaled: keep the *effective* spare factor of the full drive (what garbage collection
    // sees once the reserve held by the watermark and the frontiers is taken out; that
    // reserve is a larger share of a small drive), so WA and steady-state IOPS carry over.
    const double batch_reserve = 0.5 * AbsoluteBatchBlocks(p, g.pages_per_block) +
                                 (p.gc_lazy && p.gc_batch_pace > 0 ? kPacedBatchLeadBlocks : 0);
    const double alpha_eff =
        (blocks_full - ReserveBlocks(LowFreeBlocks(p, blocks_full)) - batch_reserve) * ppb /
        user_full;
    const double user_target = std::floor(user_full / p.scale);
    const double data_blocks = user_target * alpha_eff / ppb;
    // An absolute lazy batch is the same number of blocks at any scale: the pool holds half
    // of it on average (and a paced batch's lead), a larger share of a small drive, so the
    // scaled drive gets those blocks on top (as the watermark's), and WA carries over.
    uint32_t low = LowFreeBlocks(p, data_blocks);
    double blocks = std::round(data_blocks + ReserveBlocks(low) + batch_reserve);
    low = LowFreeBlocks(p, blocks);
    blocks = std::max(1.0, std::round(data_blocks + ReserveBlocks(low) + batch_reserve));
    g.blocks = static_cast<uint32_t>(std::min(blocks, 4.0e9));
    g.low_free_blocks = low;
    g.user_pages = static_cast<uint64_t>(std::max(
        1.0, std::min(user_target, std::floor((g.blocks - ReserveBlocks(low) - batch_reserve) *
                                              ppb / alpha_eff))));
  }
  g.physical_pages = static_cast<uint64_t>(g.blocks) * g.pages_per_block;
  g.min_free_blocks = 2;
  auto pct_blocks = [&](double pct) {
    return static_cast<uint32_t>(std::ceil(static_cast<double>(g.blocks) * pct / 100.0));
  };
  g.bg_free_blocks = std::max<uint32_t>(g.low_free_blocks, pct_blocks(p.gc_bg_pct));
  g.batch_blocks = p.gc_batch_bytes
                       ? std::max<uint32_t>(1, AbsoluteBatchBlocks(p, g.pages_per_block))
                       : std::max<uint32_t>(1, pct_blocks(p.gc_batch_pct));
  g.slc_static_pages = p.slc_static_bytes / kUnitBytes / p.scale;
  // A power of two (ring index by mask), at least two programs' worth.
  g.buffer_pages = 1;
  while (g.buffer_pages * 2 <= p.buffer_bytes / kUnitBytes) g.buffer_pages *= 2;
  while (g.buffer_pages < 2ull * g.units_per_prog) g.buffer_pages *= 2;
  g.memory_bytes = g.user_pages * 4 + g.physical_pages * 4 + g.physical_pages / 8 +
                   static_cast<uint64_t>(g.blocks) * 40 + g.buffer_pages * 8;
  return g;
}

Status ValidateParams(const SimParams& p) {
  if (p.logical_block_bytes != 512 && p.logical_block_bytes != 4096) {
    return Status::Invalid("sim parameter logical_block=" + std::to_string(p.logical_block_bytes) +
                           ": expected 512 or 4096");
  }
  if (p.host_max_cmd_bytes % p.logical_block_bytes != 0) {
    return Status::Invalid("sim parameter host_max_cmd=" + std::to_string(p.host_max_cmd_bytes) +
                           " is not a multiple of the logical block");
  }
  if (p.merge_unit_bytes % p.logical_block_bytes != 0) {
    return Status::Invalid("sim parameter merge_unit=" + std::to_string(p.merge_unit_bytes) +
                           " is not a multiple of the logical block");
  }
  if (p.page_bytes % kUnitBytes != 0) {
    return Status::Invalid("sim parameter page_bytes=" + std::to_string(p.page_bytes) +
                           " is not a multiple of 4096");
  }
  if (p.gc_batch_pace != 0 && p.gc_batch_pace <= 1) {
    return Status::Invalid("sim parameter gc_batch_pace=" + FormatDouble(p.gc_batch_pace) +
                           ": expected 0 (the whole batch at once) or above 1 (a batch must "
                           "reclaim faster than the writes fill the pool)");
  }
  if (p.channels == 0 || p.dies_per_channel == 0) {
    return Status::Invalid("sim: zero dies (channels and dies_per_channel must be >= 1)");
  }
  const uint64_t block_units =
      static_cast<uint64_t>(p.page_bytes / kUnitBytes) * p.planes * p.pages_per_block;
  if (block_units < 256) {
    return Status::Invalid(
        "sim: a block holds " + std::to_string(block_units) +
        " 4 KiB pages (planes x pages_per_block x page_bytes/4096); need >= 256");
  }
  if (block_units > (1u << 20)) {
    return Status::Invalid("sim: a block holds " + std::to_string(block_units) +
                           " 4 KiB pages; at most 1048576");
  }
  const uint64_t user_units = p.capacity_bytes / kUnitBytes / p.scale;  // whole units, scaled
  const double user_target = static_cast<double>(user_units);
  const double phys = user_target * (1 + p.op_pct / 100.0);
  if (phys >= 4.0e9) {
    return Status::Invalid("sim: " + std::to_string(static_cast<uint64_t>(phys)) +
                           " physical 4 KiB pages exceed the model's 32-bit page numbers; raise "
                           "scale");
  }
  Geometry g = DeriveGeometry(p);
  const uint64_t user_blocks = (g.user_pages + g.pages_per_block - 1) / g.pages_per_block;
  const uint64_t need = user_blocks + g.low_free_blocks + 4;
  if (g.blocks < need) {
    return Status::Invalid(
        "sim: spare area too small to garbage-collect: " + std::to_string(g.blocks) +
        " blocks for " + std::to_string(user_blocks) + " blocks of user data, need at least " +
        std::to_string(need) + " (raise op, or lower scale)");
  }
  if (g.blocks < 16) {
    return Status::Invalid("sim: only " + std::to_string(g.blocks) +
                           " blocks are simulated; need >= 16 (lower scale or raise capacity)");
  }
  if (p.mem_limit_bytes > UsableMemory()) {
    return Status::Invalid("sim: mem_limit " + FormatBytes(p.mem_limit_bytes) +
                           " is more than the " + FormatBytes(UsableMemory()) +
                           " this process can use (RAM or its address-space limit)");
  }
  const uint64_t limit = p.mem_limit_bytes ? p.mem_limit_bytes : DefaultMemLimit();
  if (g.memory_bytes > limit) {
    return Status::Invalid(
        "sim: the geometry needs " + FormatBytes(g.memory_bytes) +
        " of memory, more than the limit of " + FormatBytes(limit) + " (raise scale, e.g. scale=" +
        std::to_string(p.scale * ((g.memory_bytes + limit - 1) / limit)) + ", or mem_limit)");
  }
  return Status::Ok();
}

uint64_t MemoryLimit(const SimParams& p) {
  return p.mem_limit_bytes ? p.mem_limit_bytes : DefaultMemLimit();
}

Result<std::string> SimTargetAtScale(const std::string& target, uint32_t scale, bool replace) {
  if (target.rfind("sim:", 0) != 0)
    return Status::Invalid("'" + target + "' is not one simulated drive (sim:PRESET[?...])");
  const size_t q = target.find('?');
  std::string out = target.substr(0, q), sep = "?";
  if (q != std::string::npos) {
    for (const std::string& kv : Split(target.substr(q + 1), '&')) {
      if (kv.rfind("scale=", 0) == 0) {
        if (!replace && kv != "scale=" + std::to_string(scale))
          return Status::Invalid("'" + target + "' sets " + kv +
                                 ", not scale=" + std::to_string(scale));
        continue;
      }
      out += sep + kv;
      sep = "&";
    }
  }
  return out + sep + "scale=" + std::to_string(scale);
}

bool SimTargetSets(const std::string& target, const std::string& key) {
  const size_t q = target.find('?');
  if (q == std::string::npos) return false;
  for (const std::string& kv : Split(target.substr(q + 1), '&'))
    if (kv.rfind(key + "=", 0) == 0) return true;
  return false;
}

Result<SimParams> ParseSimTarget(const std::string& target) {
  if (target.rfind("sim:", 0) != 0) {
    return Status::Invalid("sim target '" + target + "' must start with 'sim:'");
  }
  std::string rest = target.substr(4);
  std::string name = rest, query;
  size_t q = rest.find('?');
  if (q != std::string::npos) {
    name = rest.substr(0, q);
    query = rest.substr(q + 1);
  }
  // A built-in preset's name or a preset file (sim/preset_file.h).
  SSDLAB_ASSIGN_OR_RETURN(SimParams p, LoadPreset(name));
  if (!query.empty()) {
    std::vector<std::string> seen;
    for (const std::string& kv : Split(query, '&')) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        return Status::Invalid("sim target: expected key=value, got '" + kv + "'");
      }
      std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        return Status::Invalid("sim parameter '" + key + "' is given twice in '" + target + "'");
      seen.push_back(key);
      if (key == "state") {
        if (value.empty()) return Status::Invalid("sim target: state= needs a file path");
        p.state_path = value;
        continue;
      }
      const ParamDef* def = FindParam(key);
      if (!def) return Status::Invalid("unknown sim parameter '" + key + "' in '" + target + "'");
      // "interface" resets link_mb_s; an explicit link_mb_s given earlier is kept.
      double link_before = p.link_mb_s;
      SSDLAB_RETURN_IF_ERROR(def->set(p, value));
      if (key == "interface" && query.find("link_mb_s=") != std::string::npos &&
          query.find("link_mb_s=") < query.find("interface=")) {
        p.link_mb_s = link_before;
      }
    }
  }
  SSDLAB_RETURN_IF_ERROR(ValidateParams(p));
  return p;
}

}  // namespace ssdlab::sim
