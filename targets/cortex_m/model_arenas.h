// torchedge/targets/cortex_m/model_arenas.h
//
// The planned arenas of the embedded program as static buffers, defined by
// the generated model file (scripts/embed_program.py) at the sizes the
// program plans, so nothing is sized at run time.
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

}  // namespace firmware
}  // namespace torchedge
