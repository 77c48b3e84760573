// torchedge/runtime/core/error.h
//
// The single error vocabulary of the runtime. Codes are grouped in ranges so
// a caller can tell "bad input" from "out of resources" from "bug" by range.
// A value of Error::Ok means success; every other value means the operation
// did nothing observable (or rolled back) and a message describing the
// failure was recorded with record_error_message() (see error_message.h).
#pragma once

#include <cstdint>

namespace torchedge {

enum class Error : uint32_t {
  Ok = 0x00,

  // 0x01..0x0f: internal/system state.
  Internal = 0x01,      // A bug in torchedge; should never be seen.
  InvalidState = 0x02,  // Object used in the wrong state (e.g. not loaded).
  EndOfMethod = 0x03,   // step() ran past the last instruction.

  // 0x10..0x1f: the caller or the program asked for something invalid.
  NotSupported = 0x10,     // Valid request that this build cannot serve.
  NotImplemented = 0x11,   // Operator/dtype combination without a kernel.
  InvalidArgument = 0x12,  // Wrong value (shape, index, count, option).
  InvalidType = 0x13,      // Wrong dtype or EValue tag.
  OperatorMissing = 0x14,  // The program names an operator not registered.

  // 0x20..0x2f: resources and data.
  NotFound = 0x20,                // Named thing (method, file, key) absent.
  MemoryAllocationFailed = 0x21,  // An allocator or arena ran out.
  AccessFailed = 0x22,            // I/O failure reading the program.
  InvalidProgram = 0x23,          // Malformed/truncated/corrupted file.
  InvalidExternalData = 0x24,     // Malformed .ptd or missing named data.
  OutOfResources = 0x25,          // A fixed-capacity table is full.

  // 0x30..0x3f: backend delegates.
  DelegateInvalidCompatibility = 0x30,  // Blob not understood by the backend.
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

/// Stable, human-readable name of an error code ("InvalidProgram").
const char* error_name(Error error);

}  // namespace torchedge
