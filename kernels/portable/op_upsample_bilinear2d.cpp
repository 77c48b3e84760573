// aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//     float[]? scale_factors, *, Tensor(a!) out) -> Tensor(a!)
// aten::upsample_bilinear2d.out(Tensor self, SymInt[2] output_size, bool align_corners,
//     float? scales_h=None, float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)
//
// Bilinear resize of the last two dims of an [N, C, H, W] input. vec_out
// takes exactly one of output_size ([OH, OW]) and scale_factors (OH =
// int(H * s_h), in double). The source coordinate of output pixel o is
// ATen's area_pixel_compute_source_index, in float (double for float64):
//   align_corners: o * (in - 1) / (out - 1)
//   otherwise:     max((o + 0.5) * scale - 0.5, 0), scale = 1 / s when a
//                  positive scale was given, else in / out
// then i0 = min(floor(src), in - 1), i1 = i0 + 1 clamped, lambda1 = src - i0
// clamped to [0, 1]; a dim whose size does not change is copied. Weights
// and the blend are float (double for float64), as ATen's float16 and
// bfloat16 results show (they match a float computation rounded once).
// Floating dtypes (ATen's uint8 path uses fixed-point weights and is not
// reproduced); input and out share one. Any dim order.
#include <algorithm>
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// The two source pixels of one output coordinate and their weights.
template <typename T>
struct LinearTap {
  int64_t i0, i1;
  compute_t<T> w0, w1;
};

// ATen's area_pixel_compute_scale; scale_arg <= 0 means "not given".
template <typename C>
C source_scale(int64_t in, int64_t out, bool align_corners, double scale_arg) {
  if (align_corners) return out > 1 ? static_cast<C>(in - 1) / static_cast<C>(out - 1) : C(0);
  return scale_arg > 0 ? static_cast<C>(1.0 / scale_arg) : static_cast<C>(in) / static_cast<C>(out);
}

// ATen's compute_source_index_and_lambda, including its floorf (a float
// floor even for float64).
template <typename T>
LinearTap<T> linear_tap(int64_t o, int64_t in, int64_t out, compute_t<T> scale,
                        bool align_corners) {
  using C = compute_t<T>;
  if (in == out) return {o, o, C(1), C(0)};
  C src = align_corners ? scale * static_cast<C>(o) : scale * (static_cast<C>(o) + C(0.5)) - C(0.5);
  if (!align_corners && src < C(0)) src = C(0);
  const int64_t i0 = std::min(static_cast<int64_t>(std::floor(static_cast<float>(src))), in - 1);
  const C l1 = std::min(std::max(src - static_cast<C>(i0), C(0)), C(1));
  return {i0, i0 + (i0 < in - 1 ? 1 : 0), C(1) - l1, l1};
}

template <typename T>
void bilinear(const Tensor& self, bool align_corners, double scale_h, double scale_w,
              Tensor& out) {
  using C = compute_t<T>;
  const PoolPlanes in = pool_planes(self);
  const PoolPlanes op = pool_planes(out);
  const C sh = source_scale<C>(in.height, op.height, align_corners, scale_h);
  const C sw = source_scale<C>(in.width, op.width, align_corners, scale_w);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for (int64_t n = 0; n < op.batch; ++n) {
    for (int64_t c = 0; c < op.channels; ++c) {
      const T* p = x + in.at(n, c, 0, 0);
      auto at = [&](int64_t ih, int64_t iw) {
        return static_cast<C>(p[ih * in.stride_h + iw * in.stride_w]);
      };
      for (int64_t oh = 0; oh < op.height; ++oh) {
        const LinearTap<T> h = linear_tap<T>(oh, in.height, op.height, sh, align_corners);
        for (int64_t ow = 0; ow < op.width; ++ow) {
          const LinearTap<T> w = linear_tap<T>(ow, in.width, op.width, sw, align_corners);
          // ATen's order: rows blended along w first, then along h.
          const C top = at(h.i0, w.i0) * w.w0 + at(h.i0, w.i1) * w.w1;
          const C bottom = at(h.i1, w.i0) * w.w0 + at(h.i1, w.i1) * w.w1;
          y[op.at(n, c, oh, ow)] = static_cast<T>(top * h.w0 + bottom * h.w1);
        }
      }
    }
  }
}

// scale_h / scale_w <= 0 mean "not given".
Error upsample(const Tensor& self, int64_t out_h, int64_t out_w, bool align_corners,
               double scale_h, double scale_w, Tensor& out, const char* op) {
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
  return switch_dtype_only<kFloatingTypes>(self.dtype(), op, [&](auto tag) {
    bilinear<decltype(tag)>(self, align_corners, scale_h, scale_w, out);
    return Error::Ok;
  });
}

}  // namespace

Error upsample_bilinear2d_vec_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "upsample_bilinear2d.vec_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "input"));
  bool has_size = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size,
                      optional_int_list_arg(args, 1, "output_size", &has_size));
  TE_ASSIGN_OR_RETURN(bool align_corners, bool_arg(args, 2, "align_corners"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  const EValue& scales = *args[3];
  const bool has_scales = !scales.is_none();
  TE_CHECK_OR_RETURN(has_size != has_scales, Error::InvalidArgument,
                     "%s: specify exactly one of output_size and scale_factors", kOp);
  TE_CHECK_OR_RETURN(self->dim() == 4, Error::InvalidArgument,
                     "%s: expected a 4-d input, got %d-d", kOp, self->dim());
  if (has_size) {
    TE_CHECK_OR_RETURN(size.size() == 2, Error::InvalidArgument,
                       "%s: output_size must have 2 values, got %zu", kOp, size.size());
    return upsample(*self, size[0], size[1], align_corners, 0.0, 0.0, *out, kOp);
  }
  TE_CHECK_OR_RETURN(scales.tag() == Tag::DoubleList && scales.to_double_list().size() == 2,
                     Error::InvalidArgument, "%s: scale_factors must be 2 floats", kOp);
  const Span<const double> s = scales.to_double_list();
  TE_CHECK_OR_RETURN(s[0] > 0 && s[1] > 0 && s[0] < 1e9 && s[1] < 1e9, Error::InvalidArgument,
                     "%s: scale_factors must be positive, got [%g, %g]", kOp, s[0], s[1]);
  const int64_t out_h = static_cast<int64_t>(static_cast<double>(self->size(2)) * s[0]);
  const int64_t out_w = static_cast<int64_t>(static_cast<double>(self->size(3)) * s[1]);
  return upsample(*self, out_h, out_w, align_corners, s[0], s[1], *out, kOp);
}

Error upsample_bilinear2d_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "upsample_bilinear2d.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "output_size"));
  TE_ASSIGN_OR_RETURN(bool align_corners, bool_arg(args, 2, "align_corners"));
  TE_ASSIGN_OR_RETURN(double scale_h, optional_double_arg(args, 3, "scales_h", 0.0));
  TE_ASSIGN_OR_RETURN(double scale_w, optional_double_arg(args, 4, "scales_w", 0.0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out"));
  TE_CHECK_OR_RETURN(size.size() == 2, Error::InvalidArgument,
                     "%s: output_size must have 2 values, got %zu", kOp, size.size());
  return upsample(*self, size[0], size[1], align_corners, scale_h, scale_w, *out, kOp);
}

}  // namespace native
}  // namespace torchedge
