// The table of trace formats (formats.cc), one entry per format: its name, its description for
// help texts, how it is detected from a trace's content, and its reader (each in its own file,
// format_NAME.cc; a CSV format gives only its line parser, read by text_reader.h's CsvReader).
// Not exported beyond src/trace/; trace.h has the public names.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "trace/input.h"
#include "trace/text_reader.h"
#include "trace/trace.h"

namespace ssdlab::trace {

// Opens a format's reader. `files`: what reading opens (a blktrace set: every per-CPU file;
// else the one path); `in`: the stream of files[0] when already open (always, for a text
// format; null: the reader opens it); `f`: the format detected or given.
using OpenReaderFn = Result<std::unique_ptr<TraceReader>> (*)(const std::vector<std::string>& files,
                                                              std::unique_ptr<ByteStream> in,
                                                              TraceFormat f, const TraceOptions& o);

struct FormatDef {
  TraceFormat format;
  const char* name;         // as --format takes it
  const char* alias;        // another name --format takes (null: none)
  const char* description;  // one line, for help texts
  // Detection from the first bytes (binary formats), or from a line with content (trimmed, not
  // a comment; the first one that is not a CSV header); null: not so detected. The table's
  // order is the order of the tests: the first format that claims a line has it.
  bool (*magic)(const char* data, size_t n);
  bool (*line)(std::string_view t);
  OpenReaderFn open;
};

// Every format, in the order TraceFormatNames lists them ("auto" aside).
const std::vector<FormatDef>& Formats();
// The entry of f; null for kAuto.
const FormatDef* FindFormat(TraceFormat f);

// ---- each format's parts (format_NAME.cc) --------------------------------------------------

bool IsBlktraceMagic(const char* data, size_t n);
Result<std::unique_ptr<TraceReader>> OpenBlktrace(const std::vector<std::string>& files,
                                                  std::unique_ptr<ByteStream> in, TraceFormat f,
                                                  const TraceOptions& o);
bool IsBlkparseLine(std::string_view t);
Result<std::unique_ptr<TraceReader>> OpenBlkparse(const std::vector<std::string>& files,
                                                  std::unique_ptr<ByteStream> in, TraceFormat f,
                                                  const TraceOptions& o);
bool IsFioV2Line(std::string_view t);
bool IsFioV3Line(std::string_view t);
Result<std::unique_ptr<TraceReader>> OpenFio(const std::vector<std::string>& files,
                                             std::unique_ptr<ByteStream> in, TraceFormat f,
                                             const TraceOptions& o);
bool IsMsrLine(std::string_view t);
LineResult ParseMsrCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why);
bool IsAlibabaLine(std::string_view t);
LineResult ParseAlibabaCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why);
bool IsTencentLine(std::string_view t);
LineResult ParseTencentCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why);
bool IsSpcLine(std::string_view t);
LineResult ParseSpcCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why);

}  // namespace ssdlab::trace
