#include "kernels/portable/support/index_values.h"

#include "runtime/core/error_message.h"

namespace torchedge {

Error check_index_range(const Tensor& index, int64_t size, bool allow_negative,
                        const char* what) {
  const int64_t lowest = allow_negative ? -size : 0;
  // Tensors are dense, so the values are exactly the first numel() elements
  // of the buffer whatever the dim order.
  const int64_t n = static_cast<int64_t>(index.numel());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = load_index(index, i);
    TE_CHECK_OR_RETURN(v >= lowest && v < size, Error::InvalidArgument,
                       "%s: index %lld is out of bounds for a dim of size %lld", what,
                       static_cast<long long>(v), static_cast<long long>(size));
  }
  return Error::Ok;
}

}  // namespace torchedge
