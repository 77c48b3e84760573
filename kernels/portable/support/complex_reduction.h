// torchedge/kernels/portable/support/complex_reduction.h
//
// The complex branch of sum, mean and prod over a ReductionPlan: complex64
// and complex128 inputs reduce into a complex output (either complex
// dtype, as sum's or prod's `dtype=` picks), accumulating in
// std::complex<double> so complex64 results are at least as accurate as
// eager's, which accumulates in complex64.
//
//   if (is_complex(self->dtype()) || is_complex(out->dtype())) {
//     return reduce_complex(*self, *out, plan, "sum.IntList_out", ComplexAccumulator(0),
//                           [](ComplexAccumulator acc, ComplexAccumulator x) { return acc + x; },
//                           [](ComplexAccumulator acc) { return acc; });
//   }
//
// `step(acc, x)` folds one element (in the plan's logical order) into the
// accumulator that starts at `init`; `finish(acc)` gives the output
// element. A real input or output beside a complex one is an InvalidType
// error naming both dtypes (ATen refuses to reduce complex into real).
#pragma once

#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/reduction.h"

namespace torchedge {

template <typename Step, typename Finish>
Error reduce_complex(const Tensor& self, Tensor& out, const ReductionPlan& plan, const char* op,
                     ComplexAccumulator init, Step step, Finish finish) {
  TE_CHECK_OR_RETURN(is_complex(self.dtype()) && is_complex(out.dtype()), Error::InvalidType,
                     "%s: a complex reduction needs complex input and output, got %s -> %s", op,
                     to_string(self.dtype()), to_string(out.dtype()));
  return switch_dtype_only<kComplexTypes>(self.dtype(), op, [&](auto in_tag) {
    using In = decltype(in_tag);
    return switch_dtype_only<kComplexTypes>(out.dtype(), op, [&](auto out_tag) {
      using Out = decltype(out_tag);
      const In* x = self.data_as<In>();
      Out* y = out.mutable_data_as<Out>();
      plan.for_each_output([&](int64_t o, int64_t base) {
        ComplexAccumulator acc = init;
        plan.for_each_reduced(base, [&](int64_t i) { acc = step(acc, load_complex(x, i)); });
        store_complex(y, o, finish(acc));
      });
      return Error::Ok;
    });
  });
}

}  // namespace torchedge
