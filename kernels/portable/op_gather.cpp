// aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False,
//     Tensor(a!) out)
//
// out[i][j][k] = self[index[i][j][k]][j][k] for dim 0 (likewise for other
// dims): out has index's shape. index (int64 or int32) must have self's
// rank (a 0-d tensor counts as 1-d), no dim larger than self's except along
// `dim` (unless index is empty), and values in [0, self.size(dim)).
// sparse_grad only matters to autograd.
#include "kernels/portable/support/index_values.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
// Sizes and strides of `t` with a 0-d tensor seen as 1-d of size 1.
int at_least_1d(const Tensor& t, int64_t* sizes, int64_t* strides) {
  if (t.dim() == 0) {
    sizes[0] = 1;
    strides[0] = 1;
    return 1;
  }
  for (int d = 0; d < t.dim(); ++d) {
    sizes[d] = t.size(d);
    strides[d] = t.stride(d);
  }
  return t.dim();
}

struct GatherShape {
  int rank;
  int64_t index_sizes[kTensorDimensionLimit];
  int64_t index_strides[kTensorDimensionLimit];
  int64_t self_sizes[kTensorDimensionLimit];
  int64_t self_strides[kTensorDimensionLimit];
  int64_t out_strides[kTensorDimensionLimit];
};

template <typename W>
void gather_elements(const GatherShape& s, int dim, const Tensor& self, const Tensor& index,
                     Tensor& out) {
  const W* from = self.data_as<W>();
  W* to = out.mutable_data_as<W>();
  int64_t pos[kTensorDimensionLimit] = {};
  const int64_t n = static_cast<int64_t>(index.numel());
  for (int64_t i = 0; i < n; ++i) {
    int64_t at_index = 0;
    int64_t at_self = 0;
    int64_t at_out = 0;
    for (int d = 0; d < s.rank; ++d) {
      at_index += pos[d] * s.index_strides[d];
      at_out += pos[d] * s.out_strides[d];
      if (d != dim) at_self += pos[d] * s.self_strides[d];
    }
    at_self += load_index(index, at_index) * s.self_strides[dim];
    to[at_out] = from[at_self];
    for (int d = s.rank - 1; d >= 0 && ++pos[d] == s.index_sizes[d]; --d) pos[d] = 0;
  }
}
}  // namespace

Error gather_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* index, tensor_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(bool sparse_grad, bool_arg(args, 3, "sparse_grad"));
  (void)sparse_grad;
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(is_index_dtype(index->dtype()), Error::InvalidType,
                     "gather: index must be int64 or int32, got %s", to_string(index->dtype()));
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "gather dim"));
  GatherShape s;
  s.rank = at_least_1d(*self, s.self_sizes, s.self_strides);
  TE_CHECK_OR_RETURN(at_least_1d(*index, s.index_sizes, s.index_strides) == s.rank,
                     Error::InvalidArgument,
                     "gather: index must have as many dims as self (%d), got %d", self->dim(),
                     index->dim());
  if (index->numel() > 0) {
    for (int k = 0; k < s.rank; ++k) {
      TE_CHECK_OR_RETURN(k == d || s.index_sizes[k] <= s.self_sizes[k], Error::InvalidArgument,
                         "gather: index size %lld at dim %d exceeds self's size %lld",
                         static_cast<long long>(s.index_sizes[k]), k,
                         static_cast<long long>(s.self_sizes[k]));
    }
    TE_RETURN_IF_ERROR(check_index_range(*index, s.self_sizes[d], false, "gather"));
  }
  TE_RETURN_IF_ERROR(resize_like(*out, *index));
  for (int k = 0; k < out->dim(); ++k) s.out_strides[k] = out->stride(k);
  if (out->dim() == 0) s.out_strides[0] = 1;
  return switch_element_width(element_size(out->dtype()), "gather", [&](auto tag) {
    gather_elements<decltype(tag)>(s, d, *self, *index, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
