// Streaming input of trace files: a plain, gzip (zlib) or zstd (libzstd) file read through a
// fixed-size buffer, whatever the file's size; compression is recognised by its magic bytes.
// Text formats read it line by line (LineReader), binary ones by records (ByteStream::Ensure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ssdlab::trace {

enum class Compression : uint8_t { kNone, kGzip, kZstd };
const char* CompressionName(Compression c);  // "none", "gzip", "zstd"

class ByteStream {
 public:
  // Opens `path`, reading it once from its start: the compression is told from the first bytes
  // read (not by seeking), so pipes, FIFOs and /dev/stdin work too. Errors: NotFound (missing),
  // Io (unreadable), Invalid (a directory).
  static Result<std::unique_ptr<ByteStream>> Open(const std::string& path);
  virtual ~ByteStream() = default;

  // Makes at least `want` (<= kMaxWant) decompressed bytes available at data(), or fewer only
  // at the end of the stream; returns avail(). Errors (Invalid: damaged or truncated
  // compressed data; Io: read failure) name the file.
  Result<size_t> Ensure(size_t want);
  const char* data() const { return buf_.get() + pos_; }
  size_t avail() const { return len_ - pos_; }
  void Consume(size_t n) { pos_ += n; }
  // Decompressed bytes consumed so far (the offset of data() in the decompressed stream).
  uint64_t position() const { return base_ + pos_; }
  Compression compression() const { return compression_; }
  const std::string& path() const { return path_; }

  static constexpr size_t kBufBytes = 1 << 20;
  static constexpr size_t kMaxWant = kBufBytes / 2;

 protected:
  ByteStream(std::string path, int fd, Compression c);
  // Appends up to `n` decompressed bytes at `out`; 0 at the end of the stream.
  virtual Result<size_t> Produce(char* out, size_t n) = 0;
  // Reads raw file bytes (the ones Open() read first, then the file's); 0 at end of file.
  Result<size_t> ReadRaw(char* out, size_t n);

  std::string path_;
  int fd_;
  Compression compression_;

 private:
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t base_ = 0;  // decompressed offset of buf_[0]
  bool eof_ = false;
  // The raw bytes Open() read to recognise the compression, handed out first by ReadRaw.
  char magic_[4] = {};
  size_t magic_len_ = 0, magic_pos_ = 0;
};

// Lines of a ByteStream, without their "\n" or "\r\n". Lines are at most kMaxLineBytes.
class LineReader {
 public:
  explicit LineReader(std::unique_ptr<ByteStream> in) : in_(std::move(in)) {}
  // The next line (valid until the next call); false at the end. Errors name the file and line.
  Result<bool> Next(std::string_view* line);
  uint64_t line_number() const { return line_no_; }  // of the line last returned (1-based)
  ByteStream& stream() { return *in_; }

  static constexpr size_t kMaxLineBytes = 64 * 1024;

 private:
  std::unique_ptr<ByteStream> in_;
  uint64_t line_no_ = 0;
  size_t pending_consume_ = 0;
};

}  // namespace ssdlab::trace
