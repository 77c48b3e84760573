#include "kernels/portable/support/strided_loop.h"

namespace torchedge {

namespace {
int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

// Insertion sort of the dims by |destination stride|, largest first; stable
// so dims with equal strides keep their logical order.
void order_by_destination(PairLoop& loop) {
  for (int i = 1; i < loop.rank; ++i) {
    const int64_t size = loop.sizes[i];
    const int64_t a = loop.strides_a[i];
    const int64_t b = loop.strides_b[i];
    int j = i;
    for (; j > 0 && magnitude(loop.strides_b[j - 1]) < magnitude(b); --j) {
      loop.sizes[j] = loop.sizes[j - 1];
      loop.strides_a[j] = loop.strides_a[j - 1];
      loop.strides_b[j] = loop.strides_b[j - 1];
    }
    loop.sizes[j] = size;
    loop.strides_a[j] = a;
    loop.strides_b[j] = b;
  }
}

// Merges dim d into dim d+1 wherever both operands step over d exactly as
// far as a whole run of d+1.
void merge_contiguous(PairLoop& loop) {
  int kept = 0;
  for (int d = 1; d < loop.rank; ++d) {
    const int64_t inner = loop.sizes[d];
    if (loop.strides_a[kept] == loop.strides_a[d] * inner &&
        loop.strides_b[kept] == loop.strides_b[d] * inner) {
      loop.sizes[kept] *= inner;
      loop.strides_a[kept] = loop.strides_a[d];
      loop.strides_b[kept] = loop.strides_b[d];
    } else {
      ++kept;
      loop.sizes[kept] = loop.sizes[d];
      loop.strides_a[kept] = loop.strides_a[d];
      loop.strides_b[kept] = loop.strides_b[d];
    }
  }
  loop.rank = kept + 1;
}
}  // namespace

PairLoop make_pair_loop(int rank, const int64_t* sizes, const int64_t* strides_a,
                        const int64_t* strides_b) {
  PairLoop loop;
  int kept = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 0) loop.empty = true;
    if (sizes[d] == 1) continue;
    loop.sizes[kept] = sizes[d];
    loop.strides_a[kept] = strides_a[d];
    loop.strides_b[kept] = strides_b[d];
    ++kept;
  }
  if (kept == 0) return loop;  // one run of one element
  loop.rank = kept;
  order_by_destination(loop);
  merge_contiguous(loop);
  return loop;
}

}  // namespace torchedge
