// torchedge/kernels/optimized/ops/op_binary_broadcast.h
//
// BroadcastPlan: the broadcasts the optimized binary kernels handle without
// strided indexing. One operand ("full") has the output's shape; the other
// (right-aligned, numpy rules) matches the output on an outer block of dims,
// is 1 on a middle block and matches again on an inner block:
//
//   out [O..., M..., I...]   full operand: same
//   other [O..., 1..., I...] (any block may be empty)
//
// so the output splits into O*M contiguous units of I elements, and unit u
// reads the other operand at (u / M) * I. With I = 1 a unit is instead a
// run of M elements against one scalar (per-row scale, [B, M, 1]). Equal
// shapes are O = all, M = I = 1 ... i.e. one flat unit. Anything else
// (both operands broadcast, two separate broadcast blocks) is not planned.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"

namespace torchedge {
namespace optimized {

struct BroadcastPlan {
  bool broadcast_is_a = false;  // which operand is the small one
  int64_t outer = 1, mid = 1, inner = 1;

  /// Plans a op b; false when the shapes fall outside the patterns above
  /// (including shapes that do not broadcast at all).
  bool init(const Tensor& a, const Tensor& b) {
    if (a.dim() >= b.dim() && classify(a, b)) {
      broadcast_is_a = false;
      return true;
    }
    if (b.dim() >= a.dim() && classify(b, a)) {
      broadcast_is_a = true;
      return true;
    }
    return false;
  }

  bool broadcast_is_scalar() const { return inner == 1; }
  int64_t units() const { return inner == 1 ? outer : outer * mid; }
  int64_t unit_length() const { return inner == 1 ? mid : inner; }
  /// Element offset of the small operand for unit u.
  int64_t broadcast_offset(int64_t u) const { return inner == 1 ? u : (u / mid) * inner; }

 private:
  // full's shape is the output's; small is right-aligned against it.
  bool classify(const Tensor& full, const Tensor& small) {
    enum Block { kOuter, kMid, kInner } block = kOuter;
    outer = mid = inner = 1;
    const int offset = full.dim() - small.dim();
    for (int d = 0; d < full.dim(); ++d) {
      const int64_t size = full.size(d);
      const int64_t s = d < offset ? 1 : small.size(d - offset);
      if (size == 1) {
        if (s != 1) return false;
        continue;  // size-1 output dims belong to any block
      }
      if (s == size) {
        if (block == kMid) block = kInner;
        (block == kOuter ? outer : inner) *= size;
      } else if (s == 1) {
        if (block == kInner) return false;  // a second broadcast block
        block = kMid;
        mid *= size;
      } else {
        return false;
      }
    }
    // No broadcast block: equal shapes, one flat run.
    if (block == kOuter) {
      inner = outer;
      outer = 1;
    }
    return true;
  }
};

}  // namespace optimized
}  // namespace torchedge
