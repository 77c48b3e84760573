// aten::_upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
//     float? scales_h=None, float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)
//
// Antialiased bilinear resize of an [N, C, H, W] input to [N, C, OH, OW]
// (F.interpolate(..., mode="bilinear", antialias=True)): separable, each
// output pixel the normalized triangle-filter average of the input pixels
// within `support` of its centre, where the filter is stretched by the
// scale when downsampling (so every input pixel contributes) and is the
// plain bilinear kernel when upsampling. Scales follow ATen's
// area_pixel_compute_scale. Rows first into scratch, then columns, in
// double; float32 and float64. Any dim order.
#include <algorithm>
#include <cmath>

#include "kernels/portable/support/matrix_batch.h"  // double_scratch
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "_upsample_bilinear2d_aa.out";
constexpr DtypeSet kFloat32And64 = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);

double area_scale(int64_t in, int64_t out, bool align_corners, double given) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return given > 0 ? 1.0 / given : static_cast<double>(in) / static_cast<double>(out);
}

// The input span [first, first + count) and normalized weights of output
// index i along an axis of `in` pixels.
// (align_corners changes only the scale: eager's antialiased path keeps the
// half-pixel centres either way.)
int64_t taps(int64_t i, int64_t in, double scale, int64_t* first, double* weights) {
  const double support = scale >= 1.0 ? scale : 1.0;
  const double inverse = scale >= 1.0 ? 1.0 / scale : 1.0;
  const double delta = 0.5;
  const double centre = scale * (static_cast<double>(i) + delta);
  const int64_t lo = std::max<int64_t>(static_cast<int64_t>(centre - support + delta), 0);
  const int64_t hi = std::min<int64_t>(static_cast<int64_t>(centre + support + delta), in);
  double total = 0;
  for (int64_t j = lo; j < hi; ++j) {
    const double w = std::max(0.0, 1.0 - std::fabs((static_cast<double>(j) - centre + delta) * inverse));
    weights[j - lo] = w;
    total += w;
  }
  for (int64_t j = lo; j < hi && total > 0; ++j) weights[j - lo] /= total;
  *first = lo;
  return hi - lo;
}

template <typename T>
Error resize_aa(KernelContext& ctx, const Tensor& x, bool align_corners, double sh, double sw, Tensor& out) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t oh = out.size(2), ow = out.size(3);
  const double scale_h = area_scale(h, oh, align_corners, sh), scale_w = area_scale(w, ow, align_corners, sw);
  const int64_t taps_max = std::max(h, w) + 2;
  TE_ASSIGN_OR_RETURN(double* rows, double_scratch(ctx, h * ow + taps_max, kOp));
  double* weights = rows + h * ow;
  const T* xd = x.data_as<T>();
  T* yd = out.mutable_data_as<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t base = b * x.stride(0) + ch * x.stride(1);
      for (int64_t j = 0; j < ow; ++j) {  // along W: [h, ow]
        int64_t first;
        const int64_t count = taps(j, w, scale_w, &first, weights);
        for (int64_t r = 0; r < h; ++r) {
          double acc = 0;
          for (int64_t t = 0; t < count; ++t) {
            acc += weights[t] * static_cast<double>(xd[base + r * x.stride(2) + (first + t) * x.stride(3)]);
          }
          rows[r * ow + j] = acc;
        }
      }
      const int64_t out_base = b * out.stride(0) + ch * out.stride(1);
      for (int64_t i = 0; i < oh; ++i) {  // along H
        int64_t first;
        const int64_t count = taps(i, h, scale_h, &first, weights);
        for (int64_t j = 0; j < ow; ++j) {
          double acc = 0;
          for (int64_t t = 0; t < count; ++t) acc += weights[t] * rows[(first + t) * ow + j];
          yd[out_base + i * out.stride(2) + j * out.stride(3)] = static_cast<T>(acc);
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace

Error upsample_bilinear2d_aa_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "output_size"));
  TE_ASSIGN_OR_RETURN(bool align_corners, bool_arg(args, 2, "align_corners"));
  TE_ASSIGN_OR_RETURN(double sh, optional_double_arg(args, 3, "scales_h", -1.0));
  TE_ASSIGN_OR_RETURN(double sw, optional_double_arg(args, 4, "scales_w", -1.0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out"));
  TE_CHECK_OR_RETURN(self->dim() == 4 && size.size() == 2 && size[0] > 0 && size[1] > 0,
                     Error::InvalidArgument, "%s: expected a 4-d input and a positive output_size [OH, OW]", kOp);
  TE_CHECK_OR_RETURN(self->size(2) > 0 && self->size(3) > 0, Error::InvalidArgument,
                     "%s: expected a non-empty input height and width", kOp);
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const int64_t sizes[] = {self->size(0), self->size(1), size[0], size[1]};
  TE_RETURN_IF_ERROR(resize_to(*out, sizes));
  return switch_dtype_only<kFloat32And64>(self->dtype(), kOp, [&](auto tag) {
    return resize_aa<decltype(tag)>(ctx, *self, align_corners, sh, sw, *out);
  });
}

}  // namespace native
}  // namespace torchedge
