// torchedge/kernels/portable/support/softmax.h
//
// The shared body of _softmax.out and _log_softmax.out (they differ only in
// the last step). Along `dim`, per lane:
//
//   m = max(x);  s = sum(exp(x - m))
//   softmax:     y = exp(x - m) / s
//   log_softmax: y = x - m - log(s)
//
// Computed in float for float32/float16/bfloat16 (as ATen's CPU kernels)
// and double for float64; the sum accumulates in double. Like ATen's
// last-dim log_softmax kernel, a 16-bit log_softmax whose dims after `dim`
// are all size 1 rounds s and log(s) to the 16-bit type (so results match
// eager bit for bit there). half_to_float=True is NotSupported (ATen's CPU
// kernels reject it too). Any dim order.
//
// kSafe: torchedge::safe_softmax.out(self, dim, *, out) (aten._safe_softmax):
// softmax, except that a lane whose every element is -inf gives zeros (the
// max is then -inf; a NaN anywhere makes it NaN, and the lane NaN).
#pragma once

#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/reduction.h"

namespace torchedge {

template <bool kLog, bool kSafe = false>
Error softmax_kernel(Span<EValue*> args, const char* op) {
  static_assert(!(kLog && kSafe), "safe_softmax has no log form");
  TE_RETURN_IF_ERROR(expect_arg_count(args, kSafe ? 3 : 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  if constexpr (!kSafe) {
    TE_ASSIGN_OR_RETURN(bool half_to_float, bool_arg(args, 2, "half_to_float"));
    TE_CHECK_OR_RETURN(!half_to_float, Error::NotSupported,
                       "%s: half_to_float=True is not supported", op);
  }
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, kSafe ? 2 : 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self->dim(), "dim"));
  ReductionPlan lanes;  // one "output" per lane, "reduced" along dim
  const int64_t dims[] = {dim};
  TE_RETURN_IF_ERROR(lanes.init(*self, dims, op));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  lanes.bind_output(*out, /*keepdim=*/true);
  const int64_t n = lanes.reduced_numel();
  if (n == 0) return Error::Ok;
  int64_t trailing = 1;  // elements after `dim` in a row-major view
  for (int d = dim + 1; d < self->dim(); ++d) trailing *= self->size(d);
  const int64_t in_step = self->dim() == 0 ? 0 : self->stride(dim);
  const int64_t out_step = out->dim() == 0 ? 0 : out->stride(dim);
  return switch_dtype_only<kFloatingTypes>(self->dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* x = self->data_as<T>();
    T* y = out->mutable_data_as<T>();
    lanes.for_each_output([&](int64_t out_base, int64_t in_base) {
      const T* xl = x + in_base;
      T* yl = y + out_base;
      C m = static_cast<C>(xl[0]);
      for (int64_t i = 1; i < n; ++i) {
        const C v = static_cast<C>(xl[i * in_step]);
        if (v > m || v != v) m = v;
      }
      if (kSafe && m == -INFINITY) {  // every element -inf: a fully masked lane
        for (int64_t i = 0; i < n; ++i) yl[i * out_step] = static_cast<T>(0);
        return;
      }
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<C>(xl[i * in_step]) - m);
      if (kLog) {
        C log_s = static_cast<C>(std::log(s));
        if (sizeof(T) == 2 && trailing == 1) {
          log_s = static_cast<C>(static_cast<T>(std::log(static_cast<C>(static_cast<T>(s)))));
        }
        for (int64_t i = 0; i < n; ++i) {
          yl[i * out_step] = static_cast<T>(static_cast<C>(xl[i * in_step]) - m - log_s);
        }
      } else {
        const C inv_s = static_cast<C>(1.0 / s);
        for (int64_t i = 0; i < n; ++i) {
          yl[i * out_step] = static_cast<T>(std::exp(static_cast<C>(xl[i * in_step]) - m) * inv_s);
        }
      }
    });
    return Error::Ok;
  });
}

}  // namespace torchedge
