// torchedge/kernels/portable/support/strided_loop.h
//
// PairLoop: the iteration space of an element-wise pass over two operands
// of the same logical shape but their own strides (a source view and a
// destination view). Building the loop simplifies it once:
//
//   - size-1 dims are dropped;
//   - dims are ordered by the destination's strides, outermost first, so the
//     writes walk memory forward whatever the out tensor's dim order;
//   - neighbouring dims that are contiguous in both operands are merged, so a
//     dense-to-dense copy becomes a single run.
//
// for_each_run() then calls f(offset_a, offset_b) at the start of every
// innermost run of run_length() elements; inside a run the operands advance
// by run_stride_a() / run_stride_b(). Offsets are in elements.
//
//   PairLoop loop = make_pair_loop(rank, sizes, src_strides, dst_strides);
//   for_each_run(loop, [&](int64_t a, int64_t b) { ... });
//
// The visiting order is unspecified, so use it only where every element is
// independent (copies and conversions between non-overlapping buffers).
#pragma once

#include <cstdint>

#include "kernels/portable/support/strided_view.h"

namespace torchedge {

struct PairLoop {
  bool empty = false;  // some size is 0: nothing to visit
  int rank = 1;        // >= 1; a 0-d or all-ones shape is one run of 1
  int64_t sizes[kMaxViewRank] = {1};
  int64_t strides_a[kMaxViewRank] = {0};
  int64_t strides_b[kMaxViewRank] = {0};

  int64_t run_length() const { return sizes[rank - 1]; }
  int64_t run_stride_a() const { return strides_a[rank - 1]; }
  int64_t run_stride_b() const { return strides_b[rank - 1]; }
};

/// `sizes`, `strides_a` and `strides_b` hold `rank` (<= kMaxViewRank)
/// entries; operand b is the destination whose memory order is followed.
PairLoop make_pair_loop(int rank, const int64_t* sizes, const int64_t* strides_a,
                        const int64_t* strides_b);

template <typename F>
void for_each_run(const PairLoop& loop, F&& f) {
  if (loop.empty) return;
  int64_t index[kMaxViewRank] = {};
  int64_t offset_a = 0;
  int64_t offset_b = 0;
  const int outer = loop.rank - 1;  // dims before the innermost run
  for (;;) {
    f(offset_a, offset_b);
    int d = outer - 1;
    for (; d >= 0; --d) {  // odometer step with carry
      offset_a += loop.strides_a[d];
      offset_b += loop.strides_b[d];
      if (++index[d] < loop.sizes[d]) break;
      offset_a -= loop.strides_a[d] * loop.sizes[d];
      offset_b -= loop.strides_b[d] * loop.sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace torchedge
