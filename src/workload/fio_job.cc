#include "workload/fio_job.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>

#include "base/strings.h"
#include "base/units.h"

namespace ssdlab {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// fio's option names ssdlab reads, each with its aliases (the first is the canonical name).
constexpr std::array<std::array<const char*, 3>, 50> kKnown = {{
    {"filename", nullptr, nullptr},
    {"size", nullptr, nullptr},
    {"offset", nullptr, nullptr},
    {"direct", nullptr, nullptr},
    {"buffered", nullptr, nullptr},
    {"rw", "readwrite", nullptr},
    {"rwmixread", nullptr, nullptr},
    {"rwmixwrite", nullptr, nullptr},
    {"bs", "blocksize", nullptr},
    {"bssplit", nullptr, nullptr},
    {"blocksize_range", "bsrange", nullptr},
    {"iodepth", nullptr, nullptr},
    {"numjobs", nullptr, nullptr},
    {"runtime", "timeout", nullptr},
    {"time_based", nullptr, nullptr},
    {"ramp_time", nullptr, nullptr},
    {"rate_iops", nullptr, nullptr},
    {"random_distribution", nullptr, nullptr},
    {"randrepeat", nullptr, nullptr},
    {"randseed", nullptr, nullptr},
    {"norandommap", nullptr, nullptr},
    {"io_size", "io_limit", nullptr},
    {"number_ios", nullptr, nullptr},
    {"ioengine", nullptr, nullptr},
    {"iodepth_batch_submit", "iodepth_batch", nullptr},
    {"iodepth_batch_complete_min", "iodepth_batch_complete", nullptr},
    {"iodepth_batch_complete_max", nullptr, nullptr},
    {"fixedbufs", nullptr, nullptr},
    {"registerfiles", nullptr, nullptr},
    {"hipri", nullptr, nullptr},
    {"sqthread_poll", nullptr, nullptr},
    {"sqthread_poll_cpu", nullptr, nullptr},
    {"thread", nullptr, nullptr},
    {"cpus_allowed", nullptr, nullptr},
    {"cpus_allowed_policy", nullptr, nullptr},
    {"zero_buffers", nullptr, nullptr},
    {"refill_buffers", nullptr, nullptr},
    {"buffer_compress_percentage", nullptr, nullptr},
    {"dedupe_percentage", nullptr, nullptr},
    {"verify", nullptr, nullptr},
    {"do_verify", nullptr, nullptr},
    {"group_reporting", nullptr, nullptr},
    {"fill_device", "fill_fs", nullptr},
    {"stonewall", "wait_for_previous", nullptr},
    {"new_group", nullptr, nullptr},
    {"name", nullptr, nullptr},
    {"description", nullptr, nullptr},
    {"kb_base", nullptr, nullptr},
    {"trim_percentage", nullptr, nullptr},  // refused by value below (verify's trims)
    {"unified_rw_reporting", nullptr, nullptr},
}};

// The canonical name of an option, or "" when ssdlab does not read it.
std::string Canonical(const std::string& name) {
  for (const auto& k : kKnown)
    for (const char* n : k)
      if (n && name == n) return k[0];
  return "";
}

// fio's verify methods that ssdlab checks with its own header and checksum.
constexpr std::array<const char*, 12> kVerifyMethods = {"md5",   "crc64",  "crc32c", "crc32c-intel",
                                                        "crc32", "crc16",  "crc7",   "xxhash",
                                                        "sha1",  "sha256", "sha512", "meta"};

// A share with at most four decimals: "33.3333", "50".
std::string FormatPct(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", p);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// A duration as text that ParseDurationNs reads back: "30s", "500ms", "250us", "7ns".
std::string CompactNs(uint64_t ns) {
  if (ns % kNsPerS == 0) return std::to_string(ns / kNsPerS) + "s";
  if (ns % kNsPerMs == 0) return std::to_string(ns / kNsPerMs) + "ms";
  if (ns % kNsPerUs == 0) return std::to_string(ns / kNsPerUs) + "us";
  return std::to_string(ns) + "ns";
}

// One job section into one FioRun. Options are looked up by canonical name; the last given
// wins, as in fio.
class JobTranslator {
 public:
  JobTranslator(const FioJobFile& file, const FioSection& job, const std::string& default_target)
      : file_(file), job_(job), default_target_(default_target) {}

  Result<FioRun> Translate() {
    run_.section = job_.name;
    run_.line = job_.line;
    SSDLAB_RETURN_IF_ERROR(Collect());
    SSDLAB_RETURN_IF_ERROR(KbBase());
    SSDLAB_RETURN_IF_ERROR(Target());
    SSDLAB_RETURN_IF_ERROR(Region());
    SSDLAB_RETURN_IF_ERROR(Mode());
    SSDLAB_RETURN_IF_ERROR(BlockSizes());
    SSDLAB_RETURN_IF_ERROR(Depth());
    SSDLAB_RETURN_IF_ERROR(Amount());
    SSDLAB_RETURN_IF_ERROR(Pacing());
    SSDLAB_RETURN_IF_ERROR(Engine());
    SSDLAB_RETURN_IF_ERROR(Data());
    SSDLAB_RETURN_IF_ERROR(Verify());
    SSDLAB_RETURN_IF_ERROR(Grouping());
    // The same check `run` makes of its flags: anything left is named with the section.
    auto resolved = ResolveWorkload(run_.workload, uint64_t{1} << 50, 1);
    if (!resolved.ok())
      return Status::Invalid(At(job_.line) + " [" + job_.name +
                             "]: " + resolved.status().message());
    return run_;
  }

 private:
  std::string At(int line) const { return file_.path + ":" + std::to_string(line) + ":"; }
  std::string Where(const FioOption& o) const {
    return At(o.line) + " [" + job_.name + "] " + o.name;
  }
  Status Bad(const FioOption& o, const std::string& why) const {
    return Status::Invalid(Where(o) + ": " + why);
  }
  Status BadValue(const FioOption& o, const std::string& why) const {
    return Bad(o, "'" + o.value + "' " + why);
  }
  const FioOption* Get(const std::string& canonical) const {
    auto it = last_.find(canonical);
    return it == last_.end() ? nullptr : &it->second;
  }
  void Note(const std::string& n) { run_.notes.push_back(n); }

  Result<bool> Bool(const std::string& name, bool dflt) const {
    const FioOption* o = Get(name);
    if (!o) return dflt;
    if (!o->has_value || o->value == "1") return true;
    if (o->value == "0") return false;
    return BadValue(*o, "is not 0 or 1");
  }
  Result<std::optional<uint64_t>> Count(const std::string& name, bool positive) const {
    const FioOption* o = Get(name);
    if (!o) return std::optional<uint64_t>();
    auto v = ParseCount(o->value);
    if (!v.ok()) return BadValue(*o, "is not a whole number");
    if (positive && v.value() == 0) return BadValue(*o, "must be at least 1");
    return std::optional<uint64_t>(v.value());
  }
  Result<std::optional<uint64_t>> Percent(const std::string& name) const {
    SSDLAB_ASSIGN_OR_RETURN(auto v, Count(name, false));
    if (v && *v > 100) return BadValue(*Get(name), "is not a percentage from 0 to 100");
    return v;
  }
  Result<std::optional<uint64_t>> Size(const std::string& name) const {
    const FioOption* o = Get(name);
    if (!o) return std::optional<uint64_t>();
    auto v = ParseFioSize(o->value, kb_base_);
    if (!v.ok()) return BadValue(*o, "is not a size (" + v.status().message() + ")");
    return std::optional<uint64_t>(v.value());
  }
  Result<std::optional<uint64_t>> Time(const std::string& name) const {
    const FioOption* o = Get(name);
    if (!o) return std::optional<uint64_t>();
    auto v = ParseFioTimeNs(o->value);
    if (!v.ok()) return BadValue(*o, "is not a time (" + v.status().message() + ")");
    return std::optional<uint64_t>(v.value());
  }
  // A size or a percentage ("25%") of the target.
  struct Position {
    bool pct = false;
    double value = 0;  // bytes or percent
  };
  Result<std::optional<Position>> SizeOrPercent(const std::string& name) const {
    const FioOption* o = Get(name);
    if (!o) return std::optional<Position>();
    if (!o->value.empty() && o->value.back() == '%') {
      auto p = ParsePercent(o->value);
      if (!p.ok()) return BadValue(*o, "is not a percentage from 0 to 100");
      return std::optional<Position>(Position{true, p.value()});
    }
    SSDLAB_ASSIGN_OR_RETURN(auto b, Size(name));
    return std::optional<Position>(Position{false, static_cast<double>(*b)});
  }

  Status Collect() {
    for (const FioOption& o : job_.options) {
      std::string c = Canonical(o.name);
      if (c.empty())
        return Bad(o,
                   "not an fio option ssdlab reads (the options it reads, and what each "
                   "becomes: docs/run.md, \"fio job files\")");
      last_[c] = o;
      if (c == "rwmixread" || c == "rwmixwrite") last_mix_ = c;
      if (c == "direct" || c == "buffered") last_direct_ = c;
      run_.where[o.name] = Where(o);
    }
    return Status::Ok();
  }

  Status KbBase() {
    SSDLAB_ASSIGN_OR_RETURN(auto kb, Count("kb_base", true));
    if (kb && *kb != 1024 && *kb != 1000) return BadValue(*Get("kb_base"), "is not 1024 or 1000");
    if (kb) kb_base_ = *kb;
    return Status::Ok();
  }

  Status Target() {
    const FioOption* f = Get("filename");
    run_.target = f ? f->value : default_target_;
    if (run_.target.empty()) {
      if (f) return BadValue(*f, "names no file");
      return Status::Invalid(At(job_.line) + " [" + job_.name +
                             "] filename: not given (name the target in the job or with --target)");
    }
    if (f && f->value.rfind("sim:", 0) != 0 && f->value.find(':') != std::string::npos)
      return BadValue(*f, "names several files (fio's ':' list); ssdlab runs one target per job");
    sim_ = run_.target.rfind("sim:", 0) == 0;
    SSDLAB_ASSIGN_OR_RETURN(run_.fill_device, Bool("fill_device", false));
    if (run_.fill_device && (Get("size") || Get("io_size") || Get("offset")))
      return Bad(*Get("fill_device"), "with size=, offset= or io_size=: give one or the other");
    if (run_.fill_device)
      Note(
          "fill_device=1: the whole target once (refused on a regular file, whose filesystem "
          "fio would fill)");
    return Status::Ok();
  }

  // size= and offset= into --size and --range.
  Status Region() {
    SSDLAB_ASSIGN_OR_RETURN(auto size, SizeOrPercent("size"));
    SSDLAB_ASSIGN_OR_RETURN(auto offset, SizeOrPercent("offset"));
    if (size && !size->pct && size->value == 0) return BadValue(*Get("size"), "is empty");
    const bool pct = (size && size->pct) || (offset && offset->pct);
    if (pct && ((size && !size->pct) || (offset && !offset->pct && offset->value != 0)))
      return Bad(*Get(size && size->pct ? "offset" : "size"),
                 "mixes a size with a percentage in size= and offset=: give both as "
                 "percentages or both as sizes");
    const double begin = offset ? offset->value : 0;
    if (pct) {
      const double end = size ? begin + size->value : 100;
      if (end > 100) return Bad(*Get("size"), "reaches beyond 100% of the target");
      run_.workload.range = FormatNumber(begin) + "%-" + FormatNumber(end) + "%";
      return Status::Ok();
    }
    const auto b = static_cast<uint64_t>(begin);
    if (size) {
      run_.size_bytes = b + static_cast<uint64_t>(size->value);
      if (b) run_.workload.range = CompactBytes(b) + "-" + CompactBytes(run_.size_bytes);
    } else if (b) {
      run_.workload.range = CompactBytes(b) + "-100%";
    }
    return Status::Ok();
  }

  Status Mode() {
    const FioOption* rw = Get("rw");
    std::string mode = rw ? rw->value : "read";  // fio's default
    if (mode == "readwrite") mode = "rw";
    if (rw && mode.find(':') != std::string::npos)
      return BadValue(*rw, "has an offset modifier (':N'), which ssdlab has no equivalent for");
    static constexpr std::array<const char*, 8> kModes = {"read", "write",  "randread", "randwrite",
                                                          "rw",   "randrw", "trim",     "randtrim"};
    if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end())
      return BadValue(*rw,
                      "has no ssdlab equivalent (read, write, randread, randwrite, rw, "
                      "readwrite, randrw, trim, randtrim)");
    run_.workload.rw = mode;
    random_ = mode.rfind("rand", 0) == 0;
    writes_ = mode != "read" && mode != "randread";
    SSDLAB_ASSIGN_OR_RETURN(auto rd, Percent("rwmixread"));
    SSDLAB_ASSIGN_OR_RETURN(auto wr, Percent("rwmixwrite"));
    if (!rd && !wr) return Status::Ok();
    const uint64_t read_pct = last_mix_ == "rwmixread" ? *rd : 100 - *wr;
    if (mode == "rw" || mode == "randrw") {
      run_.workload.rwmix_read = std::to_string(read_pct);
    } else {
      Note(Get(last_mix_)->name + "=" + Get(last_mix_)->value + " does not apply to rw=" + mode +
           " (fio ignores it too)");
    }
    return Status::Ok();
  }

  Status BlockSizes() {
    SSDLAB_ASSIGN_OR_RETURN(auto bs, Size("bs"));
    if (const FioOption* o = Get("bs"); o && o->value.find(',') != std::string::npos)
      return BadValue(*o,
                      "gives reads and writes different sizes, which ssdlab has no "
                      "equivalent for");
    if (bs && *bs == 0) return BadValue(*Get("bs"), "is empty");
    single_bs_ = bs ? *bs : 4096;
    run_.workload.bs = CompactBytes(single_bs_);
    const FioOption* split = Get("bssplit");
    const FioOption* range = Get("blocksize_range");
    if (split && range) return Bad(*range, "with bssplit=: give one or the other");
    if (split) return BsSplit(*split);
    if (range) return BsRange(*range);
    return Status::Ok();
  }

  // bssplit=4k/50:8k/30:16k/ (the shares not given split the rest equally).
  Status BsSplit(const FioOption& o) {
    if (o.value.find(',') != std::string::npos)
      return BadValue(o,
                      "gives reads and writes different mixes, which ssdlab has no "
                      "equivalent for");
    std::vector<std::pair<uint64_t, double>> parts;
    double given = 0;
    int blank = 0;
    for (const std::string& part : Split(o.value, ':')) {
      auto slash = part.find('/');
      auto bytes = ParseFioSize(part.substr(0, slash), kb_base_);
      if (!bytes.ok() || bytes.value() == 0) return Bad(o, "'" + part + "' is not SIZE/PERCENT");
      double pct = -1;
      if (slash != std::string::npos && slash + 1 < part.size()) {
        auto p = ParsePercent(part.substr(slash + 1));
        if (!p.ok()) return Bad(o, "'" + part + "' is not SIZE/PERCENT");
        pct = p.value();
        given += pct;
      } else {
        ++blank;
      }
      parts.emplace_back(bytes.value(), pct);
    }
    if (given > 100.01 || (blank == 0 && std::fabs(given - 100) > 0.01))
      return BadValue(o, "has shares that add up to " + FormatNumber(given) + "%, not 100%");
    std::string text;
    for (auto& [bytes, pct] : parts) {
      if (pct < 0) pct = (100 - given) / blank;
      text += (text.empty() ? "" : ",") + CompactBytes(bytes) + ":" + FormatPct(pct);
    }
    run_.workload.bs = text;
    single_bs_ = parts.size() == 1 ? parts[0].first : 0;
    return Status::Ok();
  }

  // blocksize_range=4k-16k: an equal share of each multiple of the smallest size.
  Status BsRange(const FioOption& o) {
    if (o.value.find(',') != std::string::npos)
      return BadValue(o,
                      "gives reads and writes different ranges, which ssdlab has no "
                      "equivalent for");
    auto dash = o.value.find_first_of("-:");
    auto lo = ParseFioSize(o.value.substr(0, dash), kb_base_);
    auto hi = dash == std::string::npos ? lo : ParseFioSize(o.value.substr(dash + 1), kb_base_);
    if (!lo.ok() || !hi.ok() || lo.value() == 0 || hi.value() < lo.value())
      return BadValue(o, "is not MIN-MAX (e.g. 4k-64k)");
    const uint64_t n = hi.value() / lo.value();
    if (n > 64) return BadValue(o, "spans more than 64 multiples of its smallest size");
    single_bs_ = n == 1 ? lo.value() : 0;
    std::string text;
    double given = 0;
    for (uint64_t i = 1; i <= n; ++i) {
      double pct = i == n ? 100 - given : std::floor(100.0 / n * 1e4) / 1e4;
      given += pct;
      text += (text.empty() ? "" : ",") + CompactBytes(i * lo.value()) + (n > 1 ? ":" : "") +
              (n > 1 ? FormatPct(pct) : "");
    }
    run_.workload.bs = text;
    if (n > 1)
      Note(o.name + "=" + o.value + ": an equal share of each multiple of " +
           CompactBytes(lo.value()) + " up to " + CompactBytes(n * lo.value()) +
           " (fio draws the sizes differently: the bytes moved agree, the I/O counts do not)");
    return Status::Ok();
  }
  Status Depth() {
    SSDLAB_ASSIGN_OR_RETURN(auto qd, Count("iodepth", true));
    SSDLAB_ASSIGN_OR_RETURN(auto jobs, Count("numjobs", true));
    if (qd && *qd > 65536) return BadValue(*Get("iodepth"), "is above 65536");
    if (jobs && *jobs > 4096) return BadValue(*Get("numjobs"), "is above 4096");
    run_.workload.qd = static_cast<uint32_t>(qd.value_or(1));
    run_.workload.jobs = static_cast<uint32_t>(jobs.value_or(1));
    return Status::Ok();
  }

  // How much each job does: fio's io_size, number_ios and size are per job, ssdlab's --io-size
  // is over all jobs.
  Status Amount() {
    SSDLAB_ASSIGN_OR_RETURN(bool time_based, Bool("time_based", false));
    SSDLAB_ASSIGN_OR_RETURN(auto runtime, Time("runtime"));
    SSDLAB_ASSIGN_OR_RETURN(auto ramp, Time("ramp_time"));
    SSDLAB_ASSIGN_OR_RETURN(auto io_size, Size("io_size"));
    SSDLAB_ASSIGN_OR_RETURN(auto ios, Count("number_ios", true));
    const uint64_t jobs = run_.workload.jobs;
    if (runtime && *runtime == 0) return BadValue(*Get("runtime"), "is no time");
    if (ramp && *ramp) run_.workload.ramp = CompactNs(*ramp);
    if (runtime) run_.workload.runtime = CompactNs(*runtime);
    if (time_based) {
      if (!runtime) return Bad(*Get("time_based"), "needs runtime= (fio would run forever)");
      return Status::Ok();
    }
    std::optional<uint64_t> per_job = io_size;
    if (ios) {
      if (!single_bs_)
        return Bad(*Get("number_ios"),
                   "with several block sizes: ssdlab bounds a run by bytes, "
                   "which fixes the count only for one block size");
      per_job = std::min(per_job.value_or(UINT64_MAX), *ios * single_bs_);
    }
    if (per_job && *per_job == 0) return BadValue(*Get("io_size"), "is empty");
    run_.workload.io_size =
        per_job ? CompactBytes(*per_job * jobs) : std::to_string(jobs) + "x";  // x: the range
    return Status::Ok();
  }

  Status Pacing() {
    SSDLAB_ASSIGN_OR_RETURN(auto rate, Count("rate_iops", true));
    if (const FioOption* o = Get("rate_iops"); o && o->value.find(',') != std::string::npos)
      return BadValue(*o,
                      "gives reads and writes different rates, which ssdlab has no "
                      "equivalent for");
    if (rate) {
      run_.workload.rate_iops = std::to_string(*rate * run_.workload.jobs);
      Note("rate_iops=" + std::to_string(*rate) + " per job: --rate-iops " +
           run_.workload.rate_iops +
           " over all jobs, open loop (ssdlab counts latency from the scheduled time)");
    }
    SSDLAB_RETURN_IF_ERROR(Dist());
    SSDLAB_ASSIGN_OR_RETURN(bool repeat, Bool("randrepeat", true));
    if (!repeat)
      return Bad(*Get("randrepeat"),
                 "0 (a new sequence every run) is refused: ssdlab's runs are reproducible; give "
                 "randseed=N for another sequence");
    SSDLAB_ASSIGN_OR_RETURN(auto seed, Count("randseed", false));
    if (seed) run_.workload.seed = *seed;
    SSDLAB_ASSIGN_OR_RETURN(bool norandommap, Bool("norandommap", false));
    if (random_ && !norandommap)
      Note(
          "fio's random map (each block once per pass) has no ssdlab equivalent: offsets are "
          "drawn independently, as with norandommap=1");
    return Status::Ok();
  }

  Status Dist() {
    const FioOption* o = Get("random_distribution");
    if (!o || o->value == "random") return Status::Ok();
    const std::string kind = o->value.substr(0, o->value.find(':'));
    if (kind != "zipf" && kind != "pareto" && kind != "zoned")
      return BadValue(*o, "has no ssdlab equivalent (random, zipf:S, pareto:H, zoned:A/R:...)");
    if (o->value.find(',') != std::string::npos)
      return BadValue(*o, "has a centre (',C'), which ssdlab has no equivalent for");
    if (!random_) {
      Note(o->name + "=" + o->value + " does not apply to rw=" + run_.workload.rw +
           " (fio ignores it too)");
      return Status::Ok();
    }
    if (auto d = ParseDistribution(o->value); !d.ok()) return BadValue(*o, d.status().message());
    run_.workload.dist = o->value;
    return Status::Ok();
  }

  Status Engine() {
    const FioOption* e = Get("ioengine");
    const std::string name = e ? e->value : "psync";  // fio's default on Linux
    if (name != "io_uring" && name != "libaio" && name != "psync" && name != "sync")
      return BadValue(*e, "is an engine ssdlab does not run (io_uring, libaio, psync, sync)");
    SSDLAB_ASSIGN_OR_RETURN(bool direct, Bool("direct", false));
    SSDLAB_ASSIGN_OR_RETURN(bool buffered, Bool("buffered", true));
    if (sim_) return SimEngine();
    run_.engine = name == "sync" ? "psync" : name;
    if (name == "sync")
      Note("ioengine=sync: run as psync (pread/pwrite at the same offsets as read/write)");
    if (!e) Note("no ioengine=: fio's default, psync");
    if (run_.engine == "psync" && run_.workload.qd > 1) {
      Note("iodepth=" + std::to_string(run_.workload.qd) +
           ": a synchronous engine has one I/O in flight per job (fio's too)");
      run_.workload.qd = 1;
    }
    // direct= and buffered= say the same thing; the last given wins.
    run_.buffered = last_direct_ == "direct" ? !direct : buffered;
    if (last_direct_.empty()) Note("no direct=1: fio's default, buffered I/O (--buffered)");
    SSDLAB_RETURN_IF_ERROR(UringOptions());
    return Queueing();
  }

  // A simulated drive: no engine, no page cache; the engine's options are refused.
  Status SimEngine() {
    for (const char* opt :
         {"iodepth_batch_submit", "iodepth_batch_complete_min", "iodepth_batch_complete_max",
          "fixedbufs", "registerfiles", "hipri", "sqthread_poll", "sqthread_poll_cpu",
          "cpus_allowed", "cpus_allowed_policy"})
      if (const FioOption* o = Get(opt))
        return Bad(*o, "applies to real targets, not a simulated drive");
    if (Get("ioengine")) Note("a simulated drive runs in virtual time: ioengine= does not apply");
    run_.engine = "io_uring";
    run_.buffered = false;
    return Status::Ok();
  }

  // fixedbufs, registerfiles, hipri, sqthread_poll*: io_uring's.
  Status UringOptions() {
    for (const char* opt :
         {"fixedbufs", "registerfiles", "hipri", "sqthread_poll", "sqthread_poll_cpu"}) {
      const FioOption* o = Get(opt);
      if (o && run_.engine != "io_uring")
        return Bad(*o, "applies to ioengine=io_uring, not " + run_.engine);
    }
    SSDLAB_ASSIGN_OR_RETURN(bool fixedbufs, Bool("fixedbufs", false));
    SSDLAB_ASSIGN_OR_RETURN(bool registerfiles, Bool("registerfiles", false));
    SSDLAB_ASSIGN_OR_RETURN(run_.hipri, Bool("hipri", false));
    SSDLAB_ASSIGN_OR_RETURN(run_.sqpoll, Bool("sqthread_poll", false));
    SSDLAB_ASSIGN_OR_RETURN(auto sq_cpu, Count("sqthread_poll_cpu", false));
    if (sq_cpu) run_.sqpoll_cpu = std::to_string(*sq_cpu);
    if (run_.engine == "io_uring" && (!fixedbufs || !registerfiles))
      Note(
          "ssdlab's io_uring always registers its buffers and its file (fixedbufs=1, "
          "registerfiles=1)");
    return Status::Ok();
  }

  // iodepth_batch_*, cpus_allowed: the engine's queueing and placement.
  Status Queueing() {
    SSDLAB_ASSIGN_OR_RETURN(auto submit, Count("iodepth_batch_submit", false));
    SSDLAB_ASSIGN_OR_RETURN(auto cmin, Count("iodepth_batch_complete_min", false));
    SSDLAB_ASSIGN_OR_RETURN(auto cmax, Count("iodepth_batch_complete_max", false));
    if (cmin && *cmin == 0)
      return BadValue(*Get("iodepth_batch_complete_min"),
                      "(reaping without waiting) has no ssdlab equivalent: give 1 or more");
    if (cmax && *cmax < cmin.value_or(1))
      return BadValue(*Get("iodepth_batch_complete_max"), "is below iodepth_batch_complete_min");
    if (submit && *submit > 1) run_.batch_submit = std::to_string(*submit);
    if (const FioOption* c = Get("cpus_allowed")) run_.cpus_allowed = c->value;
    if (const FioOption* p = Get("cpus_allowed_policy"); p && p->value != "shared")
      return BadValue(*p, "has no ssdlab equivalent (the jobs share the CPUs: shared)");
    if (run_.engine == "psync") {
      for (const char* opt :
           {"iodepth_batch_submit", "iodepth_batch_complete_min", "iodepth_batch_complete_max"})
        if (const FioOption* o = Get(opt))
          return Bad(*o, "applies to an asynchronous engine (io_uring, libaio), not psync");
    } else {
      // fio waits for one completion per reap unless told otherwise, and reaps up to iodepth.
      run_.batch_complete = std::to_string(cmin.value_or(1));
      if (cmax && *cmax < run_.workload.qd) run_.batch_complete += ":" + std::to_string(*cmax);
    }
    return Status::Ok();
  }

  Status Data() {
    SSDLAB_ASSIGN_OR_RETURN(bool zero, Bool("zero_buffers", false));
    SSDLAB_ASSIGN_OR_RETURN(bool refill, Bool("refill_buffers", false));
    (void)refill;  // ssdlab's random data is made anew for every write
    SSDLAB_ASSIGN_OR_RETURN(auto compress, Percent("buffer_compress_percentage"));
    SSDLAB_ASSIGN_OR_RETURN(auto dedupe, Percent("dedupe_percentage"));
    int kinds = 0;
    const FioOption* second = nullptr;
    auto use = [&](const char* name, const std::string& data) {
      if (++kinds == 2) second = Get(name);
      run_.workload.data = data;
    };
    if (zero) use("zero_buffers", "zero");
    if (compress && *compress) {
      use("buffer_compress_percentage", "compressible:" + std::to_string(*compress));
      Note("buffer_compress_percentage=" + std::to_string(*compress) + ": --data compressible:" +
           std::to_string(*compress) + " (that share of every 4 KiB is zeros)");
    }
    if (dedupe && *dedupe) {
      use("dedupe_percentage", "dedupe:" + std::to_string(*dedupe));
      Note("dedupe_percentage=" + std::to_string(*dedupe) + ": --data dedupe:" +
           std::to_string(*dedupe) + " (that share of 4 KiB chunks repeats earlier content)");
    }
    if (second)
      return Bad(*second, "with another data option: ssdlab writes one data pattern per run");
    return Status::Ok();
  }

  Status Verify() {
    SSDLAB_ASSIGN_OR_RETURN(bool do_verify, Bool("do_verify", true));
    if (const FioOption* t = Get("trim_percentage"))
      return Bad(*t, "(trims checked by verify) has no ssdlab equivalent");
    const FioOption* v = Get("verify");
    if (!v || v->value == "0") return Status::Ok();
    if (std::find_if(kVerifyMethods.begin(), kVerifyMethods.end(),
                     [&](const char* m) { return v->value == m; }) == kVerifyMethods.end())
      return BadValue(*v,
                      "is a verify method ssdlab has no equivalent for (md5, crc64, "
                      "crc32c, crc32c-intel, crc32, crc16, crc7, xxhash, sha1, sha256, "
                      "sha512, meta: all checked with ssdlab's own header)");
    if (writes_ && do_verify)
      return Bad(*v,
                 "on a job that writes: fio reads the blocks back after writing them "
                 "(do_verify=1); give do_verify=0 here and check them in a later section "
                 "with rw=read and verify=" +
                     v->value);
    run_.workload.verify = true;
    Note("verify=" + v->value +
         ": ssdlab's own header and XXH3-64 checksum (a block written by fio fails its check)");
    return Status::Ok();
  }

  Status Grouping() {
    SSDLAB_ASSIGN_OR_RETURN(bool grouped, Bool("group_reporting", false));
    SSDLAB_ASSIGN_OR_RETURN(run_.stonewall, Bool("stonewall", false));
    SSDLAB_ASSIGN_OR_RETURN(bool new_group, Bool("new_group", false));
    (void)new_group;  // every section is reported on its own
    SSDLAB_ASSIGN_OR_RETURN(bool thread, Bool("thread", false));
    (void)thread;  // ssdlab's jobs are threads either way
    if (!grouped && run_.workload.jobs > 1)
      Note("numjobs=" + std::to_string(run_.workload.jobs) +
           " without group_reporting: ssdlab reports the jobs together");
    return Status::Ok();
  }

  const FioJobFile& file_;
  const FioSection& job_;
  const std::string& default_target_;
  FioRun run_;
  std::map<std::string, FioOption> last_;
  std::string last_mix_, last_direct_;
  uint64_t kb_base_ = 1024;
  uint64_t single_bs_ = 4096;  // 0: several block sizes
  bool sim_ = false, random_ = false, writes_ = false;
};

// A value as one shell word.
std::string ShellWord(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("_./:%,=+-@").find(c) == std::string_view::npos)
      plain = false;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

Result<FioJobFile> ParseFioJobFile(const std::string& path, std::string_view text) {
  FioJobFile file;
  file.path = path;
  std::vector<FioOption> global;
  bool in_global = false, any_section = false;
  const std::vector<std::string> lines = Split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string at = path + ":" + std::to_string(n) + ":";
    std::string_view s = Trim(lines[i]);
    if (s.empty() || s[0] == ';' || s[0] == '#') continue;
    if (s[0] == '[') {
      if (s.back() != ']') return Status::Invalid(at + " '" + std::string(s) + "' lacks its ']'");
      std::string name(Trim(s.substr(1, s.size() - 2)));
      if (name.empty()) return Status::Invalid(at + " a section without a name");
      any_section = true;
      in_global = name == "global";
      if (!in_global) file.jobs.push_back(FioSection{name, n, global});
      continue;
    }
    auto eq = s.find('=');
    FioOption o{std::string(Trim(s.substr(0, eq))), "", eq != std::string_view::npos, n};
    if (o.has_value) o.value = std::string(Trim(s.substr(eq + 1)));
    if (o.name.rfind("include ", 0) == 0)
      return Status::Invalid(at + " include: other job files are not read (put the jobs in one)");
    if (!any_section)
      return Status::Invalid(at + " " + o.name + ": an option before any [section]");
    const std::string cur = in_global ? "global" : file.jobs.back().name;
    if (o.name.empty()) return Status::Invalid(at + " [" + cur + "] a value without an option");
    if (o.value.find('$') != std::string::npos)
      return Status::Invalid(at + " [" + cur + "] " + o.name + ": '" + o.value +
                             "' uses an environment variable, which ssdlab does not expand");
    (in_global ? global : file.jobs.back().options).push_back(o);
  }
  if (file.jobs.empty()) return Status::Invalid(path + ": no job section (only [global], or none)");
  return file;
}

