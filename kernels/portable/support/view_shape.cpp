#include "kernels/portable/support/view_shape.h"

#include "runtime/core/error_message.h"
#include "runtime/core/tensor.h"

namespace torchedge {

Error infer_view_sizes(Span<const int64_t> size, int64_t numel, int64_t* out_sizes) {
  TE_CHECK_OR_RETURN(size.size() <= static_cast<size_t>(kTensorDimensionLimit),
                     Error::InvalidArgument, "view shape has %zu dims, more than the limit of %d",
                     size.size(), kTensorDimensionLimit);
  int inferred = -1;
  int64_t known = 1;  // product of the given sizes; overflow-checked below
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      TE_CHECK_OR_RETURN(inferred < 0, Error::InvalidArgument,
                         "only one dimension can be inferred (-1 at %d and %zu)", inferred, i);
      inferred = static_cast<int>(i);
      continue;
    }
    TE_CHECK_OR_RETURN(size[i] >= 0, Error::InvalidArgument,
                       "invalid shape dimension %lld at index %zu",
                       static_cast<long long>(size[i]), i);
    TE_CHECK_OR_RETURN(size[i] == 0 || known <= INT64_MAX / size[i], Error::InvalidArgument,
                       "view shape overflows int64");
    known *= size[i];
    out_sizes[i] = size[i];
  }
  if (inferred >= 0) {
    TE_CHECK_OR_RETURN(known != 0, Error::InvalidArgument,
                       "cannot view a tensor of %lld elements with a -1 next to a zero-sized dim: "
                       "the inferred size is ambiguous",
                       static_cast<long long>(numel));
    TE_CHECK_OR_RETURN(numel % known == 0, Error::InvalidArgument,
                       "cannot view %lld elements as a shape of %lld elements times -1",
                       static_cast<long long>(numel), static_cast<long long>(known));
    out_sizes[inferred] = numel / known;
    known = numel;
  }
  TE_CHECK_OR_RETURN(known == numel, Error::InvalidArgument,
                     "view shape of %lld elements is invalid for an input of %lld elements",
                     static_cast<long long>(known), static_cast<long long>(numel));
  return Error::Ok;
}

}  // namespace torchedge
