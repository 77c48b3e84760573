#include "kernels/prim/scalar_operands.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace prim {

Error expect_operands(Span<EValue*> args, size_t operands, const char* op) {
  TE_CHECK_OR_RETURN(args.size() == operands + 1, Error::InvalidArgument,
                     "%s: expected %zu operands and an out value, got %zu arguments", op,
                     operands, args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    TE_CHECK_OR_RETURN(args[i] != nullptr, Error::InvalidArgument, "%s: argument %zu is null",
                       op, i);
  }
  return Error::Ok;
}

Result<Number> number_operand(Span<EValue*> args, size_t index, const char* op) {
  const EValue& v = *args[index];
  switch (v.tag()) {
    case Tag::Int: return int_number(v.to_int());
    case Tag::Bool: return int_number(v.to_bool() ? 1 : 0);
    case Tag::Double: return double_number(v.to_double());
    default: break;
  }
  record_error_message("%s: operand %zu must be Int, Double or Bool, got %s", op, index,
                       tag_name(v.tag()));
  return Error::InvalidType;
}

Result<bool> bool_operand(Span<EValue*> args, size_t index, const char* op) {
  if (args[index]->is_bool()) return args[index]->to_bool();
  TE_ASSIGN_OR_RETURN(Number n, number_operand(args, index, op));
  return n.is_double ? n.d != 0.0 : n.i != 0;
}

void set_out(Span<EValue*> args, const Number& result) {
  *args[args.size() - 1] = result.is_double ? EValue(result.d) : EValue(result.i);
}

void set_out_bool(Span<EValue*> args, bool result) { *args[args.size() - 1] = EValue(result); }

}  // namespace prim
}  // namespace torchedge
