// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// 2-d average pooling of a [C, H, W] or [N, C, H, W] input, as ATen: a
// window is clipped to the padded input for count_include_pad and to the
// input for the sum; the divisor is divisor_override (non-zero) if given,
// else the padded or the clipped window size. A window that lies wholly in
// padding (ceil_mode) gives 0. Floating dtypes sum in double; int64 sums
// in int64 and divides with truncation. self and out share one dtype.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "avg_pool2d.out";
constexpr DtypeSet kAvgPoolTypes = kFloatingTypes | dtype_bit(ScalarType::Long);

struct Window {
  int64_t kernel[2], stride[2], padding[2];
  bool count_include_pad;
  int64_t divisor_override;  // 0: none
};

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

template <typename T>
void avg_pool(const Tensor& self, const Window& w, Tensor& out) {
  using Acc = sum_acc_t<T>;
  const PoolPlanes in = pool_planes(self);
  const PoolPlanes op = pool_planes(out);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for_each_pool_output(op, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const int64_t h0 = oh * w.stride[0] - w.padding[0], w0 = ow * w.stride[1] - w.padding[1];
    const int64_t h1 = clamp(h0 + w.kernel[0], h0, in.height + w.padding[0]);
    const int64_t w1 = clamp(w0 + w.kernel[1], w0, in.width + w.padding[1]);
    const int64_t padded_size = (h1 - h0) * (w1 - w0);
    const int64_t hs = clamp(h0, 0, in.height), he = clamp(h1, 0, in.height);
    const int64_t ws = clamp(w0, 0, in.width), we = clamp(w1, 0, in.width);
    T& result = y[op.at(n, c, oh, ow)];
    if (hs >= he || ws >= we) {
      result = static_cast<T>(0);
      return;
    }
    const T* plane = x + in.at(n, c, 0, 0);
    Acc sum = 0;
    for (int64_t ih = hs; ih < he; ++ih) {
      for (int64_t iw = ws; iw < we; ++iw) {
        sum += static_cast<Acc>(plane[ih * in.stride_h + iw * in.stride_w]);
      }
    }
    const int64_t divisor = w.divisor_override != 0 ? w.divisor_override
                            : w.count_include_pad ? padded_size
                                                  : (he - hs) * (we - ws);
    result = static_cast<T>(sum / static_cast<Acc>(divisor));
  });
}

}  // namespace

Error avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(args, 4, "ceil_mode"));
  Window w;
  TE_ASSIGN_OR_RETURN(w.count_include_pad, bool_arg(args, 5, "count_include_pad"));
  TE_ASSIGN_OR_RETURN(w.divisor_override, optional_int_arg(args, 6, "divisor_override", 0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  TE_CHECK_OR_RETURN(args[6]->is_none() || w.divisor_override != 0, Error::InvalidArgument,
                     "%s: divisor_override must not be zero", kOp);
  TE_RETURN_IF_ERROR(read_pool_pair(args, 1, "kernel_size", nullptr, 1, kOp, w.kernel));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 2, "stride", w.kernel, 1, kOp, w.stride));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 3, "padding", nullptr, 0, kOp, w.padding));
  PoolPlanes in;
  TE_RETURN_IF_ERROR(pool_input_planes(*self, kOp, &in));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int64_t out_h = 0, out_w = 0;
  TE_RETURN_IF_ERROR(pool_output_size(in.height, w.kernel[0], w.padding[0], w.stride[0], 1,
                                      ceil_mode, kOp, &out_h));
  TE_RETURN_IF_ERROR(pool_output_size(in.width, w.kernel[1], w.padding[1], w.stride[1], 1,
                                      ceil_mode, kOp, &out_w));
  int64_t sizes[4];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, pool_output_sizes(*self, out_h, out_w, sizes)}));
  return switch_dtype_only<kAvgPoolTypes>(self->dtype(), kOp, [&](auto tag) {
    avg_pool<decltype(tag)>(*self, w, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
