// The blktrace binary trace format: one file per CPU, NAME.blktrace.N, merged in time order
// (docs/trace.md); its entry in the formats' table is in formats.cc.
#include <linux/blktrace_api.h>

#include <cstring>
#include <queue>

#include "trace/completion_matcher.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {
namespace {

// ---- blktrace binary -----------------------------------------------------------------------

constexpr uint32_t kBlkMagic = BLK_IO_TRACE_MAGIC;

uint32_t Swap32(uint32_t v) { return __builtin_bswap32(v); }
uint64_t Swap64(uint64_t v) { return __builtin_bswap64(v); }
uint16_t Swap16(uint16_t v) { return __builtin_bswap16(v); }

// One per-CPU file: its events in file order.
struct CpuFile {
  std::unique_ptr<ByteStream> in;
  bool swap = false;
  bool known_endian = false;
  blk_io_trace cur{};  // current event (host byte order)
  uint64_t at = 0;     // its byte offset in the (decompressed) file
  bool have = false;
};

class BlktraceReader : public TraceReader {
 public:
  // `first`: the stream of paths[0] when already open (null: opened here).
  Status Init(const std::vector<std::string>& paths, const TraceOptions& o,
              std::unique_ptr<ByteStream> first = nullptr) {
    format_ = TraceFormat::kBlktrace;
    files_ = paths;
    skip_bad_ = o.skip_bad;
    event_ = o.event == BlkEvent::kIssue ? __BLK_TA_ISSUE : __BLK_TA_QUEUE;
    if (!o.device_id.empty()) {
      if (!ParseBlkDevice(o.device_id, &filter_dev_)) {
        return Status::Invalid("--device-id '" + o.device_id +
                               "' is not a device (MAJ,MIN or MAJ:MIN)");
      }
      filter_ = true;
    }
    for (const auto& p : paths) {
      std::unique_ptr<ByteStream> in = std::move(first);
      if (!in) {
        SSDLAB_ASSIGN_OR_RETURN(in, ByteStream::Open(p));
      }
      CpuFile c;
      c.in = std::move(in);
      cpus_.push_back(std::move(c));
    }
    for (size_t i = 0; i < cpus_.size(); ++i) {
      SSDLAB_RETURN_IF_ERROR(Advance(i));
      if (cpus_[i].have) heap_.push({cpus_[i].cur.time, i});
    }
    return Status::Ok();
  }

  Result<bool> Next(TraceRecord* r) override {
    if (match_.Pop(r, false)) return true;
    while (!heap_.empty()) {
      auto [t, i] = heap_.top();
      heap_.pop();
      const blk_io_trace e = cpus_[i].cur;
      const uint64_t at = cpus_[i].at;
      SSDLAB_RETURN_IF_ERROR(Advance(i));
      if (cpus_[i].have) heap_.push({cpus_[i].cur.time, i});
      SSDLAB_RETURN_IF_ERROR(Handle(e, i, at));
      if (match_.Pop(r, false)) return true;
    }
    return match_.Pop(r, true);
  }

 private:
  // Takes event e, read from file i at byte `at`; an I/O whose sector overflows 64-bit byte
  // offsets is a malformed record.
  Status Handle(const blk_io_trace& e, size_t i, uint64_t at) {
    const uint32_t act = e.action & 0xffff;
    const uint32_t cat = e.action >> BLK_TC_SHIFT;
    if ((cat & BLK_TC_NOTIFY) || act == __BLK_TA_DRV_DATA) {
      ++ignored_;
      return Status::Ok();
    }
    if (act == __BLK_TA_COMPLETE) {
      match_.Complete(e.device, e.sector, e.time);
      return Status::Ok();
    }
    if (act == __BLK_TA_ISSUE && event_ == __BLK_TA_QUEUE) {
      match_.Issue(e.device, e.sector, e.time);
      return Status::Ok();
    }
    if (act != event_ || e.bytes == 0) {
      ++ignored_;
      return Status::Ok();
    }
    if (filter_ && e.device != filter_dev_) {
      ++filtered_;
      return Status::Ok();
    }
    TraceRecord rec;
    rec.time_ns = e.time;
    rec.bytes = e.bytes;
    if (!Scaled(e.sector, 512, &rec.offset_bytes) || !EndFits(rec)) {
      return Bad(files_[i] + ": byte " + std::to_string(at),
                 Overflows("sector", std::to_string(e.sector), "512-B sectors", kEndOffset));
    }
    rec.dir = (cat & BLK_TC_DISCARD) ? Direction::kTrim
              : (cat & BLK_TC_WRITE) ? Direction::kWrite
                                     : Direction::kRead;
    rec.device = e.device;
    match_.Add(rec, e.sector);
    return Status::Ok();
  }

