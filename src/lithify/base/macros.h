// Error-propagation macros in the Arrow / iceberg-cpp shape.
//
//   LITHIFY_RETURN_NOT_OK(expr);              // expr yields Status
//   LITHIFY_ASSIGN_OR_RETURN(auto x, expr);   // expr yields Result<T>
//   LITHIFY_RETURN_NOT_OK_CTX(expr, "ctx {}", arg);  // adds context on failure
#pragma once

#include "lithify/base/result.h"
#include "lithify/base/status.h"

#define LITHIFY_CONCAT_IMPL(a, b) a##b
#define LITHIFY_CONCAT(a, b) LITHIFY_CONCAT_IMPL(a, b)

#define LITHIFY_RETURN_NOT_OK(expr)                  \
  do {                                               \
    ::lithify::Status _lithify_st = (expr);          \
    if (!_lithify_st.ok()) return _lithify_st;       \
  } while (false)

#define LITHIFY_RETURN_NOT_OK_CTX(expr, ...)                        \
  do {                                                              \
    ::lithify::Status _lithify_st = (expr);                         \
    if (!_lithify_st.ok()) return _lithify_st.WithContextF(__VA_ARGS__); \
  } while (false)

#define LITHIFY_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                  \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

#define LITHIFY_ASSIGN_OR_RETURN(lhs, rexpr) \
  LITHIFY_ASSIGN_OR_RETURN_IMPL(LITHIFY_CONCAT(_lithify_r_, __LINE__), lhs, rexpr)

#define LITHIFY_ASSIGN_OR_RETURN_CTX_IMPL(tmp, lhs, rexpr, ...) \
  auto tmp = (rexpr);                                          \
  if (!tmp.ok()) return tmp.status().WithContextF(__VA_ARGS__); \
  lhs = std::move(tmp).value()

#define LITHIFY_ASSIGN_OR_RETURN_CTX(lhs, rexpr, ...) \
  LITHIFY_ASSIGN_OR_RETURN_CTX_IMPL(LITHIFY_CONCAT(_lithify_r_, __LINE__), lhs, rexpr, __VA_ARGS__)
