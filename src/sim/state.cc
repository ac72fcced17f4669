// Saved states of simulated drives: see state.h for the format and its guarantees.
#include "sim/state.h"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>

#include "base/output_file.h"
#include "sim/device.h"
#include "sim/ftl.h"
#include "sim/state_lock.h"

namespace ssdlab::sim {
namespace {

constexpr char kMagic[8] = {'S', 'S', 'D', 'L', 'A', 'B', 'S', 'T'};
constexpr size_t kFixedHeader = 16;  // magic, version, header length
constexpr uint32_t kMaxHeaderText = 1 << 20;
constexpr size_t kTrailer = 16;           // body length, checksum
constexpr size_t kChunkWords = 1 << 18;   // mapping arrays are delta-coded in chunks of 1 MiB
constexpr uint64_t kMaxVector = 1 << 22;  // elements of a variable-length array in a state

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The error of a state file that carries ssdlab's magic but is damaged or truncated: ours, so
// `purge --destructive` may replace it (sim/sim.h SimOpenOptions::reset_damaged_state).
Status Damaged(const std::string& path, const std::string& what, bool* damaged) {
  if (damaged) *damaged = true;
  return Status::Invalid("sim state '" + path + "' is damaged or truncated (" + what +
                         "); `ssdlab purge --destructive` on this target resets it to a "
                         "factory-fresh drive (its wear is lost), or delete it");
}

template <class T>
void PutLe(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
T GetLe(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct XxhDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};
struct CctxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DctxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

// --- Writing ---------------------------------------------------------------------------------

// The archive that writes: fields go through zstd's streaming compressor into the output file,
// and the compressed bytes into the running checksum.
class Writer {
  // A saved value's bytes are its fields' only: a type with padding would save whatever the
  // padding held, and two saves of the same state would differ (give it explicit fields).
  template <class T>
  static constexpr bool kNoPadding =
      std::has_unique_object_representations_v<T> || std::is_floating_point_v<T>;

 public:
  Writer(OutputFile* out, XXH3_state_t* hash, ZSTD_CCtx* cctx)
      : out_(out), hash_(hash), cctx_(cctx), buf_(ZSTD_CStreamOutSize() * 4) {}

  template <class T>
  void Pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && kNoPadding<T>);
    const char* p = reinterpret_cast<const char*>(&v);
    stage_.insert(stage_.end(), p, p + sizeof v);
    if (stage_.size() >= (1 << 16)) FlushStage();
  }
  template <class T>
  void Span(const T* p, size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && kNoPadding<T>);
    FlushStage();
    Feed(p, n * sizeof(T));
  }
  template <class T>
  void Vector(const std::vector<T>& v) {
    Pod(static_cast<uint64_t>(v.size()));
    Span(v.data(), v.size());
  }
  // Delta-coded: word i is stored as p[i] - p[i-1] (mod 2^32), so runs of consecutive indices
  // become runs of ones.
  void Mapping(const uint32_t* p, size_t n, uint32_t /*limit*/) {
    FlushStage();
    delta_.resize(kChunkWords);
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i += kChunkWords) {
      const size_t m = std::min(kChunkWords, n - i);
      for (size_t k = 0; k < m; ++k) {
        delta_[k] = p[i + k] - prev;
        prev = p[i + k];
      }
      Feed(delta_.data(), m * 4);
    }
  }

  Status Finish() {
    FlushStage();
    ZSTD_inBuffer in{nullptr, 0, 0};
    for (;;) {
      ZSTD_outBuffer o{buf_.data(), buf_.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx_, &o, &in, ZSTD_e_end);
      if (ZSTD_isError(left)) return Fail(ZSTD_getErrorName(left));
      Emit(o.pos);
      if (left == 0) break;
    }
    return error_;
  }
  uint64_t raw_bytes() const { return raw_; }
  uint64_t body_bytes() const { return body_; }

 private:
  void FlushStage() {
    if (stage_.empty()) return;
    Feed(stage_.data(), stage_.size());
    stage_.clear();
  }
  void Feed(const void* data, size_t bytes) {
    raw_ += bytes;
    ZSTD_inBuffer in{data, bytes, 0};
    while (in.pos < in.size && error_.ok()) {
      ZSTD_outBuffer o{buf_.data(), buf_.size(), 0};
      const size_t r = ZSTD_compressStream2(cctx_, &o, &in, ZSTD_e_continue);
      if (ZSTD_isError(r)) {
        error_ = Fail(ZSTD_getErrorName(r));
        return;
      }
      Emit(o.pos);
    }
  }
  void Emit(size_t n) {
    if (n == 0) return;
    XXH3_64bits_update(hash_, buf_.data(), n);
    out_->Write(buf_.data(), n);
    body_ += n;
  }
  static Status Fail(const char* what) {
    return Status::Error(Code::kInternal, std::string("sim state: zstd: ") + what);
  }

  OutputFile* out_;
  XXH3_state_t* hash_;
  ZSTD_CCtx* cctx_;
  std::vector<char> buf_;
  std::vector<char> stage_;
  std::vector<uint32_t> delta_;
  uint64_t raw_ = 0, body_ = 0;
  Status error_;
};

