#include "kernels/portable/support/scatter.h"

#include "runtime/core/error_message.h"

namespace torchedge {

namespace {

// ATen's ensure_nonempty_dim / ensure_nonempty_size.
int nonempty_rank(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }
int64_t nonempty_size(const Tensor& t, int d) { return t.dim() == 0 ? 1 : t.size(d); }

}  // namespace

Error check_scatter(const Tensor& self, int dim, const Tensor& index, const Tensor* src,
                    const char* op) {
  TE_CHECK_OR_RETURN(is_index_dtype(index.dtype()), Error::InvalidType,
                     "%s: expected dtype int64 (or int32) for index, got %s", op,
                     to_string(index.dtype()));
  if (index.numel() == 0) return Error::Ok;
  const int rank = nonempty_rank(self);
  TE_CHECK_OR_RETURN(nonempty_rank(index) == rank, Error::InvalidArgument,
                     "%s: index tensor must have the same number of dimensions as self tensor "
                     "(%d vs %d)",
                     op, index.dim(), self.dim());
  TE_CHECK_OR_RETURN(src == nullptr || nonempty_rank(*src) == rank, Error::InvalidArgument,
                     "%s: index tensor must have the same number of dimensions as src tensor "
                     "(%d vs %d)",
                     op, index.dim(), src == nullptr ? 0 : src->dim());
  for (int d = 0; d < rank; ++d) {
    const int64_t size = nonempty_size(index, d);
    TE_CHECK_OR_RETURN(d == dim || size <= nonempty_size(self, d), Error::InvalidArgument,
                       "%s: expected index size %lld at dim %d to be at most self's %lld", op,
                       static_cast<long long>(size), d,
                       static_cast<long long>(nonempty_size(self, d)));
    TE_CHECK_OR_RETURN(src == nullptr || size <= nonempty_size(*src, d), Error::InvalidArgument,
                       "%s: expected index size %lld at dim %d to be at most src's %lld", op,
                       static_cast<long long>(size), d,
                       static_cast<long long>(nonempty_size(*src, d)));
  }
  return check_index_range(index, nonempty_size(self, dim), /*allow_negative=*/false, op);
}

}  // namespace torchedge
