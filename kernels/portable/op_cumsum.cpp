// aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
//     -> Tensor(a!)
// aten::cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
//     -> Tensor(a!)
//
// Running sum / product along `dim`, in out's dtype, which `dtype`, if
// given, must equal (eager picks int64 for integer and bool inputs). As
// ATen's CPU kernel, elements are converted to out's dtype and accumulated
// in its acc_type: double for float32 and float64, float for float16 and
// bfloat16, int64 (wrapping) for integers; each partial result is rounded
// to out's dtype. Every input dtype; out any dtype but bool (eager has no
// bool kernel). Any dim order. cumprod shares this file.
#include <type_traits>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // convert_element, wrapping_*
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/lane_walk.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// ATen's at::acc_type<T, /*is_cuda=*/false>.
template <typename T>
using scan_acc_t = std::conditional_t<std::is_floating_point_v<compute_t<T>>,
                                      std::conditional_t<std::is_same_v<T, float>, double,
                                                         compute_t<T>>,
                                      int64_t>;

template <bool kSum, typename In, typename Out>
void scan_lanes(const Tensor& self, int dim, Tensor& out) {
  using Acc = scan_acc_t<Out>;
  LaneWalk walk(self, dim);
  walk.add(out, true);
  const int64_t n = lane_size(self, dim);
  const int64_t in_step = lane_stride(self, dim), out_step = lane_stride(out, dim);
  const In* x = self.data_as<In>();
  Out* y = out.mutable_data_as<Out>();
  walk.for_each([&](const int64_t* at) {
    Acc acc = kSum ? Acc(0) : Acc(1);
    for (int64_t i = 0; i < n; ++i) {
      const Acc v = static_cast<Acc>(convert_element<Out>(x[at[0] + i * in_step]));
      acc = kSum ? wrapping_add(acc, v) : wrapping_mul(acc, v);
      y[at[1] + i * out_step] = static_cast<Out>(acc);
    }
  });
}

template <bool kSum>
Error scan(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t dtype, optional_int_arg(args, 2, "dtype", -1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self->dim(), "dim"));
  TE_CHECK_OR_RETURN(dtype < 0 || dtype == static_cast<int64_t>(out->dtype()), Error::InvalidType,
                     "%s: dtype %lld does not match out dtype %s", op,
                     static_cast<long long>(dtype), to_string(out->dtype()));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype(self->dtype(), kAllTypes, op, [&](auto in_tag) {
    return switch_dtype(out->dtype(), kRealTypes, op, [&](auto out_tag) {
      scan_lanes<kSum, decltype(in_tag), decltype(out_tag)>(*self, dim, *out);
      return Error::Ok;
    });
  });
}

}  // namespace

Error cumsum_out(KernelContext& ctx, Span<EValue*> args) { return scan<true>(args, "cumsum.out"); }

Error cumprod_out(KernelContext& ctx, Span<EValue*> args) {
  return scan<false>(args, "cumprod.out");
}

}  // namespace native
}  // namespace torchedge