// --- Reading ---------------------------------------------------------------------------------

// The archive that reads: the body is decompressed straight into the fields. Any failure
// (short input, zstd error, an index out of range, a length beyond reason) is remembered; the
// caller checks ok() once the visit is over and then the checksum.
class Reader {
 public:
  Reader(FILE* f, uint64_t body_bytes, XXH3_state_t* hash, ZSTD_DCtx* dctx)
      : f_(f), left_(body_bytes), hash_(hash), dctx_(dctx), in_buf_(ZSTD_DStreamInSize() * 4) {}

  template <class T>
  void Pod(T& v) {
    Read(&v, sizeof v);
  }
  template <class T>
  void Span(T* p, size_t n) {
    Read(p, n * sizeof(T));
  }
  template <class T>
  void Vector(std::vector<T>& v) {
    uint64_t n = 0;
    Pod(n);
    if (!ok_) return;
    if (n > kMaxVector) return Bad("an array of " + std::to_string(n) + " entries");
    v.resize(n);
    Span(v.data(), n);
  }
  void Mapping(uint32_t* p, size_t n, uint32_t limit) {
    uint32_t prev = 0;
    for (size_t i = 0; i < n && ok_; i += kChunkWords) {
      const size_t m = std::min(kChunkWords, n - i);
      uint32_t* q = p + i;
      Read(q, m * 4);
      if (!ok_) return;
      bool bad = false;
      for (size_t k = 0; k < m; ++k) {
        prev += q[k];
        q[k] = prev;
        bad |= prev >= limit && prev != Ftl::kNone;
      }
      if (bad) return Bad("a mapping entry out of range");
    }
  }

  // After the last field: the frame must end exactly with the body.
  void End() {
    if (!ok_) return;
    if (frame_done_) {
      if (in_.pos != in_.size || left_ != 0) Bad("bytes after the compressed body");
      return;
    }
    char extra;
    ZSTD_outBuffer o{&extra, 1, 0};
    for (;;) {
      if (in_.pos == in_.size) Refill();
      const size_t in_before = in_.pos;
      const size_t r = ZSTD_decompressStream(dctx_, &o, &in_);
      if (ZSTD_isError(r)) return Bad(ZSTD_getErrorName(r));
      if (o.pos) return Bad("data after the last field");
      if (r == 0) {
        if (in_.pos != in_.size || left_ != 0) return Bad("bytes after the compressed body");
        return;
      }
      if (in_.pos == in_before && in_.pos == in_.size && left_ == 0)
        return Bad("the compressed body ends early");
    }
  }

  bool ok() const { return ok_; }
  const std::string& problem() const { return problem_; }
  void Bad(const std::string& what) {
    if (ok_) problem_ = what;
    ok_ = false;
  }

