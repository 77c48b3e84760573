// torchedge/runtime/executor/program_verifier.h
//
// Semantic verification of a flatbuffer that already passed the flatbuffers
// verifier (which guarantees every table/vector lies inside the buffer, not
// that indices between tables make sense). After verify_program() returns
// Ok, the loader can follow every index without further range checks:
//   - segments lie inside the segment data of the file;
//   - every value index (plan inputs/outputs, kernel args, list items, move,
//     jump, free) is inside the plan's values and has the kind its user needs;
//   - every operator/delegate index is inside its table; jumps stay inside
//     the chain;
//   - tensors have rank <= kTensorDimensionLimit, non-negative sizes, a
//     dim_order that is a permutation, a supported dtype, and a byte size
//     that does not overflow; planned tensors name an existing arena and fit
//     in its planned size.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace executorch_flatbuffer {
struct Program;
}

namespace torchedge {

/// `segment_bytes`: bytes of segment data available after the segment base
/// offset (0 when the file has none). Records a message naming the method,
/// value or instruction on failure and returns Error::InvalidProgram.
Error verify_program(const executorch_flatbuffer::Program* program, size_t segment_bytes);

}  // namespace torchedge
