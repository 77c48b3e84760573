// torchedge/backends/xnnpack/subgraph_builder.h
//
// Turns a parsed "TEX1" blob into an XNNPACK subgraph: validates every node
// (node_validator.h) before defining anything, copies the constants XNNPACK
// reads at execute time out of the blob (which is released after init), then
// defines values and nodes.
//
// Blob value i that is an input or output becomes XNNPACK external value i
// (so external ids are [0, num_inputs + num_outputs)); other values get
// XNNPACK's own ids, recorded in ValueInfo::xnn_id.
#pragma once

#include <xnnpack.h>

#include "backends/xnnpack/blob_reader.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"

namespace torchedge {
namespace xnnpack {

/// Owns an xnn_subgraph_t and deletes it when it goes out of scope (the
/// runtime created from it is independent of it).
class SubgraphOwner {
 public:
  SubgraphOwner() = default;
  SubgraphOwner(const SubgraphOwner&) = delete;
  SubgraphOwner& operator=(const SubgraphOwner&) = delete;
  ~SubgraphOwner() {
    if (subgraph_ != nullptr) xnn_delete_subgraph(subgraph_);
  }
  xnn_subgraph_t get() const { return subgraph_; }
  xnn_subgraph_t* out() { return &subgraph_; }

 private:
  xnn_subgraph_t subgraph_ = nullptr;
};

/// Builds the subgraph into `owner`. Constants that must outlive the blob
/// are copied into `allocator`. Error::DelegateInvalidCompatibility for a
/// malformed blob or a definition XNNPACK refuses (the message names the
/// node), Error::MemoryAllocationFailed when `allocator` runs out.
Error build_subgraph(ParsedBlob& parsed, MemoryAllocator* allocator, SubgraphOwner* owner);

}  // namespace xnnpack
}  // namespace torchedge
