// torchedge/backends/xnnpack/node_events.h
//
// What the XNNPACK delegate reports about its own nodes through the
// EventTracer (runtime/executor/event_tracer.h) while its DelegateCall runs
// under a tracer: every delegated node's debug handle (blob_format.h,
// version 3), which the ETRecord maps back to FX nodes, module paths and
// source lines.
//
// Granularity. This XNNPACK (Debian's 2022-02-16 snapshot) runs a whole
// subgraph in one xnn_invoke_runtime and has no per-operator profiling
// (no xnn_get_runtime_profiling_info), so the finest interval measured is
// a stage of execute():
//
//   XNNPACK_INPUT_LAYOUT    NCHW -> NHWC copies of inputs (when any)
//   XNNPACK_SETUP           xnn_setup_runtime (when a tensor moved)
//   XNNPACK_INVOKE          xnn_invoke_runtime: every node
//   XNNPACK_OUTPUT_LAYOUT   NHWC -> NCHW copies of outputs (when any)
//
// Stage events carry debug id -1. Then one event per debug handle (named
// by its first node's opcode, "conv2d", ...) whose interval is the
// XNNPACK_INVOKE interval it ran in: every handle of a call shares it, the
// nodes are not timed one by one.
#pragma once

#include <cstdint>

#include "backends/xnnpack/blob_reader.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/executor/event_tracer.h"

namespace torchedge {
namespace xnnpack {

/// Stage names (string literals, as the tracer's records borrow them).
constexpr const char* kInputLayoutEvent = "XNNPACK_INPUT_LAYOUT";
constexpr const char* kSetupEvent = "XNNPACK_SETUP";
constexpr const char* kInvokeEvent = "XNNPACK_INVOKE";
constexpr const char* kOutputLayoutEvent = "XNNPACK_OUTPUT_LAYOUT";

/// One entry per distinct debug handle, in execution order.
struct NodeEventTable {
  uint32_t count = 0;
  const uint32_t* handles = nullptr;
  const char* const* names = nullptr;  // opcode names (static strings)
};

/// Reads the handles of `parsed`'s node records (valid during init) into
/// `allocator`. Consecutive nodes with one handle (a step lowered to
/// several XNNPACK nodes) make one entry. MemoryAllocationFailed when the
/// allocator runs out; blob errors as NodeReader reports them.
Result<NodeEventTable> make_node_event_table(const ParsedBlob& parsed,
                                             MemoryAllocator* allocator);


/// Logs one event per entry of `table` with the interval [start, end).
void report_nodes(EventTracer* tracer, const NodeEventTable& table, uint64_t start_ns,
                  uint64_t end_ns);

}  // namespace xnnpack
}  // namespace torchedge