 private:
  bool Refill() {
    if (left_ == 0) return false;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left_, in_buf_.size()));
    const size_t got = std::fread(in_buf_.data(), 1, want, f_);
    if (got == 0) return false;
    XXH3_64bits_update(hash_, in_buf_.data(), got);
    left_ -= got;
    in_ = ZSTD_inBuffer{in_buf_.data(), got, 0};
    return true;
  }
  void Read(void* dst, size_t bytes) {
    if (!ok_) return;
    ZSTD_outBuffer o{dst, bytes, 0};
    while (o.pos < o.size) {
      // At the end of the input the decoder may still hold output: call it until it makes no
      // progress.
      if (in_.pos == in_.size) Refill();
      const size_t in_before = in_.pos, out_before = o.pos;
      const size_t r = ZSTD_decompressStream(dctx_, &o, &in_);
      if (ZSTD_isError(r)) return Bad(ZSTD_getErrorName(r));
      if (r == 0 && o.pos < o.size) return Bad("the compressed body ends early");
      if (o.pos == out_before && in_.pos == in_before && in_.pos == in_.size && left_ == 0)
        return Bad("the compressed body ends early");
      frame_done_ = r == 0;
    }
  }

  FILE* f_;
  uint64_t left_;
  XXH3_state_t* hash_;
  ZSTD_DCtx* dctx_;
  std::vector<char> in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool ok_ = true;
  bool frame_done_ = false;  // the decoder returned 0: the frame ended with the last read
  std::string problem_;
};

// --- Header ----------------------------------------------------------------------------------

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs GeometryPairs(const Geometry& g) {
  return {{"blocks", std::to_string(g.blocks)},
          {"pages_per_block", std::to_string(g.pages_per_block)},
          {"user_pages", std::to_string(g.user_pages)},
          {"physical_pages", std::to_string(g.physical_pages)},
          {"buffer_pages", std::to_string(g.buffer_pages)},
          {"dies", std::to_string(g.dies)}};
}

std::string HeaderText(const SimDevice& dev, uint64_t now_ns) {
  std::string t = "[params]\n";
  for (const auto& [k, v] : StateParams(dev.params())) t += k + "=" + v + "\n";
  t += "[geometry]\n";
  for (const auto& [k, v] : GeometryPairs(dev.geometry())) t += k + "=" + v + "\n";
  const Ftl& f = dev.ftl();
  const DeviceCounters c = dev.counters();
  char mean[64];
  std::snprintf(mean, sizeof mean, "%.17g",
                static_cast<double>(f.erase_count_sum()) / std::max<uint32_t>(1, f.blocks()));
  t += "[summary]\n";
  t += "user_pages=" + std::to_string(dev.geometry().user_pages) + "\n";
  t += "mapped_pages=" + std::to_string(f.mapped_pages()) + "\n";
  t += "host_pages=" + std::to_string(c.host_pages) + "\n";
  t += "nand_pages=" + std::to_string(c.nand_pages) + "\n";
  t += "gc_copies=" + std::to_string(c.gc_copies) + "\n";
  t += "erases=" + std::to_string(c.erases) + "\n";
  t += "free_blocks=" + std::to_string(f.free_blocks()) + "\n";
  t += "blocks=" + std::to_string(f.blocks()) + "\n";
  t += std::string("erase_count_mean=") + mean + "\n";
  t += "erase_count_max=" + std::to_string(f.erase_count_max()) + "\n";
  t += "virtual_time_ns=" + std::to_string(now_ns) + "\n";
  return t;
}

struct Header {
  uint32_t version = 0;
  Pairs params, geometry, summary;
  uint64_t bytes = 0;  // fixed part + text + checksum
  XXH64_hash_t hash = 0;
};

Status NotState(const std::string& path, const std::string& why) {
  return Status::Invalid("'" + path + "' is not an ssdlab simulator state (" + why + ")");
}

