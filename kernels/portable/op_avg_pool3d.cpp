// aten::avg_pool3d.out(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// 3-d average pooling of a [C, D, H, W] or [N, C, D, H, W] input, as
// avg_pool2d.out one dim up: a window is clipped to the padded input for
// count_include_pad and to the input for the sum; the divisor is
// divisor_override (non-zero) if given, else the padded or the clipped
// window size. Floating dtypes and int64 (eager's CPU set for 5-d input):
// floats sum in double, int64 sums in int64 and divides with truncation.
// self and out share one dtype; any dim order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling3d.h"
#include "kernels/portable/support/reduction.h"
#include "kernels/portable/support/spatial_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "avg_pool3d.out";
constexpr DtypeSet kAvgPoolTypes = kFloatingTypes | dtype_bit(ScalarType::Long);

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

template <typename T>
void avg_pool(const Tensor& self, const Window3d& w, bool count_include_pad,
              int64_t divisor_override, Tensor& out) {
  using Acc = sum_acc_t<T>;
  const SpatialView in = spatial_view(self, 3);
  const SpatialView ov = spatial_view(out, 3);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for (int64_t p = 0; p < ov.planes(); ++p) {
    const T* plane = x + in.plane_at(p);
    T* dst = y + ov.plane_at(p);
    int64_t o[3];
    for (o[0] = 0; o[0] < ov.size[0]; ++o[0]) {
      for (o[1] = 0; o[1] < ov.size[1]; ++o[1]) {
        for (o[2] = 0; o[2] < ov.size[2]; ++o[2]) {
          int64_t start[3], end[3], padded = 1, inside = 1;
          for (int k = 0; k < 3; ++k) {
            const int64_t s = o[k] * w.stride[k] - w.padding[k];
            const int64_t e = clamp(s + w.kernel[k], s, in.size[k] + w.padding[k]);
            padded *= e - s;
            start[k] = clamp(s, 0, in.size[k]);
            end[k] = clamp(e, 0, in.size[k]);
            inside *= end[k] - start[k];
          }
          Acc sum = 0;
          for (int64_t d = start[0]; d < end[0]; ++d) {
            for (int64_t h = start[1]; h < end[1]; ++h) {
              for (int64_t i = start[2]; i < end[2]; ++i) {
                sum += static_cast<Acc>(plane[d * in.stride[0] + h * in.stride[1] + i * in.stride[2]]);
              }
            }
          }
          const int64_t divisor = divisor_override != 0 ? divisor_override
                                  : count_include_pad   ? padded
                                                        : inside;
          T& result = dst[o[0] * ov.stride[0] + o[1] * ov.stride[1] + o[2] * ov.stride[2]];
          result = inside == 0 ? static_cast<T>(0) : static_cast<T>(sum / static_cast<Acc>(divisor));
        }
      }
    }
  }
}

}  // namespace

Error avg_pool3d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(args, 4, "ceil_mode"));
  TE_ASSIGN_OR_RETURN(bool count_include_pad, bool_arg(args, 5, "count_include_pad"));
  TE_ASSIGN_OR_RETURN(int64_t divisor_override,
                      optional_int_arg(args, 6, "divisor_override", 0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  TE_CHECK_OR_RETURN(args[6]->is_none() || divisor_override != 0, Error::InvalidArgument,
                     "%s: divisor_override must not be zero", kOp);
  Window3d w;
  TE_RETURN_IF_ERROR(read_pool_triple(args, 1, "kernel_size", nullptr, 1, kOp, w.kernel));
  TE_RETURN_IF_ERROR(read_pool_triple(args, 2, "stride", w.kernel, 1, kOp, w.stride));
  TE_RETURN_IF_ERROR(read_pool_triple(args, 3, "padding", nullptr, 0, kOp, w.padding));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int64_t sizes[5];
  size_t rank = 0;
  TE_RETURN_IF_ERROR(pool3d_output_shape(*self, w, ceil_mode, kOp, sizes, &rank));
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, rank}));
  return switch_dtype_only<kAvgPoolTypes>(self->dtype(), kOp, [&](auto tag) {
    avg_pool<decltype(tag)>(*self, w, count_include_pad, divisor_override, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
