// aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
// aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
// aten::any.all_out(Tensor self, *, Tensor(a!) out)
// and the same three overloads of aten::all.
//
// Fast case: self bool of rank >= 1 and out bool, both in the default dim
// order, reducing one block of consecutive dims (one dim, None = every dim,
// or a list that covers consecutive dims). Viewed as [outer, reduced,
// inner], a row is an OR (AND) over contiguous bytes when inner is 1, and
// an elementwise OR (AND) of inner-long rows otherwise; both vectorize.
// Outer rows are split across threads for large inputs. An empty reduction
// gives false (any) / true (all), as in ATen. Everything else (other dtypes,
// rank 0, an empty dim list, scattered dims, bad arguments) goes to the
// portable kernel.
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

using Fn = Error (*)(KernelContext&, Span<EValue*>);

// Whether any (kAny) / every byte of p[0, n) is nonzero.
template <bool kAny>
bool reduce_run(const uint8_t* p, int64_t n) {
  uint8_t acc = 0;
  if (kAny) {
    for (int64_t i = 0; i < n; ++i) acc |= p[i];
  } else {
    for (int64_t i = 0; i < n; ++i) acc |= static_cast<uint8_t>(p[i] == 0);
  }
  return kAny ? acc != 0 : acc == 0;
}

// y[i] (0/1) combined with the truth of p[i], for i < n.
template <bool kAny>
void combine_rows(const uint8_t* __restrict p, uint8_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t t = static_cast<uint8_t>(p[i] != 0);
    y[i] = kAny ? static_cast<uint8_t>(y[i] | t) : static_cast<uint8_t>(y[i] & t);
  }
}

// Reduces dims [first, last) of self into out.
template <bool kAny>
Error reduce_block(const Tensor& self, int first, int last, bool keepdim, Tensor& out) {
  int64_t sizes[kTensorDimensionLimit];
  int rank = 0;
  int64_t outer = 1, reduced = 1, inner = 1;
  for (int d = 0; d < self.dim(); ++d) {
    const int64_t s = self.size(d);
    if (d < first) {
      outer *= s;
    } else if (d < last) {
      reduced *= s;
      if (keepdim) sizes[rank++] = 1;
      continue;
    } else {
      inner *= s;
    }
    sizes[rank++] = s;
  }
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, static_cast<size_t>(rank)}));
  const uint8_t* x = static_cast<const uint8_t*>(self.data());
  uint8_t* y = static_cast<uint8_t*>(out.mutable_data());
  const int64_t grain = rows_per_chunk(reduced * inner, kElementGrain * 4);
  parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const uint8_t* row = x + o * reduced * inner;
      if (inner == 1) {
        y[o] = static_cast<uint8_t>(reduce_run<kAny>(row, reduced));
        continue;
      }
      uint8_t* dst = y + o * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] = kAny ? 0 : 1;
      for (int64_t r = 0; r < reduced; ++r) combine_rows<kAny>(row + r * inner, dst, inner);
    }
  });
  return Error::Ok;
}

bool is_dense_bool(const EValue* v) {
  return v->is_tensor() && v->to_tensor().dtype() == ScalarType::Bool &&
         v->to_tensor().is_contiguous();
}

// The dims of a dims_out list as a block [first, last); false when the list
// is empty, invalid, has duplicates or is not one block.
bool dims_block(Span<const int64_t> dims, int rank, int* first, int* last) {
  if (dims.empty() || dims.size() > static_cast<size_t>(rank)) return false;
  bool seen[kTensorDimensionLimit] = {};
  int lo = rank, hi = -1;
  for (int64_t dim : dims) {
    int d;
    if (!wrap_dim(dim, rank, &d) || seen[d]) return false;
    seen[d] = true;
    lo = d < lo ? d : lo;
    hi = d > hi ? d : hi;
  }
  if (hi - lo + 1 != static_cast<int>(dims.size())) return false;
  *first = lo;
  *last = hi + 1;
  return true;
}

template <bool kAny>
Error dim_out(KernelContext& ctx, Span<EValue*> args, Fn portable) {
  int d = 0;
  if (args.size() != 4 || !is_dense_bool(args[0]) || !is_int_at(args, 1) ||
      !args[2]->is_bool() || !is_dense_bool(args[3]) || args[0]->to_tensor().dim() == 0 ||
      !wrap_dim(args[1]->to_int(), args[0]->to_tensor().dim(), &d)) {
    return portable(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[3]->to_tensor();
  const bool keepdim = args[2]->to_bool();
  if (out.dim() != (keepdim ? self.dim() : self.dim() - 1)) return portable(ctx, args);
  return reduce_block<kAny>(self, d, d + 1, keepdim, out);
}

template <bool kAny>
Error dims_out(KernelContext& ctx, Span<EValue*> args, Fn portable) {
  if (args.size() != 4 || !is_dense_bool(args[0]) || !args[2]->is_bool() ||
      !is_dense_bool(args[3]) || args[0]->to_tensor().dim() == 0) {
    return portable(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[3]->to_tensor();
  const bool keepdim = args[2]->to_bool();
  int first = 0, last = self.dim();
  if (!args[1]->is_none() &&
      (!is_int_list_at(args, 1) || !dims_block(args[1]->to_int_list(), self.dim(), &first, &last))) {
    return portable(ctx, args);
  }
  if (out.dim() != (keepdim ? self.dim() : self.dim() - (last - first))) return portable(ctx, args);
  return reduce_block<kAny>(self, first, last, keepdim, out);
}

template <bool kAny>
Error all_out(KernelContext& ctx, Span<EValue*> args, Fn portable) {
  if (args.size() != 2 || !is_dense_bool(args[0]) || !is_dense_bool(args[1]) ||
      args[0]->to_tensor().dim() == 0 || args[1]->to_tensor().dim() != 0) {
    return portable(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  return reduce_block<kAny>(self, 0, self.dim(), false, args[1]->to_tensor());
}

}  // namespace

Error any_out(KernelContext& ctx, Span<EValue*> args) {
  return dim_out<true>(ctx, args, native::any_out);
}
Error any_dims_out(KernelContext& ctx, Span<EValue*> args) {
  return dims_out<true>(ctx, args, native::any_dims_out);
}
Error any_all_out(KernelContext& ctx, Span<EValue*> args) {
  return all_out<true>(ctx, args, native::any_all_out);
}
Error all_dim_out(KernelContext& ctx, Span<EValue*> args) {
  return dim_out<false>(ctx, args, native::all_dim_out);
}
Error all_dims_out(KernelContext& ctx, Span<EValue*> args) {
  return dims_out<false>(ctx, args, native::all_dims_out);
}
Error all_all_out(KernelContext& ctx, Span<EValue*> args) {
  return all_out<false>(ctx, args, native::all_all_out);
}

}  // namespace optimized
}  // namespace torchedge
