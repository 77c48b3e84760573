// torchedge/kernels/optimized/copy/copy_plan.h
//
// CopyPlan: a strided source view (kernels/portable/support/strided_view.h)
// to be written into dense row-major memory of the same logical shape,
// simplified once so the loops in dense_copy.h see as few dims as possible:
//
//   - size-1 dims are dropped (a 0-d or all-ones view is rank 0: one element);
//   - neighbouring dims the source walks as one (stride[d] == stride[d+1] *
//     size[d+1], which includes two broadcast dims) are merged; the
//     destination is row-major, so it always merges.
//
// and classified by how the innermost source dim moves:
//
//   kRuns       source stride 1: contiguous runs (one run = one memcpy)
//   kFill       source stride 0: each run repeats one element (expand)
//   kTranspose  another dim k has source stride 1: a 2-D transpose between
//               dim k and the last dim, done in cache-sized tiles (the
//               attention permutes [B,H,S,D] -> [B,H,D,S])
//   kGather     anything else (negative or odd strides): element by element
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/support/strided_view.h"

namespace torchedge {
namespace optimized {

enum class CopyKind { kEmpty, kRuns, kFill, kTranspose, kGather };

struct CopyPlan {
  CopyKind kind = CopyKind::kEmpty;
  int rank = 0;              // after simplification; 0 = one element
  int transpose_dim = -1;    // kTranspose: the dim with source stride 1
  int64_t numel = 0;
  int64_t sizes[kMaxViewRank] = {};
  int64_t src_strides[kMaxViewRank] = {};
  int64_t dst_strides[kMaxViewRank] = {};  // row-major strides of `sizes`

  explicit CopyPlan(const StridedView& src) {
    numel = 1;
    for (int d = 0; d < src.rank; ++d) {
      numel *= src.sizes[d];
      if (src.sizes[d] == 1) continue;
      if (rank > 0 && src_strides[rank - 1] == src.strides[d] * src.sizes[d]) {
        sizes[rank - 1] *= src.sizes[d];
        src_strides[rank - 1] = src.strides[d];
        continue;
      }
      sizes[rank] = src.sizes[d];
      src_strides[rank] = src.strides[d];
      ++rank;
    }
    if (numel == 0) return;  // kEmpty
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      dst_strides[d] = stride;
      stride *= sizes[d];
    }
    if (rank == 0) {
      kind = CopyKind::kRuns;  // one run of one element
      return;
    }
    const int64_t inner = src_strides[rank - 1];
    if (inner == 1) {
      kind = CopyKind::kRuns;
    } else if (inner == 0) {
      kind = CopyKind::kFill;
    } else {
      kind = CopyKind::kGather;
      for (int d = rank - 2; d >= 0; --d) {
        if (src_strides[d] == 1) {
          kind = CopyKind::kTranspose;
          transpose_dim = d;
          break;
        }
      }
    }
  }

  /// Length of the innermost run (1 for rank 0).
  int64_t run_length() const { return rank == 0 ? 1 : sizes[rank - 1]; }
};

}  // namespace optimized
}  // namespace torchedge
