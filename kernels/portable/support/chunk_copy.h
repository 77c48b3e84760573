// torchedge/kernels/portable/support/chunk_copy.h
//
// The common tail of the splitting kernels (split_copy,
// split_with_sizes_copy): self is cut along one dim into consecutive
// chunks, chunk i going to outs[i]. Every out is checked and resized before
// anything is copied, so a bad out list writes no data.
#pragma once

#include <cstdint>

#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"

namespace torchedge {

/// `length_of(i)` gives the length of chunk i along `dim` (the caller
/// checked that the lengths are >= 0 and sum to self.size(dim)). Each out
/// must have self's dtype and rank.
template <typename LengthOf>
Error copy_chunks(const Tensor& self, int dim, Span<Tensor* const> outs, LengthOf length_of) {
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < self.dim(); ++d) sizes[d] = self.size(d);
  for (size_t i = 0; i < outs.size(); ++i) {
    TE_CHECK_OR_RETURN(outs[i]->dtype() == self.dtype(), Error::InvalidType,
                       "out[%zu] has dtype %s but self has dtype %s", i,
                       to_string(outs[i]->dtype()), to_string(self.dtype()));
    sizes[dim] = length_of(i);
    const Error err = resize_to(*outs[i], {sizes, static_cast<size_t>(self.dim())});
    if (err != Error::Ok) {
      prepend_error_context("out[%zu]", i);
      return err;
    }
  }
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    StridedView chunk = view_of(self);
    view_narrow(chunk, dim, start, length_of(i), 1);
    TE_RETURN_IF_ERROR(copy_view(chunk, view_of(*outs[i])));
    start += length_of(i);
  }
  return Error::Ok;
}

}  // namespace torchedge
