// torchedge/kernels/portable/support/spatial_view.h
//
// A tensor shaped [N, C, *spatial] or [C, *spatial] (1 to 3 spatial dims)
// seen as 5-d [N, C, D, H, W]: absent leading dims have size 1 and stride
// 0, so one loop nest serves the 1-d, 2-d and 3-d forms of padding and
// pooling kernels in any dim order (offsets come from strides).
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace torchedge {

struct SpatialView {
  int64_t batch = 1, channels = 1;
  int64_t stride_n = 0, stride_c = 0;
  int64_t size[3] = {1, 1, 1};    // D, H, W
  int64_t stride[3] = {0, 0, 0};

  int64_t at(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    return n * stride_n + c * stride_c + d * stride[0] + h * stride[1] + w * stride[2];
  }
  int64_t planes() const { return batch * channels; }
  // Offset of plane p (p = n * channels + c).
  int64_t plane_at(int64_t p) const { return (p / channels) * stride_n + (p % channels) * stride_c; }
};

/// The view of `t` with its last `spatial` dims as spatial dims (t.dim()
/// must be spatial + 1 or spatial + 2; callers validate).
SpatialView spatial_view(const Tensor& t, int spatial);

/// Fails unless `in` has rank spatial + 1 or spatial + 2 and every dim but
/// the batch dim (dim 0 of the batched form) is non-empty: ATen's rule for
/// padding and pooling inputs ("possibly 0 batch size").
Error check_spatial_input(const Tensor& in, int spatial, const char* op);

}  // namespace torchedge
