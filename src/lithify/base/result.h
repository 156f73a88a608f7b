// Result<T>: a value of type T or a non-OK Status.
//
// Stored as std::variant (not std::expected: clang 14, used for fuzzing, cannot compile
// libstdc++ 12's <expected>). Implicitly constructible from a T or from a non-OK
// Status so that `return Status::Corruption(...)` and `return value;` both work in a
// function returning Result<T>. Not thread-safe beyond what T provides.
#pragma once

#include <cassert>
#include <type_traits>
#include <variant>
#include <utility>

#include "lithify/base/status.h"

namespace lithify {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(const T& v) : v_(v) {}            // NOLINT(google-explicit-constructor)
  Result(T&& v) : v_(std::move(v)) {}      // NOLINT(google-explicit-constructor)
  Result(Status s)                         // NOLINT(google-explicit-constructor)
      : v_(std::move(s)) {
    assert(!std::get<Status>(v_).ok() && "Result constructed from an OK status");
  }
  template <typename U>
    requires(std::is_convertible_v<U &&, T> && !std::is_same_v<std::decay_t<U>, T> &&
             !std::is_same_v<std::decay_t<U>, Status>)
  Result(U&& v) : v_(T(std::forward<U>(v))) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  // OK when a value is held.
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

  // Precondition: ok().
  T& value() & { assert(ok()); return *std::get_if<0>(&v_); }
  const T& value() const& { assert(ok()); return *std::get_if<0>(&v_); }
  T&& value() && { assert(ok()); return std::move(*std::get_if<0>(&v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

  T ValueOr(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace lithify
