// torchedge/runtime/core/error_message.h
//
// Where the human-readable reason of the most recent failure lives.
//
// Error codes travel as values; the reason ("input 0: expected float32
// [1, 3, 32, 32], got int64 [1, 3]") is written into a fixed-size,
// per-thread buffer so that no heap is used on the error path either. Each
// layer that adds context (kernel -> method -> bindings) prefixes its own
// words with prepend_error_context().
//
// The three check macros every runtime file uses are defined here:
//   TE_CHECK_OR_RETURN(cond, Error::X, "fmt", ...)  record + return on false
//   TE_RETURN_IF_ERROR(expr)                        propagate an Error
//   TE_ASSIGN_OR_RETURN(lhs, result_expr)           unwrap a Result<T>
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace torchedge {

/// Capacity of the per-thread message buffer, including the terminator.
constexpr size_t kErrorMessageCapacity = 512;

/// Replaces the current thread's message with the printf-style message.
/// Truncates silently at kErrorMessageCapacity - 1 characters.
void record_error_message(const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/// Prefixes the current message with printf-style context and ": ".
void prepend_error_context(const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/// The current thread's message; never null, empty when none was recorded.
/// Valid until the next record/prepend/clear on this thread.
const char* last_error_message();

/// Empties the current thread's message.
void clear_error_message();

}  // namespace torchedge

#define TE_CHECK_OR_RETURN(cond, error, ...)          \
  do {                                                \
    if (!(cond)) {                                    \
      ::torchedge::record_error_message(__VA_ARGS__); \
      return (error);                                 \
    }                                                 \
  } while (0)

#define TE_RETURN_IF_ERROR(expr)                      \
  do {                                                \
    const ::torchedge::Error te_err_ = (expr);        \
    if (te_err_ != ::torchedge::Error::Ok) {          \
      return te_err_;                                 \
    }                                                 \
  } while (0)

#define TE_CONCAT_INNER_(a, b) a##b
#define TE_CONCAT_(a, b) TE_CONCAT_INNER_(a, b)
#define TE_ASSIGN_OR_RETURN(lhs, expr)                            \
  auto TE_CONCAT_(te_result_, __LINE__) = (expr);                 \
  if (!TE_CONCAT_(te_result_, __LINE__).ok()) {                   \
    return TE_CONCAT_(te_result_, __LINE__).error();              \
  }                                                               \
  lhs = std::move(TE_CONCAT_(te_result_, __LINE__).get())
