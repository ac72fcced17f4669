// Copies stored runs between two stores (`ssdlab db copy`: a laptop's SQLite file into the
// lab's PostgreSQL, or back): the run record, its target, every test, round and phase (with
// histograms and series, bit for bit) and the fleet it belongs to.
#pragma once

#include <string>

#include "base/status.h"
#include "store/store.h"

namespace ssdlab {

// Copies run `name` of `from` into `to` (under the same name). kInvalidArgument when `to`
// already has a run of that name (nothing is written then). A run still being written in
// `from` (locked) is refused rather than copied half-way.
Status CopyRun(Store& from, Store& to, const std::string& name);

}  // namespace ssdlab
