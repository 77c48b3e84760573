// Shared pieces of the concurrency and exhaustion tests: which programs they
// run, caller-owned memory for one Method sized to chosen budgets, inputs
// with fixed contents, and byte snapshots of outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/module/tensor_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace torchedge {
namespace stress {

struct ModelFile {
  std::string name;  // file name, e.g. "mlp_xnnpack.pte"
  std::string path;
  size_t bytes;
};

/// The .pte files in $TORCHEDGE_TEST_MODELS (the exported test models) and
/// in the checked-in stress models (XNNPACK-delegated), sorted by name.
/// Files over `max_bytes` are left out (0: no limit).
std::vector<ModelFile> test_models(size_t max_bytes);

/// A positive integer (or 0 when `zero_allowed`) from the environment, or
/// `fallback` when unset or not such a number.
size_t env_size(const char* name, size_t fallback, bool zero_allowed = false);

/// Memory for one Method: a method allocator, one arena per planned buffer
/// and a temp allocator, each of the given size. The storage behind each
/// is larger (zeroed, 64-byte aligned, with slack the XNNPACK delegate may
/// read past an input); the allocators and spans see only the budget.
class MethodMemory {
 public:
  /// `planned[i]`: bytes of arena i (one per MethodMeta planned buffer).
  MethodMemory(size_t method_bytes, const std::vector<size_t>& planned, size_t temp_bytes);
  MemoryManager* manager() { return &manager_; }

 private:
  static uint8_t* block(std::vector<std::unique_ptr<uint64_t[]>>* storage, size_t bytes);

  std::vector<std::unique_ptr<uint64_t[]>> storage_;
  MemoryAllocator method_allocator_;
  MemoryAllocator temp_allocator_;
  std::vector<Span<uint8_t>> arenas_;
  PlannedMemory planned_;
  MemoryManager manager_;
};

/// What `meta` says the method needs: method-allocator bytes (plus
/// `delegate_reserve` per delegate) and each planned buffer's size.
size_t method_bytes_of(const MethodMeta& meta, size_t delegate_reserve);
std::vector<size_t> planned_sizes_of(const MethodMeta& meta);

/// Inputs of the declared shapes and dtypes: floats from a fixed
/// pseudo-random sequence in [-1, 1), integers and bools zero (token ids,
/// positions and masks stay in range).
class Inputs {
 public:
  explicit Inputs(const MethodMeta& meta);
  /// Sets every input of `method`; false (with the runtime's message) on failure.
  Error set(Method& method);

 private:
  std::vector<std::unique_ptr<TensorBuffer>> tensors_;
  std::vector<EValue> values_;
};

/// Every output's bytes, concatenated (tensors), or its payload (scalars).
std::vector<uint8_t> output_bytes(const Method& method);

}  // namespace stress
}  // namespace torchedge
