// The `plp` use case: a power-loss campaign (docs/plp.md). A write load runs on the drive, its
// power is cut at a random time within the load, restored, and every 4 KiB unit of the range
// is read back and checked against the journal of acknowledgements; each finding is
// classified. Repeated --cuts times; stored as a run of kind "plp" when a database is given.
//
// The campaign drives a PlpRig: "run the load until the cut, cut power, restore it, read a
// unit back". The simulator (virtual time, sim:PRESET) is the one rig today; a real rig (power
// commands, a journal streamed off the drive) implements the same interface.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/rng.h"
#include "base/status.h"

namespace ssdlab::usecase {

inline constexpr uint64_t kPlpNever = UINT64_MAX;

// The journal of a load segment: every write issued (with its sequence number, the tag its
// data carries) and when it was acknowledged, every flush issued and when it completed
// (kPlpNever: not before the cut). It lives where the cut does not reach (in a real rig: a
// file on another disk, or a stream to another host).
struct PlpJournal {
  struct Write {
    uint32_t seq = 0;  // increasing; 0 is "never written"
    uint64_t offset = 0;
    uint32_t bytes = 0;
    uint64_t issue_ns = 0;
    uint64_t ack_ns = kPlpNever;
    bool fua = false;
  };
  struct Flush {
    uint64_t issue_ns = 0;
    uint64_t done_ns = kPlpNever;
  };
  std::vector<Write> writes;   // in issue order (seq order)
  std::vector<Flush> flushes;  // in issue order
};

// The unit the load writes and the check reads back and classifies: 4 KiB.
inline constexpr uint64_t kPlpUnitBytes = 4096;

// The load of every segment.
struct PlpLoad {
  uint64_t range_units = 0;  // 4 KiB units from offset 0 the load writes and the check reads
  std::vector<uint32_t> block_bytes{4096};  // one drawn per I/O
  double read_pct = 0;
  uint32_t qd = 32;
  enum class Flush { kNone, kEvery, kFua } flush = Flush::kEvery;
  uint32_t flush_every = 64;  // kEvery: a flush after this many writes
};

// What one unit reads back as: readable, its header intact, the unit its header names and the
// sequence number of the write it came from (0: never written).
struct PlpReading {
  bool readable = true;
  bool intact = true;
  uint64_t lpn = 0;
  uint32_t seq = 0;
};

// The load at the cut.
struct PlpLoadAtCut {
  double iops = 0;  // commands acknowledged per second over the segment
  uint32_t in_flight = 0;
  uint64_t writes_acked = 0;
};

// A drive whose power the campaign controls. Not thread-safe.
class PlpRig {
 public:
  virtual ~PlpRig() = default;
  // 4 KiB units of the drive.
  virtual uint64_t units() const = 0;
  // Runs `load` from now, journalling every write and flush, until `cut_after_ns` from now;
  // then power is cut (*cut_ns: when, on the rig's clock).
  virtual Status RunAndCut(const PlpLoad& load, uint64_t cut_after_ns, Rng& rng, uint32_t* next_seq,
                           PlpJournal* journal, PlpLoadAtCut* at_cut, uint64_t* cut_ns) = 0;
  // Restores power and waits for the drive; *ready_ns: from power-on to ready.
  virtual Status Restore(uint64_t* ready_ns) = 0;
  virtual Result<PlpReading> Read(uint64_t lpn) = 0;
  // The drive's own account of the cut, when it has one (a simulated drive); null otherwise.
  virtual const nlohmann::json* Truth() const { return nullptr; }
};

enum PlpClass : int {
  kLostFlushed = 0,  // an acknowledged write made durable by a completed flush or FUA is gone
  kLostUnflushed,    // an acknowledged write without a completed flush is gone (allowed)
  kTorn,             // the unit's header or checksum does not match any write
  kOldGeneration,    // older than a write made durable before the last flush's predecessor
  kMisdirected,      // data of a write that did not cover this unit
  kUnreadable,       // the read failed
  kPlpClasses
};
// "lost_flushed", "lost_unflushed", "torn", "old_generation", "misdirected", "unreadable".
const char* PlpClassKey(int c);

struct PlpCut {
  uint64_t cut_ns = 0;    // on the rig's clock (virtual time for a simulated drive)
  uint64_t ready_ns = 0;  // power-on to ready
  PlpLoadAtCut load;
  std::array<uint64_t, kPlpClasses> findings{};
  nlohmann::json truth;  // the drive's own account (null when it has none)
};

struct PlpRequest {
  std::string target;
  uint32_t cuts = 20;
  std::string flush = "every:64";  // none, every:N, fua
  std::string bs = "4KiB";         // comma-separated sizes, multiples of 4 KiB
  double rwmix_read = 0;
  uint32_t qd = 32;
  std::string segment = "100ms";  // load before each cut (the cut falls at random within it)
  std::string size;               // the range from offset 0 ("" = the whole drive)
  uint64_t seed = 1;
  // A real rig (a block device): the power commands (shell, with SSDLAB_PLP_CUT=N in their
  // environment), the time between them, how long the drive may take to come back, the
  // journal (a file off the drive under test, or HOST:PORT of `ssdlab plp journal`) and the
  // permission to write the device (docs/plp.md "Real rigs").
  std::string power_off, power_on;
  std::string settle = "0s";
  std::string ready_timeout = "120s";
  std::string journal;
  bool destructive = false;
  std::string db, run;  // db "" = not stored
  std::vector<std::pair<std::string, std::string>> outputs;
  const std::atomic<bool>* stop = nullptr;
};

struct PlpOutcome {
  std::vector<PlpCut> cuts;
  std::array<uint64_t, kPlpClasses> totals{};
  nlohmann::json doc;  // the campaign document (schema_version 1)
  std::string run;     // the stored run ("" when not stored)
  Status stored;       // storing it (ok when not asked)
  // A cut that could not be completed (a power command failed, the drive came back as another
  // one or not at all, the journal failed): the campaign stops there, and the cuts before it
  // are kept (in doc and the stored run).
  Status failed;
};

// Parses --flush: "none", "every:N" (N >= 1) or "fua"; Invalid naming the flag otherwise.
Status ParsePlpFlush(const std::string& text, PlpLoad* load);

// Classifies every unit of [0, load.range_units) read back after a cut at cut_ns against the
// segment's journal; `baseline` holds each unit's sequence number as verified after the
// previous cut (0 before the first) and is updated to what was read. Public for tests.
Result<std::array<uint64_t, kPlpClasses>> ClassifyCut(PlpRig& rig, const PlpJournal& journal,
                                                      uint64_t cut_ns, uint64_t range_units,
                                                      std::vector<uint32_t>* baseline);

// Runs the campaign. Errors: bad input (Invalid naming the flag), a real target without the
// power commands or the journal, a journal on the drive under test, a block device the safety
// checks refuse (--destructive), tracking memory over the model's mem_limit, a database that
// cannot be opened, Interrupted. A cut that fails part-way is PlpOutcome::failed.
Result<PlpOutcome> RunPlp(const PlpRequest& r);

}  // namespace ssdlab::usecase
