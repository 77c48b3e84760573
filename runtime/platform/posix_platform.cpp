// Default platform hooks for Linux/macOS/Android.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "runtime/platform/platform.h"

namespace torchedge {

uint64_t platform_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void platform_log(LogLevel level, const char* message) {
  static const char* const kNames[] = {"D", "I", "E", "F"};
  fprintf(stderr, "[torchedge %s] %s\n", kNames[static_cast<int>(level)], message);
}

void platform_abort() { abort(); }

}  // namespace torchedge
