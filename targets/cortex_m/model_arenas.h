// torchedge/targets/cortex_m/model_arenas.h
//
// The planned arenas of the embedded program and its method allocator's
// pool as static buffers, defined by the generated model file
// (scripts/embed_program.py) at the sizes the program needs (the planned
// sizes; the pool: python/torchedge/memory/method_allocator.py for the
// Cortex-M33's type sizes), so nothing is sized at run time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"

namespace torchedge {
namespace firmware {

constexpr size_t kMaxArenas = 4;

/// Fills `arenas` (kMaxArenas entries) with the program's planned arenas
/// (memory ids 1..N in order) and returns N.
size_t model_arenas(Span<uint8_t>* arenas);

/// The method allocator's pool: the bytes load_method allocates for this
/// program (values, tensor metadata, lists, steps, argument lists), 16-byte
/// aligned.
Span<uint8_t> method_pool();

}  // namespace firmware
}  // namespace torchedge
