// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
//     -> Tensor(a!)
// aten::adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// Adaptive 2-d average pooling of a [C, H, W] or [N, C, H, W] input to
// output_size [OH, OW] (each >= 0): output row o averages input rows
// floor(o * H / OH) .. ceil((o + 1) * H / OH) - 1, likewise for columns.
// Floating dtypes, summed like ATen (float, or double for float64); self
// and out share one. Both
// overloads have one schema and share this kernel.
#include <type_traits>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "adaptive_avg_pool2d.out";

template <typename T>
void adaptive_avg_pool(const Tensor& self, Tensor& out) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const PoolPlanes in = pool_planes(self);
  const PoolPlanes op = pool_planes(out);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for_each_pool_output(op, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const int64_t hs = oh * in.height / op.height;
    const int64_t he = ((oh + 1) * in.height + op.height - 1) / op.height;
    const int64_t ws = ow * in.width / op.width;
    const int64_t we = ((ow + 1) * in.width + op.width - 1) / op.width;
    const T* plane = x + in.at(n, c, 0, 0);
    // ATen's order and precision exactly (float sums for float and 16-bit
    // inputs, divided by the window height, then width): averages of
    // quantized values often land on a rounding tie of the next quantize,
    // so a more precise sum would move them by one quantization step.
    Acc sum = 0;
    for (int64_t ih = hs; ih < he; ++ih) {
      for (int64_t iw = ws; iw < we; ++iw) {
        sum += static_cast<Acc>(plane[ih * in.stride_h + iw * in.stride_w]);
      }
    }
    y[op.at(n, c, oh, ow)] =
        static_cast<T>(sum / static_cast<Acc>(he - hs) / static_cast<Acc>(we - ws));
  });
}

}  // namespace

Error adaptive_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "output_size"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(size.size() == 2 && size[0] >= 0 && size[1] >= 0, Error::InvalidArgument,
                     "%s: output_size must be 2 non-negative values", kOp);
  PoolPlanes in;
  TE_RETURN_IF_ERROR(pool_input_planes(*self, kOp, &in));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int64_t sizes[4];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, pool_output_sizes(*self, size[0], size[1], sizes)}));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), kOp, [&](auto tag) {
    adaptive_avg_pool<decltype(tag)>(*self, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
