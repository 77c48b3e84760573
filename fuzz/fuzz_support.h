// torchedge/fuzz/fuzz_support.h
//
// What every harness shares: the kernel libraries and delegate registered
// once, the harness's resource policy, and running one loaded method on
// inputs of its declared shapes.
//
// Policy: a program may declare any sizes (the runtime must reject what it
// cannot allocate with an Error); the harness only declines to *provide*
// more than kMaxBytes of memory per method or inputs past kMaxInputBytes,
// so one input cannot exhaust the fuzzing machine. Declining is not a
// finding; a crash, a sanitizer report, a hang or a leak is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace torchedge {
namespace fuzz {

constexpr size_t kMaxBytes = size_t{64} << 20;
constexpr size_t kMaxInputBytes = size_t{16} << 20;

/// Registers portable, prim, quantized and optimized kernels and the
/// XNNPACK delegate, one thread in the pool (idempotent).
void register_everything();

/// Whether the harness provides the memory `meta` asks for (kMaxBytes).
bool memory_within_policy(const MethodMeta& meta);

/// Sets zero-filled inputs of the declared shapes (scalars: 0) and executes
/// once. Errors are expected and ignored; only crashes matter. Skips a
/// method whose inputs are past kMaxInputBytes.
void run_method(Method& method, const MethodMeta& meta);

}  // namespace fuzz
}  // namespace torchedge
