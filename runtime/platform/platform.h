// torchedge/runtime/platform/platform.h
//
// The few things the runtime needs from the system, as replaceable hooks.
// A port (bare metal, an RTOS) provides its own platform_*.cpp defining
// these functions instead of posix_platform.cpp; nothing else in the
// runtime talks to the OS.
#pragma once

#include <cstdint>

namespace torchedge {

enum class LogLevel : uint8_t { Debug = 0, Info = 1, Error = 2, Fatal = 3 };

/// Monotonic time in nanoseconds (arbitrary origin).
uint64_t platform_now_ns();

/// Emits one already-formatted log line (no trailing newline required).
void platform_log(LogLevel level, const char* message);

/// Called on a panic (a bug in torchedge, never bad input); must not return.
[[noreturn]] void platform_abort();

/// Messages below this level are dropped. Default: Error.
void set_log_level(LogLevel level);
LogLevel log_level();

/// printf-style logging through platform_log(), subject to log_level().
void log_message(LogLevel level, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

}  // namespace torchedge

/// A panic: reports the broken invariant and aborts. Only for bugs.
#define TE_PANIC_IF(cond, message)                                                     \
  do {                                                                                 \
    if (cond) {                                                                        \
      ::torchedge::log_message(::torchedge::LogLevel::Fatal, "%s:%d: %s", __FILE__, \
                               __LINE__, message);                                    \
      ::torchedge::platform_abort();                                                   \
    }                                                                                  \
  } while (0)
