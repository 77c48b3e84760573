// torchedge/kernels/optimized/copy/dense_copy.h
//
// The fast strided copy behind the optimized shape kernels (permute_copy,
// clone, expand_copy, view_copy, slice_copy, split_with_sizes_copy,
// _to_copy with one dtype): a source StridedView written into dense row-major memory of its
// logical shape, per the CopyPlan (copy_plan.h) kind:
//
//   kRuns       one memcpy per contiguous run (a dense source: one memcpy)
//   kFill       each run filled with its one source element
//   kTranspose  16x16 tiles (transpose_tile.h; SSE2 4x4 for 4-byte elements)
//   kGather     element by element along the run
//
// Work is split over rows (tiles) with parallel_for once a copy moves more
// than kCopyGrainBytes; one thread runs it inline. Nothing is allocated.
// Source and destination must not overlap.
//
//   copy_view_to_out(view, out)   the drop-in for the portable
//                                 copy_view_to(view, out): same checks and
//                                 errors; out in the default dim order takes
//                                 the fast path, any other layout the
//                                 portable copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/optimized/copy/copy_plan.h"
#include "kernels/optimized/copy/outer_loop.h"
#include "kernels/optimized/copy/transpose_tile.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"

namespace torchedge {
namespace optimized {

/// Bytes per parallel_for chunk of a copy: enough that a chunk costs far
/// more than handing it to a thread.
constexpr int64_t kCopyGrainBytes = 64 * 1024;

namespace dense_copy_detail {

// Units (rows or tiles) per chunk so that a chunk moves about kCopyGrainBytes.
inline int64_t units_per_chunk(int64_t unit_bytes) {
  if (unit_bytes <= 0) return 1;
  return unit_bytes >= kCopyGrainBytes ? 1 : (kCopyGrainBytes + unit_bytes - 1) / unit_bytes;
}

// The plan's dims but the last as an OuterLoop over {source, destination}.
inline OuterLoop<2> rows_of(const CopyPlan& plan) {
  OuterLoop<2> loop;
  loop.rank = plan.rank > 0 ? plan.rank - 1 : 0;
  for (int d = 0; d < loop.rank; ++d) {
    loop.sizes[d] = plan.sizes[d];
    loop.strides[0][d] = plan.src_strides[d];
    loop.strides[1][d] = plan.dst_strides[d];
  }
  return loop;
}

// Calls row(src_row, dst_row) for every row of the plan, rows split across
// threads. `row` is a small value type: copied into locals per chunk so
// that the stores of a row cannot be assumed to alias it.
template <typename W, typename Row>
void for_each_row(const CopyPlan& plan, const W* src, W* dst, Row row) {
  const OuterLoop<2> loop = rows_of(plan);
  const int64_t unit_bytes = plan.run_length() * static_cast<int64_t>(sizeof(W));
  parallel_for(0, loop.rows(), units_per_chunk(unit_bytes), [&](int64_t begin, int64_t end) {
    const Row f = row;
    const W* const s = src;
    W* const d = dst;
    loop.for_rows(begin, end, [&](int64_t, RowOffsets<2> off) { f(s + off[0], d + off[1]); });
  });
}

template <typename W>
struct RunRow {  // kRuns: one memcpy
  size_t bytes;
  void operator()(const W* s, W* d) const { memcpy(d, s, bytes); }
};

template <typename W>
struct FillRow {  // kFill: one element repeated
  int64_t n;
  void operator()(const W* s, W* d) const {
    const W v = *s;
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  }
};

template <typename W>
struct GatherRow {  // kGather: element by element
  int64_t n, step;
  void operator()(const W* s, W* d) const {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i * step];
  }
};

template <typename W>
void copy_rows(const CopyPlan& plan, const W* src, W* dst) {
  const int64_t n = plan.run_length();
  if (plan.kind == CopyKind::kRuns && plan.rank <= 1) {  // one dense block
    parallel_for(0, n, units_per_chunk(static_cast<int64_t>(sizeof(W))), [&](int64_t b, int64_t e) {
      memcpy(dst + b, src + b, static_cast<size_t>(e - b) * sizeof(W));
    });
    return;
  }
  switch (plan.kind) {
    case CopyKind::kRuns:
      for_each_row(plan, src, dst, RunRow<W>{static_cast<size_t>(n) * sizeof(W)});
      break;
    case CopyKind::kFill: for_each_row(plan, src, dst, FillRow<W>{n}); break;
    default: for_each_row(plan, src, dst, GatherRow<W>{n, plan.src_strides[plan.rank - 1]}); break;
  }
}

template <typename W>
void copy_transposed(const CopyPlan& plan, const W* src, W* dst) {
  const int k = plan.transpose_dim, last = plan.rank - 1;
  OuterLoop<2> loop;  // every dim but k and the last
  for (int d = 0; d < last; ++d) {
    if (d == k) continue;
    loop.sizes[loop.rank] = plan.sizes[d];
    loop.strides[0][loop.rank] = plan.src_strides[d];
    loop.strides[1][loop.rank] = plan.dst_strides[d];
    ++loop.rank;
  }
  const int64_t ni = plan.sizes[k], nj = plan.sizes[last];
  const int64_t src_stride = plan.src_strides[last], dst_stride = plan.dst_strides[k];
  const int64_t tiles = (ni + kTransposeTile - 1) / kTransposeTile;  // strips of rows i
  const int64_t strip_bytes = kTransposeTile * nj * static_cast<int64_t>(sizeof(W));
  parallel_for(0, loop.rows() * tiles, units_per_chunk(strip_bytes), [&](int64_t b, int64_t e) {
    const int64_t first_row = b / tiles, end_row = (e - 1) / tiles + 1;
    loop.for_rows(first_row, end_row, [&](int64_t row, RowOffsets<2> off) {
      const int64_t t0 = row == first_row ? b % tiles : 0;
      const int64_t t1 = row == end_row - 1 ? (e - 1) % tiles + 1 : tiles;
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t i0 = t * kTransposeTile;
        const int64_t mi = ni - i0 < kTransposeTile ? ni - i0 : kTransposeTile;
        for (int64_t j0 = 0; j0 < nj; j0 += kTransposeTile) {
          const int64_t mj = nj - j0 < kTransposeTile ? nj - j0 : kTransposeTile;
          transpose_tile(src + off[0] + i0 + j0 * src_stride, src_stride,
                         dst + off[1] + i0 * dst_stride + j0, dst_stride, mi, mj);
        }
      }
    });
  });
}

template <typename W>
void run_plan(const CopyPlan& plan, const char* src, char* dst) {
  const W* s = reinterpret_cast<const W*>(src);
  W* d = reinterpret_cast<W*>(dst);
  if (plan.kind == CopyKind::kEmpty) return;
  if (plan.kind == CopyKind::kTranspose) {
    copy_transposed<W>(plan, s, d);
  } else {
    copy_rows<W>(plan, s, d);
  }
}

}  // namespace dense_copy_detail

