// `ssdlab plp` on a real rig (docs/plp.md "Real rigs"): a block device whose power the user's
// commands switch (IPMI, a smart PDU, a relay), and the journal of acknowledgements kept off
// the drive under test: a file on another disk, or a stream to `ssdlab plp journal` on another
// host. Also the journal receiver itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "usecase/plp.h"

namespace ssdlab::usecase {

// Where the journal goes: a file (appended, synced at each sync point) or a TCP stream to a
// receiver (each sync point acknowledged by it once its file is synced). Thread-safe.
class PlpJournalSink {
 public:
  virtual ~PlpJournalSink() = default;
  // One record (a line without its newline).
  virtual Status Record(const std::string& line) = 0;
  // Every record so far is durable where the journal lives.
  virtual Status Sync() = 0;
};

// "HOST:PORT" (a stream) or a file path. Errors name --journal: a file that cannot be opened
// for appending, a host that cannot be reached.
Result<std::unique_ptr<PlpJournalSink>> OpenPlpJournal(const std::string& where);

// True when `where` is HOST:PORT (a port number after the last ':', no '/').
bool IsJournalStream(const std::string& where);

struct RealRigOptions {
  std::string target;     // the block device (a stable name: /dev/disk/by-id/...)
  std::string power_off;  // shell commands, run with SSDLAB_PLP_CUT=N in the environment
  std::string power_on;
  uint64_t settle_ns = 0;  // power off to power on
  uint64_t ready_timeout_ns = 120'000'000'000ULL;
  uint64_t nonce = 1;  // the campaign's: the verify header's seed
};

// Opens the rig: the target is identified (its serial, model and size are what must come
// back) and opened for direct I/O. Errors as IdentifyTarget; Invalid for a target that is not
// a block device.
Result<std::unique_ptr<PlpRig>> OpenRealPlpRig(const RealRigOptions& o, PlpJournalSink* journal);

// Refuses (Invalid, one line) a journal file that lives on the disk under test `target` (the
// device itself, one of its partitions, or a file on a filesystem on it).
Status CheckJournalOffTarget(const std::string& journal, const std::string& target);

// `ssdlab plp journal --listen PORT --out FILE`: accepts one connection on PORT (0: any; the
// port is passed to `listening` once bound), appends each line received to FILE, syncs FILE
// and answers "ok" to each "sync" line, and returns when the sender closes. Io naming the file
// or the socket.
Status ReceivePlpJournal(uint16_t port, const std::string& out,
                         const std::function<void(uint16_t)>& listening, uint64_t* records);

}  // namespace ssdlab::usecase
