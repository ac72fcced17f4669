#include "serve/power_switch.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ssdlab::serve {

namespace {
constexpr uint64_t kUnit = 4096;
}  // namespace

Result<uint32_t> VersionLog::Record(DataStore& data, uint64_t offset, uint32_t bytes,
                                    const char* in) {
  const uint32_t tag = next_tag_++;
  const uint64_t end = offset + bytes;
  for (uint64_t u = offset / kUnit; u * kUnit < end; ++u) {
    std::vector<Version>& vs = units_[u];
    if (vs.empty()) {
      Version start;
      start.bytes.resize(kUnit);
      SSDLAB_RETURN_IF_ERROR(data.Read(u * kUnit, kUnit, start.bytes.data()));
      vs.push_back(std::move(start));
    }
    Version v;
    v.tag = tag;
    v.bytes = vs.back().bytes;  // a partial write keeps the rest of the unit
    const uint64_t from = std::max(offset, u * kUnit), to = std::min(end, (u + 1) * kUnit);
    std::memcpy(v.bytes.data() + (from - u * kUnit), in + (from - offset), to - from);
    vs.push_back(std::move(v));
  }
  return tag;
}

Status VersionLog::Revert(DataStore& data, const std::function<uint32_t(uint64_t)>& held,
                          uint64_t* reverted) const {
  *reverted = 0;
  for (const auto& [u, vs] : units_) {
    const uint32_t h = held(u);
    if (vs.back().tag == h) continue;
    auto it = std::find_if(vs.begin(), vs.end(), [&](const Version& v) { return v.tag == h; });
    if (it == vs.end()) {
      return Status::Error(Code::kInternal, "power switch: the model holds write " +
                                                std::to_string(h) + " of unit " +
                                                std::to_string(u) + ", never recorded");
    }
    SSDLAB_RETURN_IF_ERROR(data.Write(u * kUnit, kUnit, it->bytes.data()));
    ++*reverted;
  }
  return Status::Ok();
}

}  // namespace ssdlab::serve
