// Copies stored runs between two stores (`ssdlab db copy`: a laptop's SQLite file into the
// lab's PostgreSQL, or back): the run record, its target, every test, round and phase (with
// histograms and series, bit for bit), its times and the fleet it belongs to.
#pragma once

#include <string>

#include "base/status.h"
#include "store/store.h"

namespace ssdlab {

// How a copy of one run ended.
struct CopyResult {
  Status status;         // ok: copied whole
  bool damaged = false;  // the run in `from` could not be read whole (status says where)
};

// Copies run `name` of `from` into `to` (under the name `as`, or the same name when empty), in
// one transaction of `to`: the run arrives whole or, when anything fails (a damaged row late in
// the run, a full disk) or the process is killed, not at all. The copy is the same document:
// its times (created_at, finished_at), status, config, context (host, versions), target, tests,
// rounds and phases are the original's, so `show --json` of it differs only in the run's name
// when renamed. kInvalidArgument when `to` already has a run of that name. A run being written
// in `from` (locked) is refused rather than copied half-way, and is kept locked while it is
// copied.
CopyResult CopyRun(Store& from, Store& to, const std::string& name, const std::string& as = "");

}  // namespace ssdlab