Result<uint64_t> ParseFioSize(std::string_view text, uint64_t kb_base) {
  std::string t = Lower(Trim(text));
  const std::string bad = "'" + std::string(text) + "' is not a size like 4k, 64KiB or 1g";
  size_t i = 0;
  const bool hex = t.rfind("0x", 0) == 0;
  if (hex) i = 2;
  auto digit = [hex](char c) {
    const auto u = static_cast<unsigned char>(c);
    return hex ? std::isxdigit(u) != 0 : std::isdigit(u) != 0 || c == '.';
  };
  while (i < t.size() && digit(t[i])) ++i;
  std::string num = t.substr(0, i), suffix = t.substr(i);
  if (num.empty() || num == "0x") return Status::Invalid(bad);
  static constexpr std::array<std::pair<char, int>, 5> kPowers = {
      {{'k', 1}, {'m', 2}, {'g', 3}, {'t', 4}, {'p', 5}}};
  uint64_t mult = 1;
  if (!suffix.empty() && suffix != "b") {
    int power = 0;
    for (auto [c, p] : kPowers)
      if (suffix[0] == c) power = p;
    const std::string tail = suffix.substr(1);
    if (!power || (tail != "" && tail != "b" && tail != "ib")) return Status::Invalid(bad);
    const uint64_t base = tail == "ib" ? 1024 : kb_base;
    for (int p = 0; p < power; ++p) mult *= base;
  }
  if (hex) {
    uint64_t v = 0;
    for (char c : num.substr(2)) {
      if (v >> 60) return Status::Invalid(bad);
      v = v * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v * mult;
  }
  auto v = ParseDouble(num);
  if (!v.ok() || v.value() < 0) return Status::Invalid(bad);
  const double bytes = v.value() * static_cast<double>(mult);
  if (bytes > 1.8e19 || bytes != std::floor(bytes))
    return Status::Invalid(bad + " (not a whole number of bytes)");
  return static_cast<uint64_t>(bytes);
}

Result<uint64_t> ParseFioTimeNs(std::string_view text) {
  std::string t = Lower(Trim(text));
  const std::string bad = "'" + std::string(text) + "' is not a time like 30, 30s, 1m or 500ms";
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  std::string num = t.substr(0, i), suffix = t.substr(i);
  static constexpr std::array<std::pair<const char*, double>, 12> kUnits = {{
      {"", 1e9},
      {"s", 1e9},
      {"sec", 1e9},
      {"m", 60e9},
      {"min", 60e9},
      {"h", 3600e9},
      {"hr", 3600e9},
      {"d", 86400e9},
      {"ms", 1e6},
      {"msec", 1e6},
      {"us", 1e3},
      {"usec", 1e3},
  }};
  auto v = ParseDouble(num);
  if (num.empty() || !v.ok() || v.value() < 0) return Status::Invalid(bad);
  for (auto [unit, ns] : kUnits) {
    if (suffix == unit) {
      const double total = v.value() * ns;
      if (total > 1.8e19) return Status::Invalid(bad + " (too long)");
      return static_cast<uint64_t>(std::llround(total));
    }
  }
  return Status::Invalid(bad);
}

Result<std::vector<FioRun>> TranslateFioJobs(const FioJobFile& file, const std::string& section,
                                             const std::string& default_target) {
  std::vector<FioRun> runs;
  std::vector<std::string> names;
  for (const FioSection& job : file.jobs) {
    names.push_back(job.name);
    if (!section.empty() && job.name != section) continue;
    SSDLAB_ASSIGN_OR_RETURN(FioRun run, JobTranslator(file, job, default_target).Translate());
    runs.push_back(std::move(run));
  }
  if (runs.empty()) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return Status::Invalid("--section " + section + ": " + file.path + " has no such section (" +
                           list + ")");
  }
  for (size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].stonewall) continue;
    return Status::Invalid(file.path + ":" + std::to_string(runs[i].line) + ": [" +
                           runs[i].section + "] stonewall: not given, so fio would run [" +
                           runs[i].section + "] at the same time as [" + runs[i - 1].section +
                           "]; ssdlab runs sections one after another: add stonewall, or pick "
                           "one with --section");
  }
  return runs;
}

