// executorch_prim::{add,sub,mul,sym_max,sym_min}.Scalar(Scalar a, Scalar b) -> Scalar
// executorch_prim::neg.Scalar(Scalar a) -> Scalar
//
// Python semantics: int op int is an int (overflow of int64 is an error,
// where Python would grow the integer), anything with a float is a float.
// sym_max/sym_min return the larger/smaller operand, as a float when
// either operand is one.
#include "kernels/prim/scalar_operands.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

namespace {

enum class Arith { Add, Sub, Mul, Max, Min };

Error overflow(const char* op, int64_t a, int64_t b) {
  record_error_message("%s: %lld and %lld overflow int64", op, static_cast<long long>(a),
                       static_cast<long long>(b));
  return Error::InvalidArgument;
}

Error binary(Span<EValue*> args, Arith kind, const char* op) {
  TE_RETURN_IF_ERROR(expect_operands(args, 2, op));
  TE_ASSIGN_OR_RETURN(Number a, number_operand(args, 0, op));
  TE_ASSIGN_OR_RETURN(Number b, number_operand(args, 1, op));
  if (a.is_double || b.is_double) {
    const double x = a.as_double();
    const double y = b.as_double();
    double r = 0;
    switch (kind) {
      case Arith::Add: r = x + y; break;
      case Arith::Sub: r = x - y; break;
      case Arith::Mul: r = x * y; break;
      case Arith::Max: r = x >= y ? x : y; break;
      case Arith::Min: r = x <= y ? x : y; break;
    }
    set_out(args, double_number(r));
    return Error::Ok;
  }
  int64_t r = 0;
  bool overflowed = false;
  switch (kind) {
    case Arith::Add: overflowed = __builtin_add_overflow(a.i, b.i, &r); break;
    case Arith::Sub: overflowed = __builtin_sub_overflow(a.i, b.i, &r); break;
    case Arith::Mul: overflowed = __builtin_mul_overflow(a.i, b.i, &r); break;
    case Arith::Max: r = a.i >= b.i ? a.i : b.i; break;
    case Arith::Min: r = a.i <= b.i ? a.i : b.i; break;
  }
  if (overflowed) return overflow(op, a.i, b.i);
  set_out(args, int_number(r));
  return Error::Ok;
}

}  // namespace

Error prim_add(KernelContext&, Span<EValue*> args) { return binary(args, Arith::Add, "add"); }
Error prim_sub(KernelContext&, Span<EValue*> args) { return binary(args, Arith::Sub, "sub"); }
Error prim_mul(KernelContext&, Span<EValue*> args) { return binary(args, Arith::Mul, "mul"); }
Error prim_sym_max(KernelContext&, Span<EValue*> args) {
  return binary(args, Arith::Max, "sym_max");
}
Error prim_sym_min(KernelContext&, Span<EValue*> args) {
  return binary(args, Arith::Min, "sym_min");
}

Error prim_neg(KernelContext&, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_operands(args, 1, "neg"));
  TE_ASSIGN_OR_RETURN(Number a, number_operand(args, 0, "neg"));
  if (a.is_double) {
    set_out(args, double_number(-a.d));
    return Error::Ok;
  }
  int64_t r = 0;
  if (__builtin_sub_overflow(int64_t{0}, a.i, &r)) return overflow("neg", 0, a.i);
  set_out(args, int_number(r));
  return Error::Ok;
}

}  // namespace prim
}  // namespace torchedge
