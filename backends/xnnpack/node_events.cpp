#include "backends/xnnpack/node_events.h"

#include "backends/xnnpack/node_validator.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace xnnpack {

Result<NodeEventTable> make_node_event_table(const ParsedBlob& parsed,
                                             MemoryAllocator* allocator) {
  const uint32_t n = parsed.num_nodes;
  uint32_t* handles = allocator->allocate_array<uint32_t>(n + 1);
  const char** names = allocator->allocate_array<const char*>(n + 1);
  TE_CHECK_OR_RETURN(handles != nullptr && names != nullptr, Error::MemoryAllocationFailed,
                     "xnnpack delegate: method allocator exhausted for %u node debug handles", n);
  NodeEventTable table;
  NodeReader reader(parsed);
  while (!reader.done()) {
    NodeInfo node;
    TE_RETURN_IF_ERROR(reader.next(&node));
    // A step's nodes are contiguous (the writer emits them together).
    if (table.count > 0 && handles[table.count - 1] == node.debug_handle) continue;
    handles[table.count] = node.debug_handle;
    names[table.count] = op_name(node.op);
    ++table.count;
  }
  table.handles = handles;
  table.names = names;
  return table;
}

void report_nodes(EventTracer* tracer, const NodeEventTable& table, uint64_t start_ns,
                  uint64_t end_ns) {
  for (uint32_t i = 0; i < table.count; ++i) {
    // Handles are < 2^31 in any blob the writer makes; a larger one is
    // reported as is (the tracer's id is a signed 32-bit slot).
    tracer->log_delegate_event(table.names[i], static_cast<int32_t>(table.handles[i]), nullptr,
                               start_ns, end_ns);
  }
}

}  // namespace xnnpack
}  // namespace torchedge
