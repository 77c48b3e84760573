#include "kernels/portable/support/edge_padding.h"

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/spatial_view.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

// The input position out position `o` reads along one axis.
inline int64_t source(int64_t o, int64_t before, int64_t size, EdgePadMode mode) {
  int64_t p = o - before;
  if (mode == EdgePadMode::kReplicate) return p < 0 ? 0 : (p >= size ? size - 1 : p);
  if (p < 0) p = -p;
  return p >= size ? 2 * (size - 1) - p : p;
}

}  // namespace

Error edge_pad_out(Span<EValue*> args, int spatial, EdgePadMode mode, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> padding, int_list_arg(args, 1, "padding"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(padding.size() == static_cast<size_t>(2 * spatial), Error::InvalidArgument,
                     "%s: padding must have %d values, got %zu", op, 2 * spatial, padding.size());
  TE_RETURN_IF_ERROR(check_spatial_input(*self, spatial, op));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const SpatialView in = spatial_view(*self, spatial);
  int64_t before[3] = {0, 0, 0};
  int64_t sizes[kTensorDimensionLimit];
  const int rank = self->dim();
  for (int d = 0; d < rank; ++d) sizes[d] = self->size(d);
  for (int k = 0; k < spatial; ++k) {  // k = 0: the last dim (padding lists it first)
    const int64_t lo = padding[2 * k], hi = padding[2 * k + 1];
    const int dim = rank - 1 - k;
    const int64_t size = self->size(dim);
    if (mode == EdgePadMode::kReflect) {
      TE_CHECK_OR_RETURN(lo < size && hi < size, Error::InvalidArgument,
                         "%s: padding (%lld, %lld) must be less than input dim %d of size %lld",
                         op, static_cast<long long>(lo), static_cast<long long>(hi), dim,
                         static_cast<long long>(size));
    }
    sizes[dim] = size + lo + hi;
    TE_CHECK_OR_RETURN(sizes[dim] >= 1, Error::InvalidArgument,
                       "%s: padding (%lld, %lld) leaves input dim %d of size %lld with %lld "
                       "elements (at least 1 needed)",
                       op, static_cast<long long>(lo), static_cast<long long>(hi), dim,
                       static_cast<long long>(size), static_cast<long long>(sizes[dim]));
    before[2 - k] = lo;  // SpatialView order: D, H, W
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(rank)}));
  const SpatialView ov = spatial_view(*out, spatial);
  return switch_dtype(self->dtype(), kRealTypes, op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = self->data_as<T>();
    T* y = out->mutable_data_as<T>();
    for (int64_t p = 0; p < ov.planes(); ++p) {
      const T* src = x + in.plane_at(p);
      T* dst = y + ov.plane_at(p);
      for (int64_t od = 0; od < ov.size[0]; ++od) {
        const int64_t id = source(od, before[0], in.size[0], mode) * in.stride[0];
        for (int64_t oh = 0; oh < ov.size[1]; ++oh) {
          const int64_t ih = id + source(oh, before[1], in.size[1], mode) * in.stride[1];
          T* row = dst + od * ov.stride[0] + oh * ov.stride[1];
          for (int64_t ow = 0; ow < ov.size[2]; ++ow) {
            row[ow * ov.stride[2]] = src[ih + source(ow, before[2], in.size[2], mode) * in.stride[2]];
          }
        }
      }
    }
    return Error::Ok;
  });
}

}  // namespace torchedge
