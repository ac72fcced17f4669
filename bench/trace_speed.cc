// Trace reading speed, and a generator of large synthetic traces for bench/trace_speed.sh.
//   trace_speed gen blktrace|msr|fio N OUT.zst [seed]   writes N records, zstd-compressed
//   trace_speed read PATH [--format F]                   reads every record, prints records/s
// Reading runs on one thread (this one), from the file through the zstd stream and the reader.
#include <linux/blktrace_api.h>
#include <zstd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "trace/trace.h"

using namespace ssdlab;

namespace {

class ZstdWriter {
 public:
  explicit ZstdWriter(const char* path) : f_(std::fopen(path, "wb")), cs_(ZSTD_createCStream()) {
    ZSTD_initCStream(cs_, 1);
    out_.resize(ZSTD_CStreamOutSize());
  }
  ~ZstdWriter() {
    Flush(true);
    ZSTD_freeCStream(cs_);
    std::fclose(f_);
  }
  void Write(const void* data, size_t n) {
    buf_.append(static_cast<const char*>(data), n);
    if (buf_.size() >= (1 << 20)) Flush(false);
  }

  void Flush(bool end) {
    ZSTD_inBuffer in{buf_.data(), buf_.size(), 0};
    while (in.pos < in.size) {
      ZSTD_outBuffer ob{out_.data(), out_.size(), 0};
      ZSTD_compressStream(cs_, &ob, &in);
      std::fwrite(out_.data(), 1, ob.pos, f_);
    }
    buf_.clear();
    while (end) {
      ZSTD_outBuffer ob{out_.data(), out_.size(), 0};
      size_t rc = ZSTD_endStream(cs_, &ob);
      std::fwrite(out_.data(), 1, ob.pos, f_);
      if (rc == 0) break;
    }
  }

 private:
  FILE* f_;
  ZSTD_CStream* cs_;
  std::string out_, buf_;
};

uint64_t Next(uint64_t& s) {  // splitmix64
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int Gen(const std::string& kind, uint64_t n, const char* out, uint64_t seed) {
  ZstdWriter w(out);
  uint64_t s = seed, t = 0;
  const uint64_t units = (uint64_t{64} << 30) / 4096;  // 64 GiB of 4 KiB units
  char line[160];
  if (kind == "fio") w.Write("fio version 3 iolog\n", 20);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t r = Next(s);
    t += 1000 + (r & 0xfff);  // ~3 us apart
    const bool write = (r >> 12) % 10 < 3;
    const uint64_t off = ((r >> 16) % units) * 4096;
    if (kind == "blktrace") {
      blk_io_trace e{};
      e.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION;
      e.sequence = static_cast<uint32_t>(i);
      e.time = t;
      e.sector = off / 512;
      e.bytes = 4096;
      e.action = __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | (write ? BLK_TC_WRITE : BLK_TC_READ));
      e.device = 8u << 20;
      w.Write(&e, sizeof e);
    } else if (kind == "msr") {
      int len = std::snprintf(line, sizeof line, "%llu,src,0,%s,%llu,4096,%llu\n",
                              static_cast<unsigned long long>(128166372000000000ULL + t / 100),
                              write ? "Write" : "Read", static_cast<unsigned long long>(off),
                              static_cast<unsigned long long>(100 + (r >> 50)));
      w.Write(line, len);
    } else {
      int len = std::snprintf(line, sizeof line, "%llu dev %s %llu 4096\n",
                              static_cast<unsigned long long>(t / 1000), write ? "write" : "read",
                              static_cast<unsigned long long>(off));
      w.Write(line, len);
    }
  }
  return 0;
}

int Read(const std::string& path, const std::string& format) {
  trace::TraceOptions o;
  if (!format.empty()) o.format = trace::ParseTraceFormat(format).value();
  auto t0 = std::chrono::steady_clock::now();
  auto r = trace::OpenTrace(path, o);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().message().c_str());
    return 2;
  }
  trace::TraceRecord rec;
  uint64_t n = 0, bytes = 0;
  for (;;) {
    auto more = (*r)->Next(&rec);
    if (!more.ok()) {
      std::fprintf(stderr, "%s\n", more.status().message().c_str());
      return 2;
    }
    if (!more.value()) break;
    ++n;
    bytes += rec.bytes;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s (%s): %llu records in %.2f s = %.2f M records/s (%llu bytes of I/O)\n",
              path.c_str(), trace::TraceFormatName((*r)->format()),
              static_cast<unsigned long long>(n), s, n / s / 1e6,
              static_cast<unsigned long long>(bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 5 && std::string(argv[1]) == "gen") {
    return Gen(argv[2], std::stoull(argv[3]), argv[4], argc > 5 ? std::stoull(argv[5]) : 1);
  }
  if (argc >= 3 && std::string(argv[1]) == "read") {
    return Read(argv[2], argc >= 5 && std::string(argv[3]) == "--format" ? argv[4] : "");
  }
  std::fprintf(
      stderr,
      "usage: trace_speed gen blktrace|msr|fio N OUT.zst [seed] | read PATH [--format F]\n");
  return 2;
}