// Reads and checks the header (magic, version, checksum); the file is left after it.
Result<Header> ReadHeader(FILE* f, const std::string& path, uint64_t file_bytes, bool* damaged) {
  unsigned char fixed[kFixedHeader];
  const size_t got = std::fread(fixed, 1, sizeof fixed, f);
  if (got < sizeof kMagic || std::memcmp(fixed, kMagic, sizeof kMagic) != 0) {
    if (std::memcmp(fixed, kMagic, std::min(got, sizeof kMagic)) == 0)
      return Damaged(path, "it ends inside the header", damaged);
    return NotState(path, "no SSDLABST magic at its start");
  }
  if (got < kFixedHeader) return Damaged(path, "it ends inside the header", damaged);
  Header h;
  h.version = GetLe<uint32_t>(fixed + 8);
  const uint32_t text_len = GetLe<uint32_t>(fixed + 12);
  if (h.version > kStateVersion) {
    return Status::Invalid("sim state '" + path + "' has format version " +
                           std::to_string(h.version) + ", newer than this ssdlab reads (" +
                           std::to_string(kStateVersion) + "); use a newer ssdlab");
  }
  if (h.version == 0) return Damaged(path, "format version 0", damaged);
  if (text_len > kMaxHeaderText || kFixedHeader + text_len + 8 > file_bytes)
    return Damaged(path, "header length beyond the file", damaged);
  std::string text(text_len, '\0');
  unsigned char sum[8];
  if (std::fread(text.data(), 1, text_len, f) != text_len || std::fread(sum, 1, 8, f) != 8)
    return Damaged(path, "it ends inside the header", damaged);
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  XXH3_64bits_update(st, fixed, sizeof fixed);
  XXH3_64bits_update(st, text.data(), text.size());
  const XXH64_hash_t want = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  if (GetLe<uint64_t>(sum) != want) return Damaged(path, "header checksum", damaged);
  Pairs* section = nullptr;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line == "[params]") {
      section = &h.params;
    } else if (line == "[geometry]") {
      section = &h.geometry;
    } else if (line == "[summary]") {
      section = &h.summary;
    } else if (!line.empty()) {
      const size_t eq = line.find('=');
      if (!section || eq == std::string::npos)
        return Damaged(path, "malformed header line", damaged);
      section->emplace_back(line.substr(0, eq), line.substr(eq + 1));
    }
  }
  h.bytes = kFixedHeader + text_len + 8;
  h.hash = want;
  return h;
}

// The first difference between what a state was made for and what the target is.
Status CompareParams(const std::string& path, const Pairs& file, const Pairs& want,
                     const char* what) {
  for (size_t i = 0; i < want.size(); ++i) {
    // Named, not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::string& k = want[i].first;
    const std::string& v = want[i].second;
    if (i >= file.size() || file[i].first != k) {
      auto it =
          std::find_if(file.begin(), file.end(), [&](const auto& kv) { return kv.first == k; });
      if (it == file.end())
        return Status::Invalid("sim state '" + path + "' has no " + what + " " + k +
                               " (made by another version of the model); use another state= path");
      if (it->second != v)
        return Status::Invalid("sim state '" + path + "' was made for " + k + "=" + it->second +
                               ", this target has " + k + "=" + v +
                               "; use another state= path or the same parameters");
      continue;
    }
    if (file[i].second != v) {
      if (std::string(what) == "geometry figure")
        return Status::Invalid("sim state '" + path + "' has " + k + "=" + file[i].second +
                               " where this model derives " + v +
                               " (made by another version of the model); use another state= path");
      return Status::Invalid("sim state '" + path + "' was made for " + k + "=" + file[i].second +
                             ", this target has " + k + "=" + v +
                             "; use another state= path or the same parameters");
    }
  }
  if (file.size() > want.size())
    return Status::Invalid("sim state '" + path + "' has " + what + " " + file[want.size()].first +
                           " that this model does not know; use another state= path");
  return Status::Ok();
}

Result<std::unique_ptr<FILE, FileCloser>> OpenForRead(const std::string& path, uint64_t* bytes) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    const int e = errno;
    if (e == ENOENT) return Status::NotFound("sim state '" + path + "' does not exist");
    return Status::Io("sim state '" + path + "': " + std::strerror(e));
  }
  std::unique_ptr<FILE, FileCloser> owned(f);
  struct stat st;
  if (fstat(fileno(f), &st) != 0)
    return Status::Io("sim state '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return NotState(path, "a directory");
  if (!S_ISREG(st.st_mode)) return NotState(path, "not a regular file");
  *bytes = static_cast<uint64_t>(st.st_size);
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  return owned;
}

Result<Header> OpenAndCheckHeader(FILE* f, const std::string& path, uint64_t file_bytes,
                                  const SimParams& p, bool* damaged) {
  SSDLAB_ASSIGN_OR_RETURN(Header h, ReadHeader(f, path, file_bytes, damaged));
  SSDLAB_RETURN_IF_ERROR(CompareParams(path, h.params, StateParams(p), "parameter"));
  SSDLAB_RETURN_IF_ERROR(
      CompareParams(path, h.geometry, GeometryPairs(DeriveGeometry(p)), "geometry figure"));
  return h;
}

uint64_t SummaryU(const Pairs& s, const char* key) {
  for (const auto& [k, v] : s)
    if (k == key) return std::strtoull(v.c_str(), nullptr, 10);
  return 0;
}

}  // namespace

