#include "runtime/core/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

const char* error_name(Error error) {
  switch (error) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::InvalidState: return "InvalidState";
    case Error::EndOfMethod: return "EndOfMethod";
    case Error::NotSupported: return "NotSupported";
    case Error::NotImplemented: return "NotImplemented";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::InvalidType: return "InvalidType";
    case Error::OperatorMissing: return "OperatorMissing";
    case Error::NotFound: return "NotFound";
    case Error::MemoryAllocationFailed: return "MemoryAllocationFailed";
    case Error::AccessFailed: return "AccessFailed";
    case Error::InvalidProgram: return "InvalidProgram";
    case Error::InvalidExternalData: return "InvalidExternalData";
    case Error::OutOfResources: return "OutOfResources";
    case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed: return "DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
  }
  return "Unknown";
}

namespace {
// Bare-metal toolchains without TLS define TORCHEDGE_NO_THREAD_LOCAL and get
// one shared buffer (they run one thread).
#if defined(TORCHEDGE_NO_THREAD_LOCAL)
char g_message[kErrorMessageCapacity];
#else
thread_local char g_message[kErrorMessageCapacity];
#endif
}  // namespace

void record_error_message(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_message, kErrorMessageCapacity, format, args);
  va_end(args);
}

void prepend_error_context(const char* format, ...) {
  char previous[kErrorMessageCapacity];
  memcpy(previous, g_message, kErrorMessageCapacity);
  va_list args;
  va_start(args, format);
  int n = vsnprintf(g_message, kErrorMessageCapacity, format, args);
  va_end(args);
  if (n < 0 || static_cast<size_t>(n) >= kErrorMessageCapacity - 1) return;
  snprintf(g_message + n, kErrorMessageCapacity - n, ": %s", previous);
}

const char* last_error_message() { return g_message; }

void clear_error_message() { g_message[0] = '\0'; }

}  // namespace torchedge
