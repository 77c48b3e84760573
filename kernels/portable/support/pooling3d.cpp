#include "kernels/portable/support/pooling3d.h"

#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "kernels/portable/support/spatial_view.h"
#include "runtime/core/error_message.h"

namespace torchedge {

Error read_pool_triple(Span<EValue*> args, size_t index, const char* name,
                       const int64_t* fallback, int64_t min, const char* op, int64_t* triple) {
  TE_ASSIGN_OR_RETURN(Span<const int64_t> list, int_list_arg(args, index, name));
  if (list.empty() && fallback != nullptr) {
    for (int k = 0; k < 3; ++k) triple[k] = fallback[k];
    return Error::Ok;
  }
  TE_CHECK_OR_RETURN(list.size() == 1 || list.size() == 3, Error::InvalidArgument,
                     "%s: %s must have 1 or 3 values, got %zu", op, name, list.size());
  for (int k = 0; k < 3; ++k) {
    triple[k] = list[list.size() == 1 ? 0 : k];
    TE_CHECK_OR_RETURN(triple[k] >= min, Error::InvalidArgument,
                       "%s: %s must be >= %lld, got %lld", op, name, static_cast<long long>(min),
                       static_cast<long long>(triple[k]));
  }
  return Error::Ok;
}

Error pool3d_output_shape(const Tensor& in, const Window3d& w, bool ceil_mode, const char* op,
                          int64_t* sizes, size_t* rank) {
  TE_RETURN_IF_ERROR(check_spatial_input(in, 3, op));
  const int first = in.dim() - 3;
  for (int d = 0; d < first; ++d) sizes[d] = in.size(d);
  for (int k = 0; k < 3; ++k) {
    TE_RETURN_IF_ERROR(pool_output_size(in.size(first + k), w.kernel[k], w.padding[k],
                                        w.stride[k], w.dilation[k], ceil_mode, op,
                                        &sizes[first + k]));
  }
  *rank = static_cast<size_t>(in.dim());
  return Error::Ok;
}

}  // namespace torchedge