// --- VisitState: the order of fields is the format ---------------------------------------------

template <class Ar>
void Ftl::VisitState(Ar& ar) {
  // p2l is not stored: its live entries (those of valid pages) are l2p inverted, its stale ones
  // are never read (RebuildReverseMap after a load). That halves a random-mapped state.
  const uint32_t phys = static_cast<uint32_t>(p2l_.size());
  ar.Mapping(l2p_.data(), l2p_.size(), phys);
  ar.Span(vbits_.data(), vbits_.size());
  ar.Span(meta_.data(), meta_.size());
  ar.Span(erase_count_.data(), erase_count_.size());
  ar.Span(closed_seq_.data(), closed_seq_.size());
  ar.Span(head_.data(), head_.size());
  ar.Pod(min_bucket_);
  ar.Span(free_ring_.data(), free_ring_.size());
  ar.Pod(free_head_);
  ar.Pod(free_count_);
  ar.Pod(free_min_);
  ar.Span(closed_ring_.data(), closed_ring_.size());
  ar.Pod(closed_head_);
  ar.Pod(closed_tail_);
  ar.Pod(host_);
  ar.Pod(gc_);
  ar.Pod(victim_);
  ar.Pod(victim_cursor_);
  ar.Pod(victim_end_);
  ar.Pod(mapped_);
  ar.Pod(rng_);
  ar.Pod(counters_);
}

std::string Ftl::CheckLoaded() const {
  auto block_ok = [&](uint32_t b) { return b < blocks_ || b == kNone; };
  for (uint32_t b = 0; b < blocks_; ++b) {
    const BlockMeta& m = meta_[b];
    if (m.valid > ppb_ || m.state > kVictim || !block_ok(m.prev) || !block_ok(m.next))
      return "block record " + std::to_string(b);
    if (free_ring_[b] >= blocks_ || closed_ring_[b] >= blocks_) return "block pool entry";
  }
  for (uint32_t h : head_)
    if (!block_ok(h)) return "bucket list head";
  if (min_bucket_ > ppb_ || free_head_ >= blocks_ || free_count_ > blocks_ || free_min_ > blocks_ ||
      closed_head_ > closed_tail_ || mapped_ > user_pages_)
    return "pool counters";
  for (const Frontier* f : {&host_, &gc_}) {
    if (!block_ok(f->block) || f->next > ppb_ ||
        (f->block != kNone && f->base != f->block * ppb_) || (f->block == kNone && f->next != ppb_))
      return "write frontier";
  }
  if (victim_ != kNone) {
    if (victim_ >= blocks_ || victim_cursor_ < victim_ * ppb_ ||
        victim_cursor_ > (victim_ + 1) * ppb_ || victim_end_ != (victim_ + 1) * ppb_)
      return "GC victim";
  }
  return "";
}

void Ftl::RebuildReverseMap() {
  uint32_t* const p2l = p2l_.data();
  const uint32_t* const l2p = l2p_.data();
  const uint32_t n = static_cast<uint32_t>(user_pages_);
  for (uint32_t lpn = 0; lpn < n; ++lpn) {
    const uint32_t ppn = l2p[lpn];
    if (ppn != kNone) p2l[ppn] = lpn;
  }
}

uint64_t Ftl::erase_count_sum() const {
  uint64_t s = 0;
  for (uint32_t e : erase_count_) s += e;
  return s;
}

uint32_t Ftl::erase_count_max() const {
  uint32_t m = 0;
  for (uint32_t e : erase_count_) m = std::max(m, e);
  return m;
}

template <class Ar>
void LinkCalendar::VisitState(Ar& ar) {
  std::vector<Interval> live(iv_.begin() + static_cast<std::ptrdiff_t>(head_),
                             iv_.begin() + static_cast<std::ptrdiff_t>(tail_));
  ar.Vector(live);
  ar.Pod(last_);
  iv_ = std::move(live);
  head_ = 0;
  tail_ = iv_.size();
}

