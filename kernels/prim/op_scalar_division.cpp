// executorch_prim::floordiv.Scalar / floordiv.int(a, b)   Python a // b
// executorch_prim::mod.Scalar / mod.int(a, b)             Python a % b
// executorch_prim::truediv.Scalar(a, b)                   Python a / b (always a float)
//
// Python semantics: floor division rounds toward negative infinity and the
// remainder takes the divisor's sign, for ints and floats alike. Division
// by zero (ZeroDivisionError in Python) and INT64_MIN // -1 (which int64
// cannot hold) fail with InvalidArgument.
#include <cmath>
#include <cstdint>

#include "kernels/prim/scalar_operands.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

namespace {

enum class Division { Floor, Mod, True };

// Python's float remainder: fmod, moved into the divisor's sign.
double python_fmod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// Python's float floor division: computed from the remainder so that
// a == (a // b) * b + a % b holds as closely as floating point allows.
double python_floordiv(double a, double b) {
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && (b < 0) != (mod < 0)) div -= 1.0;
  if (div == 0.0) return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1.0;
  return floored;
}

Error divide(Span<EValue*> args, Division kind, const char* op) {
  TE_RETURN_IF_ERROR(expect_operands(args, 2, op));
  TE_ASSIGN_OR_RETURN(Number a, number_operand(args, 0, op));
  TE_ASSIGN_OR_RETURN(Number b, number_operand(args, 1, op));
  TE_CHECK_OR_RETURN(b.as_double() != 0.0, Error::InvalidArgument, "%s: division by zero", op);
  if (kind == Division::True) {
    set_out(args, double_number(a.as_double() / b.as_double()));
    return Error::Ok;
  }
  if (a.is_double || b.is_double) {
    const double x = a.as_double();
    const double y = b.as_double();
    set_out(args, double_number(kind == Division::Floor ? python_floordiv(x, y)
                                                         : python_fmod(x, y)));
    return Error::Ok;
  }
  TE_CHECK_OR_RETURN(!(a.i == INT64_MIN && b.i == -1), Error::InvalidArgument,
                     "%s: %lld // -1 overflows int64", op, static_cast<long long>(a.i));
  int64_t quotient = a.i / b.i;
  int64_t remainder = a.i % b.i;
  if (remainder != 0 && ((remainder < 0) != (b.i < 0))) {
    quotient -= 1;  // C++ truncates toward zero; Python floors
    remainder += b.i;
  }
  set_out(args, int_number(kind == Division::Floor ? quotient : remainder));
  return Error::Ok;
}

}  // namespace

Error prim_floordiv(KernelContext&, Span<EValue*> args) {
  return divide(args, Division::Floor, "floordiv");
}
Error prim_mod(KernelContext&, Span<EValue*> args) { return divide(args, Division::Mod, "mod"); }
Error prim_truediv(KernelContext&, Span<EValue*> args) {
  return divide(args, Division::True, "truediv");
}

}  // namespace prim
}  // namespace torchedge
