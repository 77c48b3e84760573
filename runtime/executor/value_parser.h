// torchedge/runtime/executor/value_parser.h
//
// Turns a plan's serialized values into runtime EValues (internal to the
// executor). Tensors get their metadata from the method allocator and their
// data from the program's constants or the planned arenas; a planned tensor
// that also names an initial value (a mutable buffer: allocation_info plus
// data_buffer_idx > 0, indexing Program.mutable_data_segments) gets that
// value copied into its planned memory here, once per load. A tensor stored
// in an external data file (external_tensor.h) points at `named_data`'s
// bytes, checked against the layout the program declares. Lists are boxed
// over the values array. Assumes a verified program (see
// program_verifier.h) and re-checks only what depends on the caller's
// memory.
#pragma once

#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/executor/named_data_map.h"
#include "runtime/executor/program.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
}

namespace torchedge {

/// Allocates and fills the values array of `plan`; `*num_values` receives
/// its length. `named_data` (borrowed, may be null when the program has no
/// external tensors) must outlive the values.
Result<EValue*> parse_values(const Program& program,
                             const executorch_flatbuffer::ExecutionPlan* plan,
                             MemoryManager* memory, const NamedDataMap* named_data,
                             size_t* num_values);

}  // namespace torchedge