/// Copies `src` into `dst`, dense row-major memory of src's logical shape.
/// False (nothing written) for an element size other than 1, 2, 4 or 8.
inline bool copy_to_dense(const StridedView& src, void* dst) {
  const CopyPlan plan(src);
  char* d = static_cast<char*>(dst);
  switch (src.element_size) {
    case 1: dense_copy_detail::run_plan<uint8_t>(plan, src.data, d); return true;
    case 2: dense_copy_detail::run_plan<uint16_t>(plan, src.data, d); return true;
    case 4: dense_copy_detail::run_plan<uint32_t>(plan, src.data, d); return true;
    case 8: dense_copy_detail::run_plan<uint64_t>(plan, src.data, d); return true;
    default: return false;
  }
}

/// copy_view_to() (kernels/portable/support/strided_copy.h) with the fast
/// path: resizes `out` to src's sizes and copies. The same checks and errors;
/// out in a non-default dim order, or an odd element size, goes to the
/// portable copy.
inline Error copy_view_to_out(const StridedView& src, Tensor& out) {
  if (out.dim() != src.rank || element_size(out.dtype()) != src.element_size ||
      !out.is_contiguous()) {
    return copy_view_to(src, out);
  }
  TE_RETURN_IF_ERROR(resize_to(out, {src.sizes, static_cast<size_t>(src.rank)}));
  if (!copy_to_dense(src, out.mutable_data())) return copy_view(src, view_of(out));
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
