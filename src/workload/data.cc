#include "workload/data.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ssdlab {
namespace {

constexpr uint32_t kChunk = 4096;
constexpr uint32_t kSector = 512;
constexpr uint32_t kWordPos = 56;  // after the verify header

struct Header {
  uint64_t magic;
  uint64_t offset;
  uint64_t seed;
  uint64_t generation;
  uint32_t unit_bytes;
  uint32_t reserved;
  uint64_t checksum;
};
static_assert(sizeof(Header) == kVerifyHeaderBytes);

uint64_t Checksum(const Header& h, const uint8_t* unit, uint32_t unit_bytes) {
  uint64_t s =
      Mix64(h.magic ^ Mix64(h.offset ^ Mix64(h.seed ^ Mix64(h.generation ^ h.unit_bytes))));
  return XXH3_64bits_withSeed(unit + kVerifyHeaderBytes, unit_bytes - kVerifyHeaderBytes, s);
}

}  // namespace

const char* VerifyOutcomeName(VerifyOutcome v) {
  switch (v) {
    case VerifyOutcome::kOk:
      return "ok";
    case VerifyOutcome::kNoHeader:
      return "no verify header (never written with --verify, or overwritten)";
    case VerifyOutcome::kWrongOffset:
      return "header names another offset (misplaced write)";
    case VerifyOutcome::kWrongSeed:
      return "header has another seed (written by another run)";
    case VerifyOutcome::kBadChecksum:
      return "checksum mismatch (corrupted data)";
  }
  return "?";
}

DataFiller::DataFiller(const WorkloadSpec& spec)
    : seed_(spec.seed),
      kind_(spec.data.kind),
      pct_(spec.data.pct),
      verify_(spec.verify),
      unit_bytes_(static_cast<uint32_t>(spec.verify_unit_bytes
                                            ? spec.verify_unit_bytes
                                            : std::min<uint64_t>(4096, spec.MinBlockBytes()))),
      dedupe_threshold_(static_cast<uint64_t>(spec.data.pct / 100.0 * 4294967296.0)),
      base_(kChunk, 0) {
  if (kind_ != DataKind::kZero) {
    Rng rng(Mix64(seed_ ^ 0xba5eULL));
    for (uint32_t i = 0; i < kChunk; i += 8) {
      uint64_t w = rng.Next();
      std::memcpy(&base_[i], &w, 8);
    }
    if (kind_ == DataKind::kCompressible) {
      uint32_t zeros = static_cast<uint32_t>(std::lround(pct_ / 100.0 * kChunk));
      std::memset(base_.data(), 0, zeros);
    }
  }
}

void DataFiller::Prepare(uint8_t* buf, uint64_t len) const {
  for (uint64_t i = 0; i < len; i += kChunk) {
    std::memcpy(buf + i, base_.data(), std::min<uint64_t>(kChunk, len - i));
  }
}

void DataFiller::Fill(uint8_t* buf, uint32_t len, uint64_t offset, uint64_t generation,
                      Rng& rng) const {
  if (kind_ != DataKind::kZero) {
    // Compressible data keeps its zero share: only sectors in the random part get words.
    uint32_t first_random = 0;
    if (kind_ == DataKind::kCompressible) {
      first_random = static_cast<uint32_t>(std::lround(pct_ / 100.0 * kChunk));
    }
    for (uint32_t chunk = 0; chunk < len; chunk += kChunk) {
      uint64_t key;
      if (kind_ == DataKind::kDedupe && (rng.Next() >> 32) < dedupe_threshold_) {
        key = Mix64(seed_ ^ (rng.Below(1024) << 1));
      } else {
        key = Mix64(seed_ ^ Mix64(offset + chunk) ^ (generation << 1 | 1));
      }
      uint32_t chunk_end = std::min(len, chunk + kChunk);
      for (uint32_t s = chunk; s < chunk_end; s += kSector) {
        if (s - chunk + kWordPos < first_random) continue;
        uint64_t w = key ^ (0x9e3779b97f4a7c15ULL * (s - chunk + 1));
        std::memcpy(buf + s + kWordPos, &w, 8);
      }
    }
  }
  if (!verify_) return;
  for (uint32_t u = 0; u < len; u += unit_bytes_) {
    Header h{kVerifyMagic, offset + u, seed_, generation, unit_bytes_, 0, 0};
    h.checksum = Checksum(h, buf + u, unit_bytes_);
    std::memcpy(buf + u, &h, sizeof h);
  }
}

uint32_t DataFiller::Check(const uint8_t* buf, uint32_t len, uint64_t offset,
                           std::vector<VerifyFailure>* out, size_t max_records) const {
  uint32_t failures = 0;
  for (uint32_t u = 0; u < len; u += unit_bytes_) {
    Header h;
    std::memcpy(&h, buf + u, sizeof h);
    VerifyOutcome o = VerifyOutcome::kOk;
    if (h.magic != kVerifyMagic || h.unit_bytes != unit_bytes_) {
      o = VerifyOutcome::kNoHeader;
    } else if (h.offset != offset + u) {
      o = VerifyOutcome::kWrongOffset;
    } else if (h.seed != seed_) {
      o = VerifyOutcome::kWrongSeed;
    } else if (h.checksum != Checksum(h, buf + u, unit_bytes_)) {
      o = VerifyOutcome::kBadChecksum;
    }
    if (o == VerifyOutcome::kOk) continue;
    ++failures;
    if (out && out->size() < max_records) {
      out->push_back({offset + u, o, h.magic == kVerifyMagic ? h.offset : 0,
                      h.magic == kVerifyMagic ? h.generation : 0});
    }
  }
  return failures;
}

}  // namespace ssdlab
