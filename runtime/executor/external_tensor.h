// torchedge/runtime/executor/external_tensor.h
//
// Tensors whose bytes live outside the .pte (internal to the executor).
// A writer marks one with ExtraTensorInfo{fully_qualified_name = key,
// location = EXTERNAL}; its data_buffer_idx is then meaningless (upstream
// writes an index into its own list of external buffers, torchedge 0).
// Without allocation_info it is a read-only constant read in place from a
// NamedDataMap; with it, a mutable buffer whose initial value comes from
// there.
#pragma once

#include <cstddef>

#include "runtime/core/result.h"
#include "runtime/executor/named_data_map.h"

namespace executorch_flatbuffer {
struct Tensor;
}

namespace torchedge {

/// True when `t` names external data (location EXTERNAL).
bool is_external_tensor(const executorch_flatbuffer::Tensor* t);

/// The bytes of external tensor `t` (value `index`, `nbytes` at its declared
/// shape) from `named_data`, checked: the map is given (InvalidExternalData
/// otherwise), holds the key (NotFound), its layout (when stored) has the
/// tensor's dtype, sizes and dim order and its data at least `nbytes` bytes,
/// aligned for the dtype (InvalidExternalData). Messages name the value, the
/// key and the file.
Result<const void*> external_tensor_data(const executorch_flatbuffer::Tensor* t, size_t nbytes,
                                         const NamedDataMap* named_data, size_t index);

}  // namespace torchedge
