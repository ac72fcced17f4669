// Block I/O traces: one record per I/O, read as a stream in constant memory whatever the trace's
// size, from plain, gzip or zstd files (trace/input.h). One reader per format (trace/format_*.cc);
// the format is detected from the content (magic bytes, first line) or given. docs/trace.md
// describes each format, its units and how its fields map to a TraceRecord.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "workload/spec.h"

namespace ssdlab::trace {

// Every reader converts a record's fields to ns and bytes with overflow checks: a record whose
// time in ns, byte offset or end (offset + bytes) does not fit 64 bits is malformed (an error
// naming the file, the line or byte offset, and the field). So offset_bytes + bytes never wraps.
struct TraceRecord {
  uint64_t time_ns = 0;  // since the trace's own origin (as recorded, not normalised)
  uint64_t offset_bytes = 0;
  uint32_t bytes = 0;
  Direction dir = Direction::kRead;
  uint64_t device = 0;       // device, disk, volume or ASU number (format-specific; docs/trace.md)
  int64_t response_ns = -1;  // recorded response time, -1 when the trace has none
};

// The formats (their names and descriptions: the formats' table, trace/formats.cc).
enum class TraceFormat : uint8_t {
  kAuto,
  kBlktrace,
  kBlkparse,
  kFioV2,
  kFioV3,
  kMsr,
  kAlibaba,
  kTencent,
  kSpc,
};
// The names, descriptions, detection and readers of the formats are one table (trace/formats.cc);
// these read it. The format's name as --format takes it ("auto" for kAuto).
const char* TraceFormatName(TraceFormat f);
// A name of TraceFormatNames (or "fio": fio-v2, whose reader follows the header's version).
Result<TraceFormat> ParseTraceFormat(const std::string& name);
// The names accepted by ParseTraceFormat, comma-separated, "auto" first (for help and errors).
std::string TraceFormatNames();
// Every format (not kAuto) with its name and a one-line description, for help texts.
struct TraceFormatInfo {
  TraceFormat format;
  const char* name;
  const char* description;
};
std::vector<TraceFormatInfo> TraceFormatTable();

enum class BlkEvent : uint8_t { kQueue, kIssue };  // blktrace Q or D events

struct TraceOptions {
  TraceFormat format = TraceFormat::kAuto;
  BlkEvent event = BlkEvent::kQueue;  // blktrace/blkparse: which event is the I/O
  // Only records of this device / disk / volume / ASU (fio: the file name; blktrace and
  // blkparse: "MAJ,MIN" or "MAJ:MIN"). Empty: all.
  std::string device_id;
  // Malformed lines (or records) tolerated and counted; one more is an error.
  uint64_t skip_bad = 0;
};

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // The next record in file order (blktrace: merged over the per-CPU files in time order);
  // false at the end. Errors: Invalid naming the file and line (or byte offset) of a malformed
  // record beyond the --skip-bad budget, or damaged compressed data; Io for read failures.
  virtual Result<bool> Next(TraceRecord* r) = 0;
  TraceFormat format() const { return format_; }
  // What was opened: the file, or the per-CPU files of a blktrace.
  const std::vector<std::string>& files() const { return files_; }
  uint64_t skipped() const { return skipped_; }    // malformed, tolerated by skip_bad
  uint64_t filtered() const { return filtered_; }  // other devices (device_id)
  // Events that are not I/Os of the chosen kind (file actions, flushes, other blktrace
  // events, blkparse summaries), not counted as records.
  uint64_t ignored() const { return ignored_; }

 protected:
  // Counts a malformed record: Ok while within the budget, else the error `where: why`.
  Status Bad(const std::string& where, const std::string& why);
  TraceFormat format_ = TraceFormat::kAuto;
  std::vector<std::string> files_;
  uint64_t skip_bad_ = 0;
  uint64_t skipped_ = 0, filtered_ = 0, ignored_ = 0;
};

// Detects the format of `path` (or of the blktrace set it belongs to) from its content.
// Errors: NotFound, Io, Invalid ("cannot tell the format of ...; give --format").
Result<TraceFormat> DetectTraceFormat(const std::string& path);

// The files reading `path` opens: when it names a blktrace set (NAME.blktrace.N, or NAME when
// NAME.blktrace.0 exists), every per-CPU file NAME.blktrace.* beside it; else `path` itself.
std::vector<std::string> TraceFiles(const std::string& path);

// Whether `path` can be read more than once: a regular file (or a block device), not a pipe,
// FIFO, socket or other character device (e.g. /dev/stdin on a pipe). A missing path: true
// (opening it reports that).
bool CanReread(const std::string& path);

// Opens a trace, reading it once from its start (the format is detected from the start of the
// stream the reader goes on reading, so a pipe works). For blktrace, `path` may be one per-CPU file
// (NAME.blktrace.N, possibly compressed), or NAME when NAME.blktrace.0 exists: every
// NAME.blktrace.* is read.
Result<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path, const TraceOptions& o);

}  // namespace ssdlab::trace
