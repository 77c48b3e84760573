#include "kernels/portable/support/strided_copy.h"

#include <cstring>

#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_loop.h"

namespace torchedge {

namespace {

template <typename W>
void copy_runs(const PairLoop& loop, const char* src, char* dst) {
  const int64_t n = loop.run_length();
  const int64_t sa = loop.run_stride_a();
  const int64_t sb = loop.run_stride_b();
  const W* from = reinterpret_cast<const W*>(src);
  W* to = reinterpret_cast<W*>(dst);
  for_each_run(loop, [&](int64_t a, int64_t b) {
    if (sa == 1 && sb == 1) {
      memcpy(to + b, from + a, static_cast<size_t>(n) * sizeof(W));
      return;
    }
    for (int64_t i = 0; i < n; ++i) to[b + i * sb] = from[a + i * sa];
  });
}

// One view walked in logical row-major order, dims merged where memory
// allows so that runs are as long as possible.
struct LinearCursor {
  int rank = 1;
  int64_t sizes[kMaxViewRank] = {1};
  int64_t strides[kMaxViewRank] = {1};
  int64_t index[kMaxViewRank] = {};
  int64_t offset = 0;

  LinearCursor(const StridedView& v, int64_t start) {
    int kept = 0;
    for (int d = 0; d < v.rank; ++d) {
      if (v.sizes[d] == 1) continue;
      if (kept > 0 && strides[kept - 1] == v.strides[d] * v.sizes[d]) {
        sizes[kept - 1] *= v.sizes[d];
        strides[kept - 1] = v.strides[d];
      } else {
        sizes[kept] = v.sizes[d];
        strides[kept] = v.strides[d];
        ++kept;
      }
    }
    rank = kept > 0 ? kept : 1;
    for (int d = rank - 1; d >= 0; --d) {  // unravel the start position
      index[d] = start % sizes[d];
      start /= sizes[d];
      offset += index[d] * strides[d];
    }
  }

  int64_t run_left() const { return sizes[rank - 1] - index[rank - 1]; }
  int64_t run_stride() const { return strides[rank - 1]; }

  // Moves `n` (<= run_left()) elements forward, carrying into outer dims.
  void advance(int64_t n) {
    const int last = rank - 1;
    index[last] += n;
    offset += n * strides[last];
    for (int d = last; d > 0 && index[d] == sizes[d]; --d) {
      offset -= sizes[d] * strides[d];
      index[d] = 0;
      ++index[d - 1];
      offset += strides[d - 1];
    }
  }
};

template <typename W>
void copy_linear_runs(const StridedView& src, int64_t src_start, const StridedView& dst,
                      int64_t dst_start, int64_t count) {
  LinearCursor from(src, src_start);
  LinearCursor to(dst, dst_start);
  const W* in = reinterpret_cast<const W*>(src.data);
  W* out = reinterpret_cast<W*>(dst.data);
  const int64_t sa = from.run_stride();
  const int64_t sb = to.run_stride();
  while (count > 0) {
    int64_t n = count < from.run_left() ? count : from.run_left();
    if (to.run_left() < n) n = to.run_left();
    const W* a = in + from.offset;
    W* b = out + to.offset;
    if (sa == 1 && sb == 1) {
      memcpy(b, a, static_cast<size_t>(n) * sizeof(W));
    } else {
      for (int64_t i = 0; i < n; ++i) b[i * sb] = a[i * sa];
    }
    from.advance(n);
    to.advance(n);
    count -= n;
  }
}

}  // namespace

Error copy_view(const StridedView& src, const StridedView& dst) {
  return switch_element_width(src.element_size, "copy", [&](auto tag) {
    using W = decltype(tag);
    copy_runs<W>(make_pair_loop(src.rank, src.sizes, src.strides, dst.strides), src.data,
                 dst.data);
    return Error::Ok;
  });
}

Error copy_linear(const StridedView& src, int64_t src_start, const StridedView& dst,
                  int64_t dst_start, int64_t count) {
  if (count <= 0) return Error::Ok;
  return switch_element_width(src.element_size, "copy", [&](auto tag) {
    copy_linear_runs<decltype(tag)>(src, src_start, dst, dst_start, count);
    return Error::Ok;
  });
}

Error copy_view_to(const StridedView& src, Tensor& out) {
  TE_CHECK_OR_RETURN(out.dim() == src.rank, Error::InvalidArgument,
                     "out has rank %d but the result has rank %d", out.dim(), src.rank);
  TE_CHECK_OR_RETURN(element_size(out.dtype()) == src.element_size, Error::InvalidType,
                     "out has element size %zu but the input has %zu",
                     element_size(out.dtype()), src.element_size);
  TE_RETURN_IF_ERROR(resize_to(out, {src.sizes, static_cast<size_t>(src.rank)}));
  return copy_view(src, view_of(out));
}

}  // namespace torchedge
