// fio's job files (its INI format) read the way fio reads them, and each job section turned into
// the options of one `ssdlab run`. Pure text processing: no file is opened here, no I/O.
//
// Every option of a job is either mapped (to a run flag, or to ssdlab's fixed behaviour, with a
// note where the two differ) or refused by name: nothing is ignored silently. Errors are one
// line, "FILE:LINE: [SECTION] OPTION: what is wrong".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workload/parse.h"

namespace ssdlab {

// One `name[=value]` line of a job file.
struct FioOption {
  std::string name;   // as written (an alias stays an alias: "readwrite", "blocksize")
  std::string value;  // trimmed; "" when the line has no '='
  bool has_value = false;
  int line = 0;  // 1-based
};

// A job section with the [global] options in force where it starts, global ones first (later
// options override earlier ones, as in fio).
struct FioSection {
  std::string name;
  int line = 0;  // the line of its [name] header
  std::vector<FioOption> options;
};

struct FioJobFile {
  std::string path;  // for messages
  std::vector<FioSection> jobs;
};

// Parses the text of a job file named `path` (for messages): `[section]` headers, `name=value`
// or `name` lines, whole-line comments (';' or '#'), blank lines. Invalid "PATH:LINE: ..." for a
// line that is neither, an option before any section, an `include` line, a value with '$'
// (fio's environment variables are not expanded here), or a file without a job section.
Result<FioJobFile> ParseFioJobFile(const std::string& path, std::string_view text);

// A size as fio reads it: a decimal (or 0x hexadecimal) number with an optional suffix, case
// ignored: k, kb, kib, m, mb, mib, g, gb, gib, t, tb, tib, p, pb, pib, or b. With kb_base 1024
// (fio's default) every suffix is binary ("4k" = "4kb" = "4KiB" = 4096); with kb_base 1000,
// k/kb/m/mb/... are decimal and kib/mib/... binary. Invalid on anything else ("4kk").
Result<uint64_t> ParseFioSize(std::string_view text, uint64_t kb_base = 1024);
// A time as fio reads it, in ns: a number with an optional suffix (d, h, m, min, s, sec, ms,
// msec, us, usec; case ignored); a bare number is seconds. Invalid otherwise.
Result<uint64_t> ParseFioTimeNs(std::string_view text);

// One job section as the options of one `ssdlab run`.
struct FioRun {
  std::string section;      // the section's name
  int line = 0;             // its header's line
  std::string target;       // filename= (or the default target given to the translation)
  uint64_t size_bytes = 0;  // --size; 0: as the target is
  WorkloadArgs workload;
  std::string engine = "io_uring";  // io_uring | libaio | psync
  bool buffered = true;             // fio's default is buffered I/O (direct=0)
  // Engine flags as text ("" = not given), for `ssdlab run`'s parsers.
  std::string batch_submit, batch_complete, sqpoll_cpu, cpus_allowed;
  bool sqpoll = false, hipri = false;
  bool fill_device = false;  // the whole target, once (a block device or simulated drive only)
  bool stonewall = false;    // waits for the sections before it (stonewall, wait_for_previous)
  // How fio's options were carried over where ssdlab's behaviour differs from fio's, one
  // sentence each ("ioengine=sync: run as psync (pread/pwrite at the same offsets)").
  std::vector<std::string> notes;
  // "FILE:LINE: [SECTION] OPTION" of each option given (by the name as written), for messages
  // of the checks made later (the engine's parsers, the target).
  std::map<std::string, std::string> where;
};

// The job sections of `file` to run, in order: all of them, or those named `section` when it is
// not empty. `default_target` is used for a section without filename= ("" = none: refused).
// Refuses, naming the file, the line, the section and the option: an option ssdlab does not
// know, a value it has no equivalent for, a malformed size or time, and sections fio would run
// at the same time (a section after the first without stonewall: ssdlab runs one phase at a
// time). NotFound-like Invalid when `section` names no section.
Result<std::vector<FioRun>> TranslateFioJobs(const FioJobFile& file, const std::string& section,
                                             const std::string& default_target);

// The `ssdlab run` flags equivalent to `run`, in order, e.g. {"--target", "/t/a.img", "--rw",
// "randread", ...}.
std::vector<std::string> FioRunFlags(const FioRun& run);

// The flags as one shell command line: "ssdlab run --target /t/a.img ..." (values quoted where
// a shell would split or expand them).
std::string FioRunCommandLine(const FioRun& run);

}  // namespace ssdlab
