#include "kernels/portable/support/spatial_view.h"

#include "runtime/core/error_message.h"

namespace torchedge {

SpatialView spatial_view(const Tensor& t, int spatial) {
  SpatialView v;
  const int first = t.dim() - spatial;  // the first spatial dim
  if (first == 2) {
    v.batch = t.size(0);
    v.stride_n = t.stride(0);
  }
  v.channels = t.size(first - 1);
  v.stride_c = t.stride(first - 1);
  for (int k = 0; k < spatial; ++k) {
    v.size[3 - spatial + k] = t.size(first + k);
    v.stride[3 - spatial + k] = t.stride(first + k);
  }
  return v;
}

Error check_spatial_input(const Tensor& in, int spatial, const char* op) {
  const bool batched = in.dim() == spatial + 2;
  TE_CHECK_OR_RETURN(batched || in.dim() == spatial + 1, Error::InvalidArgument,
                     "%s: expected a %d-d or %d-d (batched) input, got %d-d", op, spatial + 1,
                     spatial + 2, in.dim());
  for (int d = batched ? 1 : 0; d < in.dim(); ++d) {
    TE_CHECK_OR_RETURN(in.size(d) > 0, Error::InvalidArgument,
                       "%s: input dim %d is empty (only the batch dim may be)", op, d);
  }
  return Error::Ok;
}

}  // namespace torchedge