template <class Ar>
void SimDevice::VisitState(Ar& ar) {
  ftl_.VisitState(ar);
  ar.Span(link_free_, 2);
  shared_link_.VisitState(ar);
  ar.Pod(ctrl_free_);
  ctrl_cal_.VisitState(ar);
  ar.Span(dies_.data(), dies_.size());
  ar.Span(ch_free_.data(), ch_free_.size());
  ar.Span(ch_host_free_.data(), ch_host_free_.size());
  ar.Span(buffer_ring_.data(), buffer_ring_.size());
  ar.Pod(buffer_seq_);
  ar.Pod(host_busy_until_);
  ar.Pod(host_group_);
  ar.Pod(gc_group_);
  ar.Pod(last_gc_read_page_);
  ar.Pod(last_gc_read_ch_);
  ar.Pod(gc_credit_);
  ar.Pod(gc_ratio_);
  ar.Pod(slc_used_);
  ar.Pod(slc_pages_);
  ar.Pod(slc_folded_);
  ar.Pod(nand_reads_);
  ar.Pod(fold_seq_);
  ar.Pod(host_read_pages_);
  ar.Pod(unmapped_read_pages_);
  ar.Pod(write_hold_until_);
  ar.Pod(gc_ctrl_free_);
  ar.Pod(gc_pending_);
  ar.Pod(lazy_batch_);
  ar.Pod(noise_);
  ar.Span(streams_, kReadStreams);
  ar.Pod(stream_victim_);
  ar.Span(ahead_.data(), ahead_.size());
  ar.Pod(last_was_write_);
}

std::string SimDevice::CheckLoaded() const {
  std::string f = ftl_.CheckLoaded();
  if (!f.empty()) return f;
  for (const Die& d : dies_)
    if (d.ch >= ch_free_.size()) return "die record";
  if (last_gc_read_ch_ >= ch_free_.size()) return "GC read channel";
  for (const Group* gr : {&host_group_, &gc_group_}) {
    if (gr->count > g_.units_per_prog) return "program group";
  }
  if (host_group_.size != g_.units_per_prog && host_group_.size != g_.units_per_slc_prog)
    return "program group";
  if (stream_victim_ >= kReadStreams) return "read stream";
  return "";
}

// --- Public functions ------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> StateParams(const SimParams& p) {
  std::vector<std::pair<std::string, std::string>> out{{"preset", p.preset}};
  for (auto& kv : ParamPairs(p))
    if (kv.first != "mem_limit") out.push_back(std::move(kv));
  return out;
}

Status SaveState(const std::string& path, const SimDevice& dev, uint64_t now_ns,
                 const StateSaveOptions& o, StateIoStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  // Through a symlink to its target: the link stays a link and its target gets the state.
  SSDLAB_ASSIGN_OR_RETURN(const std::string real, ResolveStatePath(path));
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out, OutputFile::Create("state=", real));
  std::unique_ptr<XXH3_state_t, XxhDeleter> hash(XXH3_createState());
  XXH3_64bits_reset(hash.get());

  const std::string text = HeaderText(dev, now_ns);
  std::string head(kMagic, sizeof kMagic);
  PutLe<uint32_t>(&head, kStateVersion);
  PutLe<uint32_t>(&head, static_cast<uint32_t>(text.size()));
  head += text;
  PutLe<uint64_t>(&head, XXH3_64bits(head.data(), head.size()));
  XXH3_64bits_update(hash.get(), head.data(), head.size());
  out->Write(head.data(), head.size());

  std::unique_ptr<ZSTD_CCtx, CctxDeleter> cctx(ZSTD_createCCtx());
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, o.zstd_level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);  // XXH3 over the file instead
  int workers = o.zstd_workers;
  if (workers < 0)
    workers = static_cast<int>(std::min(4u, std::max(1u, std::thread::hardware_concurrency())));
  if (workers > 0)
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, workers);  // 0 if unsupported
  Writer w(out.get(), hash.get(), cctx.get());
  const_cast<SimDevice&>(dev).VisitState(w);
  SSDLAB_RETURN_IF_ERROR(w.Finish());
  std::string trailer;
  PutLe<uint64_t>(&trailer, w.body_bytes());
  XXH3_64bits_update(hash.get(), trailer.data(), 8);
  PutLe<uint64_t>(&trailer, XXH3_64bits_digest(hash.get()));
  out->Write(trailer.data(), trailer.size());
  if (Status s = out->Commit(); !s.ok()) return s.WithContext("saving the sim state");
  if (stats) {
    stats->raw_bytes = w.raw_bytes();
    stats->file_bytes = head.size() + w.body_bytes() + kTrailer;
    stats->seconds = SecondsSince(t0);
  }
  return Status::Ok();
}

