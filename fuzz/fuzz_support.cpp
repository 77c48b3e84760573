#include "fuzz/fuzz_support.h"

#include <cstring>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "extension/module/tensor_buffer.h"
#include "kernels/optimized/register_optimized_kernels.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim/prim_kernels.h"
#include "kernels/quantized/register_quantized_kernels.h"

namespace torchedge {
namespace fuzz {

void register_everything() {
  static const bool done = [] {
    register_portable_kernels();
    register_prim_kernels();
    register_quantized_kernels();
    register_optimized_kernels();
    register_xnnpack_backend();
    set_num_threads(1);
    return true;
  }();
  (void)done;
}

bool memory_within_policy(const MethodMeta& meta) {
  size_t total = meta.method_allocator_bytes();
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    Result<size_t> size = meta.planned_buffer_size(i);
    if (!size.ok() || size.get() > kMaxBytes) return false;
    total += size.get();
  }
  return total <= kMaxBytes && meta.num_delegates() <= 16;
}

void run_method(Method& method, const MethodMeta& meta) {
  std::vector<TensorBuffer> buffers;
  buffers.reserve(meta.num_inputs());
  size_t input_bytes = 0;
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    Result<TensorInfo> info = meta.input_tensor_info(i);
    if (!info.ok()) {  // a scalar input (or a bad one: set_input must say so)
      Result<int> tag = meta.input_tag(i);
      if (!tag.ok()) return;
      if (tag.get() == static_cast<int>(Tag::Double)) {
        method.set_input(i, EValue(0.0));
      } else if (tag.get() == static_cast<int>(Tag::Bool)) {
        method.set_input(i, EValue(false));
      } else {
        method.set_input(i, EValue(int64_t{0}));
      }
      continue;
    }
    input_bytes += info->nbytes;
    if (info->nbytes > kMaxInputBytes || input_bytes > kMaxInputBytes) return;
    buffers.emplace_back(info->dtype,
                         std::vector<int32_t>(info->sizes.begin(), info->sizes.end()));
    memset(buffers.back().data(), 0, buffers.back().nbytes());
    method.set_input(i, EValue(&buffers.back().tensor()));
  }
  method.execute();
}

}  // namespace fuzz
}  // namespace torchedge
