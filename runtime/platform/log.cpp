#include <cstdarg>
#include <cstdio>

#include "runtime/platform/platform.h"

namespace torchedge {

namespace {
LogLevel g_level = LogLevel::Error;
}  // namespace

void set_log_level(LogLevel level) { g_level = level; }
LogLevel log_level() { return g_level; }

void log_message(LogLevel level, const char* format, ...) {
  if (level < g_level) return;
  char line[512];  // stack, not heap: logging must work when memory is tight
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  platform_log(level, line);
}

}  // namespace torchedge
