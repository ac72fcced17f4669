// Contents of written blocks and the verification header.
//
// Data: every 512-byte sector of a written block carries one 8-byte word derived from
// (seed, offset, generation) at byte 56 of the sector; the rest comes from a fixed random
// base pattern (zeros for --data zero and for the compressible share of each 4 KiB). So each
// write has unique contents (no accidental dedupe, as fio's scramble_buffers) at the cost of
// a few stores, and the same seed gives the same bytes. With dedupe:N, N% of 4 KiB chunks
// take their words from a small pool of 1024 contents instead, so they repeat.
//
// Verify: with --verify every `unit` (4 KiB, or the smallest block size if that is smaller)
// starts with a
// 48-byte header {magic, offset, seed, generation, unit bytes, checksum}; the checksum is
// XXH3-64 of the rest of the unit seeded by the header fields. A reader checks magic,
// offset, seed and checksum of every unit it reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"
#include "workload/spec.h"

namespace ssdlab {

inline constexpr uint64_t kVerifyMagic = 0x314c42414c445353ULL;  // "SSDLABL1"
inline constexpr uint32_t kVerifyHeaderBytes = 48;

enum class VerifyOutcome : uint8_t { kOk, kNoHeader, kWrongOffset, kWrongSeed, kBadChecksum };
const char* VerifyOutcomeName(VerifyOutcome v);

struct VerifyFailure {
  uint64_t offset = 0;  // byte offset of the failing unit
  VerifyOutcome outcome = VerifyOutcome::kOk;
  uint64_t found_offset = 0;  // as the header says (when there is one)
  uint64_t generation = 0;    // as the header says
};

class DataFiller {
 public:
  // REQUIRES: spec validated. Buffers passed to Prepare/Fill hold at least MaxBlockBytes().
  explicit DataFiller(const WorkloadSpec& spec);

  // Writes the base pattern into a fresh buffer once, before its first use.
  void Prepare(uint8_t* buf, uint64_t len) const;
  // Makes `buf` the contents of a write of `len` bytes at `offset`. `generation` identifies
  // the write (job and sequence number); `rng` draws dedupe choices.
  void Fill(uint8_t* buf, uint32_t len, uint64_t offset, uint64_t generation, Rng& rng) const;
  // Checks a block read at `offset`; returns the number of failing units and appends up to
  // `max_records` of them to `out`.
  uint32_t Check(const uint8_t* buf, uint32_t len, uint64_t offset, std::vector<VerifyFailure>* out,
                 size_t max_records) const;

  uint32_t unit_bytes() const { return unit_bytes_; }

 private:
  uint64_t seed_;
  DataKind kind_;
  double pct_;
  bool verify_;
  uint32_t unit_bytes_;
  uint64_t dedupe_threshold_;  // scaled to 2^32
  std::vector<uint8_t> base_;  // 4 KiB base pattern
};

}  // namespace ssdlab