std::vector<std::string> FioRunFlags(const FioRun& r) {
  const WorkloadArgs& w = r.workload;
  const WorkloadArgs d;  // run's defaults
  std::vector<std::string> f = {"--target", r.target};
  auto add = [&](const char* flag, const std::string& v, const std::string& dflt) {
    if (v != dflt) f.insert(f.end(), {flag, v});
  };
  if (r.size_bytes) f.insert(f.end(), {"--size", CompactBytes(r.size_bytes)});
  f.insert(f.end(), {"--rw", w.rw});
  add("--rwmix-read", w.rwmix_read, "");
  f.insert(f.end(), {"--bs", w.bs});
  add("--qd", std::to_string(w.qd), "1");
  add("--jobs", std::to_string(w.jobs), "1");
  add("--runtime", w.runtime, "");
  add("--io-size", w.io_size, "");
  add("--ramp", w.ramp, "");
  add("--range", w.range, d.range);
  add("--dist", w.dist, d.dist);
  add("--rate-iops", w.rate_iops, "");
  add("--engine", r.engine, "io_uring");
  if (r.buffered) f.push_back("--buffered");
  add("--batch-submit", r.batch_submit, "");
  add("--batch-complete", r.batch_complete, "");
  if (r.sqpoll) f.push_back("--sqpoll");
  add("--sqpoll-cpu", r.sqpoll_cpu, "");
  if (r.hipri) f.push_back("--hipri");
  add("--cpus-allowed", r.cpus_allowed, "");
  add("--data", w.data, d.data);
  add("--seed", std::to_string(w.seed), std::to_string(d.seed));
  if (w.verify) f.push_back("--verify");
  return f;
}

std::string FioRunCommandLine(const FioRun& run) {
  std::string line = "ssdlab run";
  for (const std::string& w : FioRunFlags(run)) line += " " + ShellWord(w);
  return line;
}

}  // namespace ssdlab
