// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//
// Fast case: condition bool, self / other / out float32, all in the default
// dim order, shapes that broadcast (any numpy broadcast, e.g. the attention
// masks [B,H,S,1] against [B,H,S,S], or [S,S] against a 0-d fill value), out
// of the broadcast rank. Each operand gets stride 0 along its broadcast
// dims; dims that all operands walk alike are merged, leaving rows whose
// operands move by 0 or 1 per element. A row is a vectorizable bit select,
// or one memcpy / fill when the condition is constant along it. Rows are
// split across threads for large outputs. Everything else goes to the
// portable kernel.
#include <cstring>

#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/copy/outer_loop.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int kCond = 0, kSelf = 1, kOther = 2;

// The broadcast loop: rows of `inner` output elements; operand k moves by
// inner_step[k] (0 or 1) along a row and by loop.strides[k] between rows.
struct WherePlan {
  int rank = 0;  // broadcast rank (out's)
  int64_t sizes[kTensorDimensionLimit] = {};
  OuterLoop<3> loop;
  int64_t inner = 1;
  int64_t inner_step[3] = {1, 1, 1};

  // False when the shapes do not broadcast.
  bool init(const Tensor* const ops[3]) {
    rank = 0;
    for (int k = 0; k < 3; ++k) rank = ops[k]->dim() > rank ? ops[k]->dim() : rank;
    int64_t strides[3][kTensorDimensionLimit];
    for (int d = rank - 1; d >= 0; --d) {
      int64_t size = 1;
      for (int k = 0; k < 3; ++k) {
        const int dk = d - (rank - ops[k]->dim());
        const int64_t s = dk < 0 ? 1 : ops[k]->size(dk);
        if (s != 1) {
          if (size != 1 && size != s) return false;
          size = s;
        }
      }
      sizes[d] = size;
    }
    for (int k = 0; k < 3; ++k) {  // row-major strides, 0 where broadcast
      int64_t stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int dk = d - (rank - ops[k]->dim());
        const int64_t s = dk < 0 ? 1 : ops[k]->size(dk);
        strides[k][d] = s == 1 ? 0 : stride;
        stride *= s;
      }
    }
    // Merge dims (size-1 dims dropped); the last merged dim is the row.
    int64_t msizes[kTensorDimensionLimit];
    int64_t mstrides[3][kTensorDimensionLimit];
    int m = 0;
    for (int d = 0; d < rank; ++d) {
      if (sizes[d] == 1) continue;
      bool merge = m > 0;
      for (int k = 0; k < 3 && merge; ++k) {
        merge = mstrides[k][m - 1] == strides[k][d] * sizes[d];
      }
      if (merge) {
        msizes[m - 1] *= sizes[d];
        for (int k = 0; k < 3; ++k) mstrides[k][m - 1] = strides[k][d];
      } else {
        msizes[m] = sizes[d];
        for (int k = 0; k < 3; ++k) mstrides[k][m] = strides[k][d];
        ++m;
      }
    }
    inner = m > 0 ? msizes[m - 1] : 1;
    for (int k = 0; k < 3; ++k) inner_step[k] = m > 0 ? mstrides[k][m - 1] : 0;
    loop.rank = m > 0 ? m - 1 : 0;
    for (int d = 0; d < loop.rank; ++d) {
      loop.sizes[d] = msizes[d];
      for (int k = 0; k < 3; ++k) loop.strides[k][d] = mstrides[k][d];
    }
    return true;
  }
};

// out[i] = c[i * SC] ? x[i * SX] : y[i * SY] on the float bits, branch-free
// so the compiler vectorizes it (NaN payloads pass through unchanged).
template <int SC, int SX, int SY>
void select_row(const uint8_t* cb, const uint32_t* x, const uint32_t* y, uint32_t* out,
                int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t mask = 0u - static_cast<uint32_t>(cb[i * SC] != 0);
    out[i] = (x[i * SX] & mask) | (y[i * SY] & ~mask);
  }
}

// One row whose condition is constant: a copy or a fill of the chosen side.
void constant_row(bool take_x, const uint32_t* x, int sx, const uint32_t* y, int sy,
                  uint32_t* out, int64_t n) {
  const uint32_t* src = take_x ? x : y;
  if ((take_x ? sx : sy) == 1) {
    memcpy(out, src, static_cast<size_t>(n) * sizeof(uint32_t));
  } else {
    const uint32_t v = *src;
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

using SelectRow = void (*)(const uint8_t*, const uint32_t*, const uint32_t*, uint32_t*, int64_t);

SelectRow pick_row(int sc, int sx, int sy) {
  static const SelectRow kRows[8] = {
      select_row<0, 0, 0>, select_row<0, 0, 1>, select_row<0, 1, 0>, select_row<0, 1, 1>,
      select_row<1, 0, 0>, select_row<1, 0, 1>, select_row<1, 1, 0>, select_row<1, 1, 1>};
  return kRows[sc * 4 + sx * 2 + sy];
}

bool is_dense(const EValue* v, ScalarType dtype) {
  return v->is_tensor() && v->to_tensor().dtype() == dtype && v->to_tensor().is_contiguous();
}

}  // namespace

Error where_self_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !is_dense(args[0], ScalarType::Bool) ||
      !is_dense(args[1], ScalarType::Float) || !is_dense(args[2], ScalarType::Float) ||
      !is_dense(args[3], ScalarType::Float)) {
    return native::where_self_out(ctx, args);
  }
  const Tensor* const ops[3] = {&args[0]->to_tensor(), &args[1]->to_tensor(),
                                &args[2]->to_tensor()};
  Tensor& out = args[3]->to_tensor();
  WherePlan plan;
  if (!plan.init(ops) || out.dim() != plan.rank) return native::where_self_out(ctx, args);
  TE_RETURN_IF_ERROR(resize_to(out, {plan.sizes, static_cast<size_t>(plan.rank)}));
  if (out.numel() == 0) return Error::Ok;
  // Read as bytes: any nonzero byte is true, as the select mask treats it.
  const uint8_t* c = static_cast<const uint8_t*>(ops[kCond]->data());
  const uint32_t* x = static_cast<const uint32_t*>(ops[kSelf]->data());
  const uint32_t* y = static_cast<const uint32_t*>(ops[kOther]->data());
  uint32_t* z = static_cast<uint32_t*>(out.mutable_data());
  const int64_t n = plan.inner;
  const int sc = static_cast<int>(plan.inner_step[kCond]);
  const int sx = static_cast<int>(plan.inner_step[kSelf]);
  const int sy = static_cast<int>(plan.inner_step[kOther]);
  const SelectRow row = pick_row(sc, sx, sy);
  parallel_for(0, plan.loop.rows(), rows_per_chunk(n, kElementGrain), [&](int64_t b, int64_t e) {
    plan.loop.for_rows(b, e, [&](int64_t r, RowOffsets<3> off) {
      uint32_t* dst = z + r * n;
      if (sc == 0) {
        constant_row(c[off[kCond]] != 0, x + off[kSelf], sx, y + off[kOther], sy, dst, n);
      } else {
        row(c + off[kCond], x + off[kSelf], y + off[kOther], dst, n);
      }
    });
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
