// The blkparse trace format, blkparse's default text output (docs/trace.md); its entry in the
// formats' table is in formats.cc.
#include "trace/completion_matcher.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {
namespace {

class BlkparseReader : public TextReader {
 public:
  BlkparseReader(std::unique_ptr<ByteStream> in, TraceFormat f, const TraceOptions& o)
      : TextReader(std::move(in), f, o), event_issue_(o.event == BlkEvent::kIssue) {}

  // blkparse default output: "8,0  3  1  0.000000000  697  Q  W 223490 + 8 [proc]".
  Result<bool> Next(TraceRecord* r) override {
    if (match_.Pop(r, false)) return true;
    std::string_view line;
    for (;;) {
      SSDLAB_ASSIGN_OR_RETURN(bool more, lr_.Next(&line));
      if (!more) return match_.Pop(r, true);
      std::string_view tok[10];
      size_t n = Tokens(line, tok, 10);
      if (n == 0 || summary_) {
        ++ignored_;
        continue;
      }
      uint64_t dev;
      if (!ParseBlkDevice(tok[0], &dev) || tok[0].find(',') == std::string_view::npos) {
        if (tok[0].rfind("CPU", 0) == 0 || tok[0] == "Total") {
          summary_ = true;  // blkparse's closing statistics
          ++ignored_;
          continue;
        }
        SSDLAB_RETURN_IF_ERROR(
            Bad(Where(path_, lr_.line_number()), "expected \"MAJ,MIN CPU SEQ TIME PID ACTION\""));
        continue;
      }
      uint64_t time_ns;
      bool time_overflow = false;
      if (n < 6 || !ParseSecondsNs(tok[3], &time_ns, &time_overflow)) {
        SSDLAB_RETURN_IF_ERROR(Bad(Where(path_, lr_.line_number()),
                                   time_overflow ? Overflows("time", tok[3], "s", kTimeNs)
                                                 : "expected a time in seconds in field 4"));
        continue;
      }
      std::string_view act = tok[5];
      const bool is_c = act == "C";
      const bool is_io = act == (event_issue_ ? "D" : "Q");
      const bool is_d = !event_issue_ && act == "D";
      if (!is_c && !is_io && !is_d) {
        ++ignored_;
        continue;
      }
      uint64_t sector = 0, nsect = 0;
      if (n < 10 || tok[8] != "+" || !ParseU64(tok[7], &sector) || !ParseU64(tok[9], &nsect)) {
        ++ignored_;  // no sector range: flushes, barriers
        continue;
      }
      if (is_c) {
        match_.Complete(dev, sector, time_ns);
        continue;
      }
      if (is_d) {
        match_.Issue(dev, sector, time_ns);
        continue;
      }
      std::string_view rwbs = tok[6];
      TraceRecord rec;
      if (rwbs.find('D') != std::string_view::npos) {
        rec.dir = Direction::kTrim;
      } else if (rwbs.find('W') != std::string_view::npos) {
        rec.dir = Direction::kWrite;
      } else if (rwbs.find('R') != std::string_view::npos) {
        rec.dir = Direction::kRead;
      } else {
        ++ignored_;
        continue;
      }
      if (nsect == 0 || nsect > UINT32_MAX / 512) {
        ++ignored_;
        continue;
      }
      if (filter_ && dev != filter_dev_) {
        ++filtered_;
        continue;
      }
      rec.time_ns = time_ns;
      rec.bytes = static_cast<uint32_t>(nsect * 512);
      if (!Scaled(sector, 512, &rec.offset_bytes) || !EndFits(rec)) {
        SSDLAB_RETURN_IF_ERROR(Bad(Where(path_, lr_.line_number()),
                                   Overflows("sector", tok[7], "512-B sectors", kEndOffset)));
        continue;
      }
      rec.device = dev;
      match_.Add(rec, sector);
      if (match_.Pop(r, false)) return true;
    }
  }

 private:
  // Not called: Next reads the lines itself (a record is complete only with its completion).
  LineResult ParseLine(std::string_view, bool, TraceRecord*, std::string* why) override {
    *why = "internal: blkparse lines are read by Next";
    return LineResult::kBad;
  }
  Status SetDeviceFilter(const std::string& id) override {
    if (!ParseBlkDevice(id, &filter_dev_)) {
      return Status::Invalid("--device-id '" + id + "' is not a device (MAJ,MIN) (" +
                             TraceFormatName(format_) + " traces number their devices)");
    }
    return Status::Ok();
  }

  const bool event_issue_;
  bool summary_ = false;
  CompletionMatcher match_;
};

}  // namespace

// "MAJ,MIN CPU SEQ TIME ...": a device with a comma, a time in seconds with a dot.
bool IsBlkparseLine(std::string_view t) {
  if (t.find(',') == std::string_view::npos) return false;
  std::string_view tok[10];
  const size_t nt = Tokens(t, tok, 10);
  uint64_t dummy;
  return nt >= 6 && tok[0].find(',') != std::string_view::npos && ParseBlkDevice(tok[0], &dummy) &&
         tok[3].find('.') != std::string_view::npos;
}

Result<std::unique_ptr<TraceReader>> OpenBlkparse(const std::vector<std::string>& files,
                                                  std::unique_ptr<ByteStream> in, TraceFormat f,
                                                  const TraceOptions& o) {
  return OpenText<BlkparseReader>(std::move(in), f, o);
}

}  // namespace ssdlab::trace
