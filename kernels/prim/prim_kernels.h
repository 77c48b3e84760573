// torchedge/kernels/prim/prim_kernels.h
//
// The primitive kernel library: the operators a program needs besides the
// ATen compute kernels, under the names upstream ExecuTorch gives them, so
// programs stay wire-compatible in both directions:
//
//   aten::sym_size.int, aten::sym_numel      read a (dynamic) size into an Int
//   executorch_prim::<op>.Scalar             Python arithmetic and comparisons
//                                            on Int/Double/Bool values (size
//                                            expressions of dynamic shapes)
//   aten::copy_                              writes a mutable buffer's new value
//   aten::_assert_scalar                     input-shape guards (torchedge only)
//
// Calling convention (as upstream emits them): the operands, then the value
// that receives the result, e.g. executorch_prim::mul.Scalar [a, b, out].
// A kernel overwrites `out` with a value of the result's kind (Int, Double
// or Bool), whatever `out` held before. Integer arithmetic that overflows
// int64 and division by zero fail with InvalidArgument instead of wrapping.
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers every primitive kernel (see prim_kernel_list.inc). Call once at
/// start-up, next to register_portable_kernels().
Error register_prim_kernels();

}  // namespace torchedge
