// Status: the outcome of an operation that can fail, carried by value.
//
// lithify never lets an exception cross a module boundary; every fallible function
// returns Status or Result<T>. Codes are few and chosen by what callers branch on
// (see docs/architecture.md §Errors). Messages accumulate context as they travel up:
// "part-0001.parquet: column 'a': page 3: ...". Status is a value type; copies are
// independent and it is safe to use from any thread.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

namespace lithify {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,  // the caller asked for something malformed or impossible
  kNotFound,         // a file, column or version that does not exist
  kAlreadyExists,    // put-if-absent lost the race; the target exists
  kCorruption,       // bytes that violate a format (bad footer, checksum, JSON): never repaired
  kNotSupported,     // a valid feature lithify does not implement (named in the message)
  kIOError,          // the storage failed; see retryable()
  kCancelled,
  kInternal,         // a bug in lithify
  kConflict,         // a concurrent commit conflicts with this transaction (Delta's exception name leads the message)
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, bool retryable = false)
      : code_(code), retryable_(retryable), message_(std::move(message)) {}

  static Status OK() { return {}; }
  template <typename... Args>
  static Status InvalidArgument(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kInvalidArgument, fmt::format(f, std::forward<Args>(a)...)};
  }
  template <typename... Args>
  static Status NotFound(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kNotFound, fmt::format(f, std::forward<Args>(a)...)};
  }
  template <typename... Args>
  static Status AlreadyExists(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kAlreadyExists, fmt::format(f, std::forward<Args>(a)...)};
  }
  template <typename... Args>
  static Status Corruption(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kCorruption, fmt::format(f, std::forward<Args>(a)...)};
  }
  template <typename... Args>
  static Status NotSupported(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kNotSupported, fmt::format(f, std::forward<Args>(a)...)};
  }
  template <typename... Args>
  static Status IOError(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kIOError, fmt::format(f, std::forward<Args>(a)...)};
  }
  template <typename... Args>
  static Status Internal(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kInternal, fmt::format(f, std::forward<Args>(a)...)};
  }
  // A lost race that cannot be retried: `name` is Delta's exception class, e.g.
  // "ConcurrentDeleteReadException"; the message reads "<name>: <detail>".
  template <typename... Args>
  static Status Conflict(std::string_view name, fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kConflict,
            fmt::format("{}: {}", name, fmt::format(f, std::forward<Args>(a)...))};
  }
  template <typename... Args>
  static Status Cancelled(fmt::format_string<Args...> f, Args&&... a) {
    return {StatusCode::kCancelled, fmt::format(f, std::forward<Args>(a)...)};
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Only meaningful for kIOError: a transient failure that may succeed if retried.
  bool retryable() const { return retryable_; }

  bool IsInvalidArgument() const { return code_ == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code_ == StatusCode::kAlreadyExists; }
  bool IsCorruption() const { return code_ == StatusCode::kCorruption; }
  bool IsNotSupported() const { return code_ == StatusCode::kNotSupported; }
  bool IsIOError() const { return code_ == StatusCode::kIOError; }
  bool IsConflict() const { return code_ == StatusCode::kConflict; }
  bool IsCancelled() const { return code_ == StatusCode::kCancelled; }

  // Returns a copy whose message is "context: message". OK stays OK.
  Status WithContext(std::string_view context) const;
  template <typename... Args>
  Status WithContextF(fmt::format_string<Args...> f, Args&&... a) const {
    if (ok()) return *this;
    return WithContext(fmt::format(f, std::forward<Args>(a)...));
  }

  // "Corruption: message" (or "OK").
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  bool retryable_ = false;
  std::string message_;
};

}  // namespace lithify