Status LoadState(const std::string& path, SimDevice* dev, uint64_t* now_ns, StateIoStats* stats,
                 bool* damaged) {
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t file_bytes = 0;
  SSDLAB_ASSIGN_OR_RETURN(auto f, OpenForRead(path, &file_bytes));
  SSDLAB_ASSIGN_OR_RETURN(Header h,
                          OpenAndCheckHeader(f.get(), path, file_bytes, dev->params(), damaged));
  if (file_bytes < h.bytes + kTrailer) return Damaged(path, "no body", damaged);
  const uint64_t body = file_bytes - h.bytes - kTrailer;
  // The trailer first: a truncated file fails here without decompressing anything.
  unsigned char trailer[kTrailer];
  if (std::fseek(f.get(), static_cast<long>(file_bytes - kTrailer), SEEK_SET) != 0 ||
      std::fread(trailer, 1, kTrailer, f.get()) != kTrailer)
    return Status::Io("sim state '" + path + "': cannot read its end");
  if (GetLe<uint64_t>(trailer) != body)
    return Damaged(path, "its length does not match the recorded length", damaged);
  if (std::fseek(f.get(), static_cast<long>(h.bytes), SEEK_SET) != 0)
    return Status::Io("sim state '" + path + "': cannot seek");

  std::unique_ptr<XXH3_state_t, XxhDeleter> hash(XXH3_createState());
  XXH3_64bits_reset(hash.get());
  // The header bytes again, for the whole-file checksum (small).
  std::vector<unsigned char> head_bytes(h.bytes);
  if (std::fseek(f.get(), 0, SEEK_SET) != 0 ||
      std::fread(head_bytes.data(), 1, head_bytes.size(), f.get()) != head_bytes.size())
    return Status::Io("sim state '" + path + "': cannot read its header");
  XXH3_64bits_update(hash.get(), head_bytes.data(), head_bytes.size());

  std::unique_ptr<ZSTD_DCtx, DctxDeleter> dctx(ZSTD_createDCtx());
  Reader r(f.get(), body, hash.get(), dctx.get());
  dev->VisitState(r);
  r.End();
  XXH3_64bits_update(hash.get(), trailer, 8);
  if (GetLe<uint64_t>(trailer + 8) != XXH3_64bits_digest(hash.get())) {
    return Damaged(path, r.ok() ? "checksum mismatch" : r.problem(), damaged);
  }
  if (!r.ok()) return Damaged(path, r.problem(), damaged);
  if (std::string bad = dev->CheckLoaded(); !bad.empty())
    return Damaged(path, bad + " out of range", damaged);
  dev->RebuildAfterLoad();
  *now_ns = SummaryU(h.summary, "virtual_time_ns");
  if (stats) {
    stats->file_bytes = file_bytes;
    stats->seconds = SecondsSince(t0);
  }
  return Status::Ok();
}

Result<StateSummary> ReadStateHeader(const std::string& path, const SimParams& p, bool* damaged) {
  uint64_t file_bytes = 0;
  SSDLAB_ASSIGN_OR_RETURN(auto f, OpenForRead(path, &file_bytes));
  SSDLAB_ASSIGN_OR_RETURN(Header h, OpenAndCheckHeader(f.get(), path, file_bytes, p, damaged));
  if (file_bytes < h.bytes + kTrailer) return Damaged(path, "no body", damaged);
  StateSummary s;
  const Pairs& m = h.summary;
  s.user_pages = SummaryU(m, "user_pages");
  s.mapped_pages = SummaryU(m, "mapped_pages");
  s.host_pages = SummaryU(m, "host_pages");
  s.nand_pages = SummaryU(m, "nand_pages");
  s.gc_copies = SummaryU(m, "gc_copies");
  s.erases = SummaryU(m, "erases");
  s.free_blocks = SummaryU(m, "free_blocks");
  s.blocks = SummaryU(m, "blocks");
  s.erase_count_max = SummaryU(m, "erase_count_max");
  s.virtual_time_ns = SummaryU(m, "virtual_time_ns");
  for (const auto& [k, v] : m)
    if (k == "erase_count_mean") s.erase_count_mean = std::strtod(v.c_str(), nullptr);
  return s;
}

}  // namespace ssdlab::sim
