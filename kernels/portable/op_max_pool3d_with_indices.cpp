// aten::max_pool3d_with_indices.out(Tensor self, int[3] kernel_size, int[3] stride=[],
//     int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
//
// 3-d max pooling of a [C, D, H, W] or [N, C, D, H, W] input; `indices`
// (int64) holds each max's flat position (d * H + h) * W + w in its input
// volume. As max_pool2d_with_indices.out: NaN wins (the last NaN's position
// is kept), ties keep the first position, and a window of only -inf (or the
// type's lowest value) points at its first in-bounds element. Real dtypes
// (not bool); self and out share one; any dim order.
#include <limits>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling3d.h"
#include "kernels/portable/support/spatial_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "max_pool3d_with_indices.out";

template <typename T>
void max_pool(const Tensor& self, const Window3d& w, Tensor& out, Tensor& indices) {
  using C = compute_t<T>;
  const C lowest = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                        : std::numeric_limits<C>::lowest();
  const SpatialView in = spatial_view(self, 3);
  const SpatialView ov = spatial_view(out, 3);
  const SpatialView iv = spatial_view(indices, 3);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  int64_t* idx = indices.mutable_data_as<int64_t>();
  for (int64_t p = 0; p < ov.planes(); ++p) {
    const T* plane = x + in.plane_at(p);
    int64_t o[3];
    for (o[0] = 0; o[0] < ov.size[0]; ++o[0]) {
      for (o[1] = 0; o[1] < ov.size[1]; ++o[1]) {
        for (o[2] = 0; o[2] < ov.size[2]; ++o[2]) {
          int64_t start[3], end[3];
          for (int k = 0; k < 3; ++k) {
            start[k] = o[k] * w.stride[k] - w.padding[k];
            end[k] = start[k] + (w.kernel[k] - 1) * w.dilation[k] + 1;
            if (end[k] > in.size[k]) end[k] = in.size[k];
            while (start[k] < 0) start[k] += w.dilation[k];
          }
          C best = lowest;
          int64_t best_index = (start[0] * in.size[1] + start[1]) * in.size[2] + start[2];
          for (int64_t d = start[0]; d < end[0]; d += w.dilation[0]) {
            for (int64_t h = start[1]; h < end[1]; h += w.dilation[1]) {
              for (int64_t i = start[2]; i < end[2]; i += w.dilation[2]) {
                const C v = static_cast<C>(
                    plane[d * in.stride[0] + h * in.stride[1] + i * in.stride[2]]);
                if (v > best || v != v) {
                  best = v;
                  best_index = (d * in.size[1] + h) * in.size[2] + i;
                }
              }
            }
          }
          y[ov.plane_at(p) + o[0] * ov.stride[0] + o[1] * ov.stride[1] + o[2] * ov.stride[2]] =
              static_cast<T>(best);
          idx[iv.plane_at(p) + o[0] * iv.stride[0] + o[1] * iv.stride[1] + o[2] * iv.stride[2]] =
              best_index;
        }
      }
    }
  }
}

}  // namespace

Error max_pool3d_with_indices_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(args, 5, "ceil_mode"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 7, "indices"));
  Window3d w;
  TE_RETURN_IF_ERROR(read_pool_triple(args, 1, "kernel_size", nullptr, 1, kOp, w.kernel));
  TE_RETURN_IF_ERROR(read_pool_triple(args, 2, "stride", w.kernel, 1, kOp, w.stride));
  TE_RETURN_IF_ERROR(read_pool_triple(args, 3, "padding", nullptr, 0, kOp, w.padding));
  TE_RETURN_IF_ERROR(read_pool_triple(args, 4, "dilation", nullptr, 1, kOp, w.dilation));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*indices, ScalarType::Long, "indices"));
  int64_t sizes[5];
  size_t rank = 0;
  TE_RETURN_IF_ERROR(pool3d_output_shape(*self, w, ceil_mode, kOp, sizes, &rank));
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, rank}));
  TE_RETURN_IF_ERROR(resize_to(*indices, {sizes, rank}));
  return switch_dtype_only<kRealTypes>(self->dtype(), kOp, [&](auto tag) {
    max_pool<decltype(tag)>(*self, w, *out, *indices);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