  // Reads the next event of file i into cpus_[i].cur (have = false at its end).
  Status Advance(size_t i) {
    CpuFile& c = cpus_[i];
    for (;;) {
      c.have = false;
      SSDLAB_ASSIGN_OR_RETURN(size_t n, c.in->Ensure(sizeof(blk_io_trace)));
      if (n == 0) return Status::Ok();
      const uint64_t at = c.in->position();
      if (n < sizeof(blk_io_trace)) {
        c.in->Consume(n);
        return Bad(c.in->path() + ": byte " + std::to_string(at),
                   "truncated record (" + std::to_string(n) + " of " +
                       std::to_string(sizeof(blk_io_trace)) + " bytes)");
      }
      std::memcpy(&c.cur, c.in->data(), sizeof(blk_io_trace));
      c.at = at;
      if (!c.known_endian) {
        c.swap = (c.cur.magic & 0xffffff00) != kBlkMagic &&
                 (Swap32(c.cur.magic) & 0xffffff00) == kBlkMagic;
        c.known_endian = true;
      }
      if (c.swap) {
        blk_io_trace& t = c.cur;
        t.magic = Swap32(t.magic);
        t.sequence = Swap32(t.sequence);
        t.time = Swap64(t.time);
        t.sector = Swap64(t.sector);
        t.bytes = Swap32(t.bytes);
        t.action = Swap32(t.action);
        t.pid = Swap32(t.pid);
        t.device = Swap32(t.device);
        t.cpu = Swap32(t.cpu);
        t.error = Swap16(t.error);
        t.pdu_len = Swap16(t.pdu_len);
      }
      if ((c.cur.magic & 0xffffff00) != kBlkMagic) {
        // Lost framing: nothing after this point can be trusted.
        c.in->Consume(n);
        while (true) {
          SSDLAB_ASSIGN_OR_RETURN(size_t m, c.in->Ensure(ByteStream::kMaxWant));
          if (m == 0) break;
          c.in->Consume(m);
        }
        return Bad(c.in->path() + ": byte " + std::to_string(at),
                   "not a blktrace record (bad magic); the rest of this file is skipped");
      }
      const size_t total = sizeof(blk_io_trace) + c.cur.pdu_len;
      SSDLAB_ASSIGN_OR_RETURN(size_t have, c.in->Ensure(total));
      if (have < total) {
        c.in->Consume(have);
        return Bad(c.in->path() + ": byte " + std::to_string(at),
                   "truncated record (payload of " + std::to_string(c.cur.pdu_len) + " bytes)");
      }
      c.in->Consume(total);
      c.have = true;
      return Status::Ok();
    }
  }

  struct HeapItem {
    uint64_t t;
    size_t i;
    bool operator>(const HeapItem& o) const { return t != o.t ? t > o.t : i > o.i; }
  };
  std::vector<CpuFile> cpus_;
  std::priority_queue<HeapItem, std::vector<HeapItem>, std::greater<HeapItem>> heap_;
  uint32_t event_ = __BLK_TA_QUEUE;
  bool filter_ = false;
  uint64_t filter_dev_ = 0;
  CompletionMatcher match_;
};

}  // namespace

bool IsBlktraceMagic(const char* d, size_t n) {
  if (n < 4) return false;
  uint32_t m;
  std::memcpy(&m, d, 4);
  return (m & 0xffffff00) == kBlkMagic || (Swap32(m) & 0xffffff00) == kBlkMagic;
}

Result<std::unique_ptr<TraceReader>> OpenBlktrace(const std::vector<std::string>& files,
                                                  std::unique_ptr<ByteStream> in, TraceFormat f,
                                                  const TraceOptions& o) {
  auto r = std::make_unique<BlktraceReader>();
  SSDLAB_RETURN_IF_ERROR(r->Init(files, o, std::move(in)));
  return std::unique_ptr<TraceReader>(std::move(r));
}

}  // namespace ssdlab::trace
