#include "trace/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ssdlab::trace {

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
  }
  return "?";
}

ByteStream::ByteStream(std::string path, int fd, Compression c)
    : path_(std::move(path)), fd_(fd), compression_(c), buf_(new char[kBufBytes]) {}

Result<size_t> ByteStream::ReadRaw(char* out, size_t n) {
  if (magic_pos_ < magic_len_ && n > 0) {
    const size_t k = std::min(n, magic_len_ - magic_pos_);
    std::memcpy(out, magic_ + magic_pos_, k);
    magic_pos_ += k;
    return k;
  }
  for (;;) {
    ssize_t r = read(fd_, out, n);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno == EINTR) continue;
    return Status::Io(path_ + ": read: " + std::strerror(errno));
  }
}

Result<size_t> ByteStream::Ensure(size_t want) {
  if (want > kMaxWant) want = kMaxWant;
  if (avail() >= want || eof_) return avail();
  if (pos_ > 0) {
    std::memmove(buf_.get(), buf_.get() + pos_, len_ - pos_);
    base_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  while (len_ < want) {
    SSDLAB_ASSIGN_OR_RETURN(size_t got, Produce(buf_.get() + len_, kBufBytes - len_));
    if (got == 0) {
      eof_ = true;
      break;
    }
    len_ += got;
  }
  return avail();
}

namespace {

class PlainStream : public ByteStream {
 public:
  PlainStream(std::string path, int fd) : ByteStream(std::move(path), fd, Compression::kNone) {}
  ~PlainStream() override { close(fd_); }

 protected:
  Result<size_t> Produce(char* out, size_t n) override { return ReadRaw(out, n); }
};

constexpr size_t kInBytes = 256 * 1024;

class GzipStream : public ByteStream {
 public:
  GzipStream(std::string path, int fd)
      : ByteStream(std::move(path), fd, Compression::kGzip), in_(new char[kInBytes]) {
    std::memset(&z_, 0, sizeof z_);
    inflateInit2(&z_, 15 + 32);  // zlib or gzip header
  }
  ~GzipStream() override {
    inflateEnd(&z_);
    close(fd_);
  }

 protected:
  Result<size_t> Produce(char* out, size_t n) override {
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out == n) {
      if (z_.avail_in == 0) {
        SSDLAB_ASSIGN_OR_RETURN(size_t got, ReadRaw(in_.get(), kInBytes));
        if (got == 0) {
          if (!in_member_) return size_t{0};
          return Status::Invalid(path_ + ": truncated gzip data (the file ends inside a member)");
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.get());
        z_.avail_in = static_cast<uInt>(got);
      }
      in_member_ = true;
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        inflateReset(&z_);  // concatenated members (pigz, appended logs)
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return Status::Invalid(path_ + ": damaged gzip data at compressed byte " +
                               std::to_string(z_.total_in) + " (" +
                               (z_.msg ? z_.msg : "inflate error") + ")");
      }
    }
    return n - z_.avail_out;
  }

 private:
  z_stream z_;
  std::unique_ptr<char[]> in_;
  bool in_member_ = false;
};

class ZstdStream : public ByteStream {
 public:
  ZstdStream(std::string path, int fd)
      : ByteStream(std::move(path), fd, Compression::kZstd),
        in_(new char[kInBytes]),
        ds_(ZSTD_createDStream()) {
    ZSTD_initDStream(ds_);
  }
  ~ZstdStream() override {
    ZSTD_freeDStream(ds_);
    close(fd_);
  }

 protected:
  Result<size_t> Produce(char* out, size_t n) override {
    ZSTD_outBuffer ob{out, n, 0};
    while (ob.pos == 0) {
      if (ib_.pos == ib_.size) {
        SSDLAB_ASSIGN_OR_RETURN(size_t got, ReadRaw(in_.get(), kInBytes));
        if (got == 0) {
          if (last_ == 0) return size_t{0};
          return Status::Invalid(path_ + ": truncated zstd data (the file ends inside a frame)");
        }
        ib_ = ZSTD_inBuffer{in_.get(), got, 0};
      }
      size_t rc = ZSTD_decompressStream(ds_, &ob, &ib_);
      if (ZSTD_isError(rc)) {
        return Status::Invalid(path_ + ": damaged zstd data (" + ZSTD_getErrorName(rc) + ")");
      }
      last_ = rc;
    }
    return ob.pos;
  }

 private:
  std::unique_ptr<char[]> in_;
  ZSTD_DStream* ds_;
  ZSTD_inBuffer ib_{nullptr, 0, 0};
  size_t last_ = 0;  // 0: at a frame boundary
};

}  // namespace

Result<std::unique_ptr<ByteStream>> ByteStream::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return Status::NotFound("trace " + path + " does not exist");
    return Status::Io("trace " + path + ": " + std::strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return Status::Invalid("trace " + path + " is a directory");
  }
  // The first bytes, read (not peeked with pread, which a pipe refuses) and kept for ReadRaw.
  unsigned char magic[4] = {0, 0, 0, 0};
  size_t got = 0;
  while (got < sizeof magic) {
    ssize_t r = read(fd, magic + got, sizeof magic - got);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      close(fd);
      return Status::Io("trace " + path + ": read: " + std::strerror(e));
    }
    got += static_cast<size_t>(r);
  }
  std::unique_ptr<ByteStream> s;
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    s.reset(new GzipStream(path, fd));
  } else if (got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f &&
             magic[3] == 0xfd) {
    s.reset(new ZstdStream(path, fd));
  } else {
    s.reset(new PlainStream(path, fd));
  }
  std::memcpy(s->magic_, magic, got);
  s->magic_len_ = got;
  return s;
}

Result<bool> LineReader::Next(std::string_view* line) {
  in_->Consume(pending_consume_);
  pending_consume_ = 0;
  size_t scanned = 0;
  for (;;) {
    const char* d = in_->data();
    size_t n = in_->avail();
    const void* nl = n > scanned ? std::memchr(d + scanned, '\n', n - scanned) : nullptr;
    if (nl) {
      size_t len = static_cast<const char*>(nl) - d;
      pending_consume_ = len + 1;
      if (len > 0 && d[len - 1] == '\r') --len;
      *line = std::string_view(d, len);
      ++line_no_;
      return true;
    }
    scanned = n;
    if (n > kMaxLineBytes) {
      return Status::Invalid(in_->path() + ":" + std::to_string(line_no_ + 1) +
                             ": line longer than " + std::to_string(kMaxLineBytes) +
                             " bytes (not a text trace?)");
    }
    SSDLAB_ASSIGN_OR_RETURN(size_t now, in_->Ensure(n + 4096));
    if (now == n) {  // end of stream
      if (n == 0) return false;
      d = in_->data();
      pending_consume_ = n;
      size_t len = n;
      if (d[len - 1] == '\r') --len;
      *line = std::string_view(in_->data(), len);
      ++line_no_;
      return true;
    }
  }
}

}  // namespace ssdlab::trace
