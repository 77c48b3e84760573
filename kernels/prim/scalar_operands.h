// torchedge/kernels/prim/scalar_operands.h
//
// Operands and results of the executorch_prim scalar kernels. A Number is
// what Python sees: an int (Int and Bool values; True is 1) or a float
// (Double values). Mixed int/float operations are done in double, as Python
// does. Every accessor checks the argument count and tags and records a
// message naming the operator, so the kernels never read a wrong tag.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace prim {

struct Number {
  bool is_double;
  int64_t i;  // valid when !is_double
  double d;   // valid when is_double

  double as_double() const { return is_double ? d : static_cast<double>(i); }
};

/// Fails unless `args` holds `operands` operands plus the out value.
Error expect_operands(Span<EValue*> args, size_t operands, const char* op);

/// Operand `index` as a Number; InvalidType unless it is Int, Double or Bool.
Result<Number> number_operand(Span<EValue*> args, size_t index, const char* op);

/// Operand `index` as a truth value (Bool, or Int/Double != 0).
Result<bool> bool_operand(Span<EValue*> args, size_t index, const char* op);

/// Stores the result in the out value (the last argument).
void set_out(Span<EValue*> args, const Number& result);
void set_out_bool(Span<EValue*> args, bool result);

inline Number int_number(int64_t v) { return Number{false, v, 0.0}; }
inline Number double_number(double v) { return Number{true, 0, v}; }

}  // namespace prim
}  // namespace torchedge
