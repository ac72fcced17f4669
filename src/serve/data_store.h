// The data a served drive holds (the simulator keeps no data: sim.h). Sparse: ranges never
// written, or trimmed, read as zeros.
//
// Not thread-safe: one transport thread uses a store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"

namespace ssdlab::serve {

class DataStore {
 public:
  virtual ~DataStore() = default;
  // REQUIRES for all three: [offset, offset + bytes) inside the drive's capacity.
  virtual Status Read(uint64_t offset, uint32_t bytes, char* out) = 0;
  virtual Status Write(uint64_t offset, uint32_t bytes, const char* in) = 0;
  // The range reads as zeros afterwards (a trim or discard).
  virtual Status Punch(uint64_t offset, uint64_t bytes) = 0;
  // Makes written data durable where the store has a file (a clean stop); Io naming the file.
  virtual Status Sync() = 0;
  // Bytes held (memory: 4 KiB pages allocated; file: blocks allocated).
  virtual uint64_t held_bytes() const = 0;
};

// In memory, 4 KiB pages allocated as written; lost when the process ends.
std::unique_ptr<DataStore> MemoryStore(uint64_t capacity_bytes);

// A sparse file at `path` (a 4 KiB header naming the drive, then the data): created when
// missing, reopened when it names the same drive (`drive_id`, e.g. TargetInfo::serial, and
// capacity). Invalid, naming the file, when it is not such a file or belongs to another drive;
// Io when it cannot be created or read.
Result<std::unique_ptr<DataStore>> OpenFileStore(const std::string& path, uint64_t capacity_bytes,
                                                 const std::string& drive_id);

}  // namespace ssdlab::serve
