// executorch_prim::ceil.Scalar(a), trunc.Scalar(a), round.Scalar(a) -> int
//     math.ceil, math.trunc and round(): ints pass through; floats become
//     ints (round halves to even, as Python does).
// executorch_prim::sym_float.Scalar(a) -> float     float(a)
// executorch_prim::sym_int.Scalar(a) -> int         int(a), truncating
//
// A float that is NaN, infinite or outside int64 cannot become an int
// (Python raises); that fails with InvalidArgument.
#include <cmath>

#include "kernels/prim/scalar_operands.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

namespace {

enum class ToInt { Ceil, Trunc, Round };

Error to_int(Span<EValue*> args, ToInt kind, const char* op) {
  TE_RETURN_IF_ERROR(expect_operands(args, 1, op));
  TE_ASSIGN_OR_RETURN(Number a, number_operand(args, 0, op));
  if (!a.is_double) {
    set_out(args, a);
    return Error::Ok;
  }
  double r = 0;
  switch (kind) {
    case ToInt::Ceil: r = std::ceil(a.d); break;
    case ToInt::Trunc: r = std::trunc(a.d); break;
    case ToInt::Round: {
      // Halves go to the even neighbour (Python's round), without touching
      // the floating-point environment.
      r = std::floor(a.d);
      const double fraction = a.d - r;
      if (fraction > 0.5 || (fraction == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
      break;
    }
  }
  // 2^63 is exactly representable; every double below it fits int64.
  TE_CHECK_OR_RETURN(std::isfinite(r) && r >= -9223372036854775808.0 &&
                         r < 9223372036854775808.0,
                     Error::InvalidArgument, "%s: %g cannot be converted to an int", op, a.d);
  set_out(args, int_number(static_cast<int64_t>(r)));
  return Error::Ok;
}

}  // namespace

Error prim_ceil(KernelContext&, Span<EValue*> args) { return to_int(args, ToInt::Ceil, "ceil"); }
Error prim_trunc(KernelContext&, Span<EValue*> args) {
  return to_int(args, ToInt::Trunc, "trunc");
}
Error prim_round(KernelContext&, Span<EValue*> args) {
  return to_int(args, ToInt::Round, "round");
}
Error prim_sym_int(KernelContext&, Span<EValue*> args) {
  return to_int(args, ToInt::Trunc, "sym_int");
}

Error prim_sym_float(KernelContext&, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_operands(args, 1, "sym_float"));
  TE_ASSIGN_OR_RETURN(Number a, number_operand(args, 0, "sym_float"));
  set_out(args, double_number(a.as_double()));
  return Error::Ok;
}

}  // namespace prim
}  // namespace torchedge
