// Result<T>: a value of type T or a non-OK Status.
//
// Built on std::expected (C++23). Implicitly constructible from a T or from a non-OK
// Status so that `return Status::Corruption(...)` and `return value;` both work in a
// function returning Result<T>. Not thread-safe beyond what T provides.
#pragma once

#include <cassert>
#include <expected>
#include <utility>

#include "lithify/base/status.h"

namespace lithify {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(const T& v) : v_(v) {}            // NOLINT(google-explicit-constructor)
  Result(T&& v) : v_(std::move(v)) {}      // NOLINT(google-explicit-constructor)
  Result(Status s)                         // NOLINT(google-explicit-constructor)
      : v_(std::unexpected(std::move(s))) {
    assert(!v_.error().ok() && "Result constructed from an OK status");
  }
  template <typename U>
    requires(std::is_convertible_v<U &&, T> && !std::is_same_v<std::decay_t<U>, T> &&
             !std::is_same_v<std::decay_t<U>, Status>)
  Result(U&& v) : v_(T(std::forward<U>(v))) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.has_value(); }
  // OK when a value is held.
  Status status() const { return ok() ? Status::OK() : v_.error(); }

  // Precondition: ok().
  T& value() & { assert(ok()); return *v_; }
  const T& value() const& { assert(ok()); return *v_; }
  T&& value() && { assert(ok()); return std::move(*v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

  T ValueOr(T fallback) const& { return ok() ? *v_ : std::move(fallback); }

 private:
  std::expected<T, Status> v_;
};

}  // namespace lithify
