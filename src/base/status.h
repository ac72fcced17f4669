// Status and Result<T>: expected failures carried as values (LevelDB status.h, Abseil Tip 76).
// A Status is ok or holds a code and a one-line message that a user can act on.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace ssdlab {

enum class Code {
  kOk = 0,
  kInvalidArgument,  // bad flag, unit, range, preset: the user's input is wrong (exit 2)
  kNotFound,         // missing target, run, file
  kPermission,       // refused for safety or lacking rights
  kIoError,          // the device or filesystem failed
  kNoSpace,          // full disk
  kUnsupported,      // the platform cannot do it (e.g. io_uring disabled)
  kInterrupted,      // stopped by the user
  kInternal,         // a bug
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(Code code, std::string message) { return Status(code, std::move(message)); }
  static Status Invalid(std::string message) {
    return Status(Code::kInvalidArgument, std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(Code::kNotFound, std::move(message));
  }
  static Status Io(std::string message) { return Status(Code::kIoError, std::move(message)); }
  static Status Refused(std::string message) {
    return Status(Code::kPermission, std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message".
  Status WithContext(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Holds either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "Result built from an ok Status carries no value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace ssdlab

// Propagates a non-ok Status from an expression returning Status.
#define SSDLAB_RETURN_IF_ERROR(expr) \
  do {                               \
    ::ssdlab::Status _st = (expr);   \
    if (!_st.ok()) return _st;       \
  } while (0)

#define SSDLAB_CONCAT_INNER(a, b) a##b
#define SSDLAB_CONCAT(a, b) SSDLAB_CONCAT_INNER(a, b)
// Declares `lhs` from a Result-returning expression, or returns its Status.
#define SSDLAB_ASSIGN_OR_RETURN(lhs, expr)                                                  \
  auto SSDLAB_CONCAT(_res_, __LINE__) = (expr);                                             \
  if (!SSDLAB_CONCAT(_res_, __LINE__).ok()) return SSDLAB_CONCAT(_res_, __LINE__).status(); \
  lhs = std::move(SSDLAB_CONCAT(_res_, __LINE__)).value()
