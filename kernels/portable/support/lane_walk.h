// torchedge/kernels/portable/support/lane_walk.h
//
// Walking the lanes of one dim. For an input of rank r and a dim d, a lane
// is the run of elements whose indices differ only in d. Ops that work lane
// by lane (cumsum, sort, topk, max.dim) visit every lane once and get, for
// each tensor taking part, the element offset where its lane starts:
//
//   LaneWalk walk(*self, dim);               // slot 0: self's lanes
//   walk.add(*values, /*has_dim=*/true);      // slot 1: same rank as self
//   walk.add(*indices, /*has_dim=*/false);    // slot 2: rank r - 1, d dropped
//   walk.for_each([&](const int64_t* at) { ... at[0], at[1], at[2] ... });
//
// An added tensor must have self's sizes in every dim but d (the caller
// checked or resized it so); its size along d may differ (topk's k). Offsets
// come from strides, so any dim order works. A rank-0 input has one lane of
// length 1 (use lane_size / lane_stride, which treat rank 0 that way).
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"

namespace torchedge {

/// Size of `t` along `dim`, or 1 for a rank-0 tensor.
inline int64_t lane_size(const Tensor& t, int dim) { return t.dim() == 0 ? 1 : t.size(dim); }

/// Element stride of `t` along `dim`, or 0 for a rank-0 tensor.
inline int64_t lane_stride(const Tensor& t, int dim) { return t.dim() == 0 ? 0 : t.stride(dim); }

class LaneWalk final {
 public:
  static constexpr int kMaxTensors = 4;

  /// `dim` must already be normalized against in.dim() (0 for rank 0).
  LaneWalk(const Tensor& in, int dim) : dim_(dim) {
    for (int d = 0; d < in.dim(); ++d) {
      if (d == dim) continue;
      sizes_[rank_++] = in.size(d);
      lanes_ *= in.size(d);
    }
    add(in, true);
  }

  /// Adds a tensor (at most kMaxTensors in all, self included); returns its
  /// slot. `has_dim`: t has the input's rank; otherwise d is dropped.
  int add(const Tensor& t, bool has_dim) {
    if (count_ == kMaxTensors) return -1;  // a caller bug; the slot is never read
    int outer = 0;
    for (int d = 0; d < t.dim(); ++d) {
      if (has_dim && d == dim_) continue;
      strides_[count_][outer++] = t.stride(d);
    }
    return count_++;
  }

  int64_t lane_count() const { return lanes_; }

  /// Calls f(at) once per lane, in row-major order of the other dims;
  /// at[slot] is the lane's first element in the tensor of that slot.
  template <typename F>
  void for_each(F&& f) const {
    int64_t idx[kTensorDimensionLimit] = {};
    int64_t at[kMaxTensors] = {};
    for (int64_t n = 0; n < lanes_; ++n) {
      f(static_cast<const int64_t*>(at));
      for (int i = rank_ - 1; i >= 0; --i) {
        for (int t = 0; t < count_; ++t) at[t] += strides_[t][i];
        if (++idx[i] < sizes_[i]) break;
        for (int t = 0; t < count_; ++t) at[t] -= sizes_[i] * strides_[t][i];
        idx[i] = 0;
      }
    }
  }

 private:
  int dim_;
  int rank_ = 0;   // dims other than dim_
  int count_ = 0;  // tensors added
  int64_t lanes_ = 1;
  int64_t sizes_[kTensorDimensionLimit] = {};
  int64_t strides_[kMaxTensors][kTensorDimensionLimit] = {};
};

}  // namespace torchedge
