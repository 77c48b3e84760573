// executorch_prim::{eq,gt,lt,ge,le}.Scalar(Scalar a, Scalar b) -> bool
// executorch_prim::sym_not.Scalar(Scalar a) -> bool
// executorch_prim::sym_ite.Scalar(Scalar b, Scalar t, Scalar f) -> Scalar   (t if b else f)
//
// Comparisons follow Python: ints compare exactly, a float against an int
// compares the values (in double), bools are 0 and 1.
#include "kernels/prim/scalar_operands.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

namespace {

enum class Compare { Eq, Gt, Lt, Ge, Le };

template <typename T>
bool compare(T a, T b, Compare kind) {
  switch (kind) {
    case Compare::Eq: return a == b;
    case Compare::Gt: return a > b;
    case Compare::Lt: return a < b;
    case Compare::Ge: return a >= b;
    case Compare::Le: return a <= b;
  }
  return false;
}

Error comparison(Span<EValue*> args, Compare kind, const char* op) {
  TE_RETURN_IF_ERROR(expect_operands(args, 2, op));
  TE_ASSIGN_OR_RETURN(Number a, number_operand(args, 0, op));
  TE_ASSIGN_OR_RETURN(Number b, number_operand(args, 1, op));
  const bool result = a.is_double || b.is_double ? compare(a.as_double(), b.as_double(), kind)
                                                 : compare(a.i, b.i, kind);
  set_out_bool(args, result);
  return Error::Ok;
}

}  // namespace

Error prim_eq(KernelContext&, Span<EValue*> args) { return comparison(args, Compare::Eq, "eq"); }
Error prim_gt(KernelContext&, Span<EValue*> args) { return comparison(args, Compare::Gt, "gt"); }
Error prim_lt(KernelContext&, Span<EValue*> args) { return comparison(args, Compare::Lt, "lt"); }
Error prim_ge(KernelContext&, Span<EValue*> args) { return comparison(args, Compare::Ge, "ge"); }
Error prim_le(KernelContext&, Span<EValue*> args) { return comparison(args, Compare::Le, "le"); }

Error prim_sym_not(KernelContext&, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_operands(args, 1, "sym_not"));
  TE_ASSIGN_OR_RETURN(bool a, bool_operand(args, 0, "sym_not"));
  set_out_bool(args, !a);
  return Error::Ok;
}

Error prim_sym_ite(KernelContext&, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_operands(args, 3, "sym_ite"));
  TE_ASSIGN_OR_RETURN(bool condition, bool_operand(args, 0, "sym_ite"));
  const EValue& chosen = *args[condition ? 1 : 2];
  TE_CHECK_OR_RETURN(chosen.is_scalar(), Error::InvalidType,
                     "sym_ite: branch values must be Int, Double or Bool, got %s",
                     tag_name(chosen.tag()));
  *args[3] = chosen;
  return Error::Ok;
}

}  // namespace prim
}  // namespace torchedge
