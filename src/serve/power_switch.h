// The served drive's power switch (docs/serve.md "The power switch"): what a power cut leaves
// in the data a served drive holds. The model (sim/power_loss.h) says, per 4 KiB unit, which
// write's data the drive returns after a cut (a tag); the data store holds the newest data
// written. The version log keeps, from the serve's start, every version of every unit written
// (its tag and its 4 KiB) and the unit's content at the start (tag 0), so that at a cut each
// unit is put back to the version the model holds.
//
// Memory: 4 KiB per unit version written since the serve started (a serve with a power switch
// is for power-loss campaigns, restarted at each cut). Not thread-safe: the transport's thread
// records, and the cut reverts after that thread has ended.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "serve/data_store.h"

namespace ssdlab::serve {

class VersionLog {
 public:
  // A write of [offset, offset + bytes) with data `in`, before it reaches `data`: the versions
  // of the units it covers (the unit's content before, when first touched) are recorded;
  // returns the write's tag (1, 2, ...). Io as the store's Read.
  Result<uint32_t> Record(DataStore& data, uint64_t offset, uint32_t bytes, const char* in);
  // Puts every unit whose newest version is not the one `held(lpn)` names back to that version
  // in `data`; *reverted: how many. Internal when the model holds a version never recorded.
  Status Revert(DataStore& data, const std::function<uint32_t(uint64_t)>& held,
                uint64_t* reverted) const;
  uint64_t units() const { return units_.size(); }

 private:
  struct Version {
    uint32_t tag = 0;
    std::vector<char> bytes;  // 4 KiB
  };
  std::unordered_map<uint64_t, std::vector<Version>> units_;
  uint32_t next_tag_ = 1;
};

}  // namespace ssdlab::serve
