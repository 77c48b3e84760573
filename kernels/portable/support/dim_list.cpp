#include "kernels/portable/support/dim_list.h"

#include "kernels/portable/support/kernel_args.h"

namespace torchedge {

Error normalize_dim_list(Span<const int64_t> dims, int rank, bool allow_duplicates,
                         const char* what, int* out) {
  TE_CHECK_OR_RETURN(dims.size() <= static_cast<size_t>(kTensorDimensionLimit),
                     Error::InvalidArgument, "%s has %zu entries, more than the limit of %d",
                     what, dims.size(), kTensorDimensionLimit);
  bool seen[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    TE_ASSIGN_OR_RETURN(out[i], normalize_dim(dims[i], rank, what));
    TE_CHECK_OR_RETURN(allow_duplicates || !seen[out[i]], Error::InvalidArgument,
                       "%s: dim %d appears multiple times", what, out[i]);
    seen[out[i]] = true;
  }
  return Error::Ok;
}

Error expect_out_dim_order(Span<const int64_t> dim_order, const Tensor& out) {
  bool same = dim_order.size() == static_cast<size_t>(out.dim());
  for (size_t i = 0; same && i < dim_order.size(); ++i) same = dim_order[i] == out.dim_order()[i];
  TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                     "dim_order argument (%zu entries) differs from out's dim order (rank %d)",
                     dim_order.size(), out.dim());
  return Error::Ok;
}

}  // namespace torchedge
