// What a target is: the facts every layer that names a target needs (the backend that drives
// it, the store that records it, the report that shows it). Plain data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ssdlab {

struct TargetInfo {
  std::string path;  // as given by the user ("/dev/sdb", "/tmp/f", "sim:tiny")
  std::string kind;  // "file", "block", "sim"
  uint64_t size_bytes = 0;
  uint32_t logical_block_bytes = 512;  // I/O alignment (O_DIRECT)
  uint32_t physical_block_bytes = 4096;
  std::string model;   // where known
  std::string serial;  // where known
  std::string firmware;
  // Further facts as key -> value (the simulator's resolved parameters, ...).
  std::vector<std::pair<std::string, std::string>> details;
};

}  // namespace ssdlab
