// The charting libraries embedded at build time (see src/report/CMakeLists.txt), in load order.
#pragma once

#include <string_view>
#include <vector>

namespace ssdlab::report {

struct Asset {
  const char* name;     // npm package
  const char* version;  // from its package.json
  std::string_view js;  // the minified UMD build
  std::string_view license;
};

const std::vector<Asset>& EmbeddedAssets();

}  // namespace ssdlab::report
