// aten::_adaptive_avg_pool3d.out(Tensor self, SymInt[3] output_size, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// Adaptive 3-d average pooling of a [C, D, H, W] or [N, C, D, H, W] input
// to output_size [OD, OH, OW] (each >= 0): along each dim, output o averages
// input positions floor(o * I / O) .. ceil((o + 1) * I / O) - 1. Floating
// dtypes, summed in double; self and out share one; any dim order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/spatial_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "_adaptive_avg_pool3d.out";

template <typename T>
void adaptive_avg_pool(const Tensor& self, Tensor& out) {
  const SpatialView in = spatial_view(self, 3);
  const SpatialView ov = spatial_view(out, 3);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for (int64_t p = 0; p < ov.planes(); ++p) {
    const T* plane = x + in.plane_at(p);
    int64_t o[3];
    for (o[0] = 0; o[0] < ov.size[0]; ++o[0]) {
      for (o[1] = 0; o[1] < ov.size[1]; ++o[1]) {
        for (o[2] = 0; o[2] < ov.size[2]; ++o[2]) {
          int64_t start[3], end[3], count = 1;
          for (int k = 0; k < 3; ++k) {
            start[k] = o[k] * in.size[k] / ov.size[k];
            end[k] = ((o[k] + 1) * in.size[k] + ov.size[k] - 1) / ov.size[k];
            count *= end[k] - start[k];
          }
          double sum = 0;
          for (int64_t d = start[0]; d < end[0]; ++d) {
            for (int64_t h = start[1]; h < end[1]; ++h) {
              for (int64_t i = start[2]; i < end[2]; ++i) {
                sum += static_cast<double>(
                    plane[d * in.stride[0] + h * in.stride[1] + i * in.stride[2]]);
              }
            }
          }
          y[ov.plane_at(p) + o[0] * ov.stride[0] + o[1] * ov.stride[1] + o[2] * ov.stride[2]] =
              static_cast<T>(sum / static_cast<double>(count));
        }
      }
    }
  }
}

}  // namespace

Error adaptive_avg_pool3d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "output_size"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(size.size() == 3 && size[0] >= 0 && size[1] >= 0 && size[2] >= 0,
                     Error::InvalidArgument, "%s: output_size must be 3 non-negative values",
                     kOp);
  TE_RETURN_IF_ERROR(check_spatial_input(*self, 3, kOp));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int64_t sizes[5];
  const int first = self->dim() - 3;
  for (int d = 0; d < first; ++d) sizes[d] = self->size(d);
  for (int k = 0; k < 3; ++k) sizes[first + k] = size[k];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(self->dim())}));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), kOp, [&](auto tag) {
    adaptive_avg_pool<decltype(tag)>(*self, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
