// torchedge/kernels/portable/support/kernel_args.h
//
// Typed, validated access to a kernel's boxed arguments. Every accessor
// checks the index and the EValue tag and records a message naming the
// argument ("argument 1 'other': expected Tensor, got Int"), so kernels
// never touch an EValue of the wrong kind:
//
//   TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
//   TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
//   TE_ASSIGN_OR_RETURN(double alpha, scalar_arg(args, 2, "alpha"));
//   TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error_message.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Fails unless exactly `expected` arguments were passed.
Error expect_arg_count(Span<EValue*> args, size_t expected);

/// A tensor argument with memory (or no bytes): InvalidProgram for a tensor
/// a malformed program never gave memory.
Result<Tensor*> tensor_arg(Span<EValue*> args, size_t index, const char* name);
/// The out of a view (et_view), whose memory the kernel binds.
Result<Tensor*> unbound_view_arg(Span<EValue*> args, size_t index, const char* name);
/// A `Tensor?` argument: nullptr for None.
Result<Tensor*> optional_tensor_arg(Span<EValue*> args, size_t index, const char* name);
/// A `Scalar` argument (Int, Double or Bool) as double.
Result<double> scalar_arg(Span<EValue*> args, size_t index, const char* name);
/// The EValue of a `Scalar` argument itself (to keep Int vs Double).
Result<const EValue*> scalar_value_arg(Span<EValue*> args, size_t index, const char* name);
Result<int64_t> int_arg(Span<EValue*> args, size_t index, const char* name);
/// An `int?` argument: `fallback` for None.
Result<int64_t> optional_int_arg(Span<EValue*> args, size_t index, const char* name,
                                 int64_t fallback);
Result<double> double_arg(Span<EValue*> args, size_t index, const char* name);
/// A `float?` argument: `fallback` for None.
Result<double> optional_double_arg(Span<EValue*> args, size_t index, const char* name,
                                   double fallback);
Result<bool> bool_arg(Span<EValue*> args, size_t index, const char* name);
Result<Span<const int64_t>> int_list_arg(Span<EValue*> args, size_t index, const char* name);
/// An `int[]?` argument: empty span (and *present=false) for None.
Result<Span<const int64_t>> optional_int_list_arg(Span<EValue*> args, size_t index,
                                                  const char* name, bool* present);
Result<Span<const bool>> bool_list_arg(Span<EValue*> args, size_t index, const char* name);
Result<Span<Tensor* const>> tensor_list_arg(Span<EValue*> args, size_t index, const char* name);
Result<StringView> string_arg(Span<EValue*> args, size_t index, const char* name);

/// A 1- or 2-value int[] (stride, padding: one value for both dims) as
/// (h, w), each >= `minimum`; InvalidArgument naming `op` and `name` else.
Error read_int_pair(Span<const int64_t> values, const char* op, const char* name,
                    int64_t minimum, int64_t* h, int64_t* w);

/// Normalizes a possibly negative dim against `rank` (rank 0 accepts -1/0).
Result<int> normalize_dim(int64_t dim, int rank, const char* what);

/// Fails unless `t` has dtype `expected`, naming `what`.
Error expect_dtype(const Tensor& t, ScalarType expected, const char* what);

/// Fails unless `a` and `b` have the same dtype.
Error expect_same_dtype(const Tensor& a, const Tensor& b, const char* what_a, const char* what_b);

/// Whether the bytes of `a` and `b` (data() .. data() + nbytes()) overlap;
/// false when either is empty. Kernels that read an input while writing
/// `out` in several passes reject an overlapping pair.
bool bytes_overlap(const Tensor& a, const Tensor& b);

/// Resizes `out` to `sizes` (int64, as computed by shape functions),
/// checking every value fits int32 and the planned bound.
Error resize_to(Tensor& out, Span<const int64_t> sizes);
/// Resizes `out` to `like`'s shape.
Error resize_like(Tensor& out, const Tensor& like);

}  // namespace torchedge
