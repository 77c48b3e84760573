// torchedge/backends/xnnpack/node_validator.h
//
// Checks one blob node completely before XNNPACK sees it: the number of
// value ids and parameters its opcode takes, that every id names a value
// (inputs, constants or values an earlier node produced: the graph is in
// execution order and each value is produced once), that weights are
// constants, and that every shape agrees with the parameters, the output's
// shape included. XNNPACK sizes its buffers from the declared shapes and
// trusts them, so this check is what keeps a malformed blob from becoming
// an out-of-bounds write.
//
// On success the node's output is marked defined and constants XNNPACK will
// read at execute time (operands of elementwise nodes, as opposed to
// weights it packs at init) are marked read_at_run.
#pragma once

#include <cstdint>

#include "backends/xnnpack/blob_reader.h"
#include "runtime/core/error.h"

namespace torchedge {
namespace xnnpack {

/// Human-readable opcode name ("conv2d", ...), for messages.
const char* op_name(OpCode op);

/// Error::DelegateInvalidCompatibility (with a message naming node `index`
/// and its opcode) when the node is malformed.
Error validate_node(const NodeInfo& node, uint32_t index, ParsedBlob& parsed);

}  // namespace xnnpack
}  // namespace torchedge
