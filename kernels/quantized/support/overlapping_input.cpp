#include "kernels/quantized/support/overlapping_input.h"

#include <cstring>

#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace quantized {

Result<const int8_t*> input_apart_from_out(KernelContext& ctx, const Tensor& input,
                                           const Tensor& out, const char* op) {
  if (!bytes_overlap(input, out)) return input.data_as<int8_t>();
  void* copy = ctx.allocate_temp(input.nbytes(), 64);
  TE_CHECK_OR_RETURN(copy != nullptr, Error::MemoryAllocationFailed,
                     "%s: out shares the input's bytes; copying the input needs %zu bytes of "
                     "kernel scratch (temp allocator)",
                     op, input.nbytes());
  std::memcpy(copy, input.data(), input.nbytes());
  return static_cast<const int8_t*>(copy);
}

}  // namespace quantized
}  // namespace torchedge
