#include "trace/trace.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "base/strings.h"
#include "base/units.h"
#include "trace/formats.h"
#include "trace/input.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {
namespace {

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

// NAME and N of a per-CPU file name NAME.blktrace.N[.gz|.zst|.zstd] (N: decimal digits; the
// longest NAME that fits). False for any other name, and when N is beyond 64 bits.
bool SplitBlktraceName(std::string_view fname, std::string* name, uint64_t* cpu) {
  constexpr std::string_view kMid = ".blktrace.";
  for (size_t at = fname.rfind(kMid); at != std::string_view::npos;
       at = at == 0 ? std::string_view::npos : fname.rfind(kMid, at - 1)) {
    const std::string_view rest = fname.substr(at + kMid.size());
    const std::string_view digits = LeadingDigits(rest);
    const std::string_view tail = rest.substr(digits.size());
    if (digits.empty() || !(tail.empty() || tail == ".gz" || tail == ".zst" || tail == ".zstd"))
      continue;
    auto n = ParseCount(digits);
    if (!n.ok()) return false;
    *name = std::string(fname.substr(0, at));
    *cpu = n.value();
    return true;
  }
  return false;
}

// NAME.blktrace.N[.gz|.zst]: the per-CPU files of NAME, sorted by N. Empty when `path` is not
// of a blktrace set.
std::vector<std::string> BlktraceSet(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  std::string base;
  uint64_t cpu = 0;
  const std::string fname = p.filename().string();
  if (!SplitBlktraceName(fname, &base, &cpu)) {
    const bool set_named =
        !Exists(path) && (Exists(path + ".blktrace.0") || Exists(path + ".blktrace.0.zst") ||
                          Exists(path + ".blktrace.0.gz"));
    if (!set_named) return {};
    base = fname;
  }
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::vector<std::pair<uint64_t, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    std::string name;
    if (SplitBlktraceName(n, &name, &cpu) && name == base) {
      found.emplace_back(cpu, (p.parent_path() / n).string());
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  out.reserve(found.size());
  for (auto& f : found) out.push_back(f.second);
  return out;
}

// The format of the stream `in` of `path`, from its first 64 KiB, which stay buffered (nothing
// is consumed): the reader then reads the same stream from its start, so a pipe is read once.
// The formats' tests in the table's order: magic bytes, then up to 8 lines with content (CSV
// headers passed over) until one is claimed or a line is not.
Result<TraceFormat> DetectFromStream(ByteStream& in, const std::string& path) {
  SSDLAB_ASSIGN_OR_RETURN(size_t n, in.Ensure(64 * 1024));
  if (n == 0) return Status::Invalid("trace " + path + " is empty");
  for (const FormatDef& d : Formats())
    if (d.magic && d.magic(in.data(), n)) return d.format;
  std::string_view rest(in.data(), n);
  for (int i = 0; i < 8 && !rest.empty(); ++i) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = TrimBlanks(line);
    if (t.empty() || t.front() == '#') continue;
    for (const FormatDef& d : Formats())
      if (d.line && d.line(t)) return d.format;
    std::string_view f[8];
    SplitN(t, ',', f, 8);
    if (t.find(',') != std::string_view::npos && !IsNumber(f[0])) continue;  // a CSV header
    break;
  }
  return Status::Invalid("cannot tell the format of trace " + path + "; give --format (" +
                         TraceFormatNames() + ")");
}

}  // namespace

std::vector<std::string> TraceFiles(const std::string& path) {
  std::vector<std::string> set = BlktraceSet(path);
  return set.empty() ? std::vector<std::string>{path} : set;
}

Result<TraceFormat> DetectTraceFormat(const std::string& path) {
  std::vector<std::string> set = BlktraceSet(path);
  if (!set.empty()) return TraceFormat::kBlktrace;
  SSDLAB_ASSIGN_OR_RETURN(auto in, ByteStream::Open(path));
  return DetectFromStream(*in, path);
}

bool CanReread(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
}

Result<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path, const TraceOptions& o) {
  TraceFormat f = o.format;
  std::vector<std::string> set = BlktraceSet(path);
  // A file is opened once: the format is detected from the buffered start of the stream the
  // reader then reads.
  std::unique_ptr<ByteStream> in;
  if (f == TraceFormat::kAuto && !set.empty()) f = TraceFormat::kBlktrace;
  if (f != TraceFormat::kBlktrace || set.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(in, ByteStream::Open(path));
    if (f == TraceFormat::kAuto) {
      SSDLAB_ASSIGN_OR_RETURN(f, DetectFromStream(*in, path));
    }
  }
  const FormatDef* d = FindFormat(f);
  if (!d) return Status::Invalid("trace " + path + ": no reader for its format");
  if (set.empty()) set = {path};
  return d->open(set, std::move(in), f, o);
}

}  // namespace ssdlab::trace
