// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors,
//     *, Tensor(a!) out) -> Tensor(a!)
// aten::upsample_nearest2d.out(Tensor self, SymInt[2] output_size, float? scales_h=None,
//     float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)
//
// Nearest-neighbour resize of the last two dims of an [N, C, H, W] input.
// vec_out takes exactly one of output_size ([OH, OW]) and scale_factors
// (OH = floor(H * s_h)). Output pixel o reads input min(floor(o * scale),
// H - 1) with scale = 1 / s_h when a positive scale is given, else H / OH,
// computed in float as ATen does. Every dtype; input and out share one.
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// ATen's nearest_idx for one output coordinate.
int64_t nearest_source(int64_t o, int64_t in, int64_t out, double scale_arg) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float scale = scale_arg > 0 ? static_cast<float>(1.0 / scale_arg)
                                    : static_cast<float>(in) / static_cast<float>(out);
  const int64_t src = static_cast<int64_t>(std::floor(static_cast<float>(o) * scale));
  return src < in - 1 ? src : in - 1;
}

// scales <= 0 mean "not given".
Error upsample(const Tensor& self, int64_t out_h, int64_t out_w, double scale_h, double scale_w,
               Tensor& out, const char* op) {
  TE_CHECK_OR_RETURN(self.dim() == 4, Error::InvalidArgument,
                     "%s: expected a 4-d input, got %d-d", op, self.dim());
  TE_CHECK_OR_RETURN(out_h > 0 && out_w > 0 && self.size(2) > 0 && self.size(3) > 0,
                     Error::InvalidArgument,
                     "%s: input [%d, %d] and output [%lld, %lld] sizes must be positive", op,
                     self.size(2), self.size(3), static_cast<long long>(out_h),
                     static_cast<long long>(out_w));
  TE_RETURN_IF_ERROR(expect_same_dtype(self, out, "input", "out"));
  const int64_t sizes[] = {self.size(0), self.size(1), out_h, out_w};
  TE_RETURN_IF_ERROR(resize_to(out, sizes));
  const PoolPlanes in = pool_planes(self);
  const PoolPlanes op_planes = pool_planes(out);
  return switch_dtype(self.dtype(), kAllTypes, op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = self.data_as<T>();
    T* y = out.mutable_data_as<T>();
    for_each_pool_output(op_planes, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
      const int64_t ih = nearest_source(oh, in.height, out_h, scale_h);
      const int64_t iw = nearest_source(ow, in.width, out_w, scale_w);
      y[op_planes.at(n, c, oh, ow)] = x[in.at(n, c, ih, iw)];
    });
    return Error::Ok;
  });
}

}  // namespace

Error upsample_nearest2d_vec_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "upsample_nearest2d.vec_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "input"));
  bool has_size = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size,
                      optional_int_list_arg(args, 1, "output_size", &has_size));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  const EValue& scales = *args[2];
  const bool has_scales = !scales.is_none();
  TE_CHECK_OR_RETURN(has_size != has_scales, Error::InvalidArgument,
                     "%s: specify exactly one of output_size and scale_factors", kOp);
  TE_CHECK_OR_RETURN(self->dim() == 4, Error::InvalidArgument,
                     "%s: expected a 4-d input, got %d-d", kOp, self->dim());
  if (has_size) {
    TE_CHECK_OR_RETURN(size.size() == 2, Error::InvalidArgument,
                       "%s: output_size must have 2 values, got %zu", kOp, size.size());
    return upsample(*self, size[0], size[1], 0.0, 0.0, *out, kOp);
  }
  TE_CHECK_OR_RETURN(scales.tag() == Tag::DoubleList && scales.to_double_list().size() == 2,
                     Error::InvalidArgument, "%s: scale_factors must be 2 floats", kOp);
  const Span<const double> s = scales.to_double_list();
  const int64_t out_h = static_cast<int64_t>(static_cast<double>(self->size(2)) * s[0]);
  const int64_t out_w = static_cast<int64_t>(static_cast<double>(self->size(3)) * s[1]);
  return upsample(*self, out_h, out_w, s[0], s[1], *out, kOp);
}

Error upsample_nearest2d_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "upsample_nearest2d.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "output_size"));
  TE_ASSIGN_OR_RETURN(double scale_h, optional_double_arg(args, 2, "scales_h", 0.0));
  TE_ASSIGN_OR_RETURN(double scale_w, optional_double_arg(args, 3, "scales_w", 0.0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_CHECK_OR_RETURN(size.size() == 2, Error::InvalidArgument,
                     "%s: output_size must have 2 values, got %zu", kOp, size.size());
  return upsample(*self, size[0], size[1], scale_h, scale_w, *out, kOp);
}

}  // namespace native
}  // namespace torchedge
