// torchedge/kernels/portable/support/reduction.h
//
// Iteration for reductions over a dim list (sum, mean, var, amax, amin,
// argmax, argmin). A ReductionPlan splits the input's dims into kept dims
// (one output element per index) and reduced dims, then walks
//
//   for_each_output(f)        f(out_offset, in_base)   every output element
//   for_each_reduced(base, g) g(in_offset)             its inputs, in logical
//                                                      (row-major) order
//
// Lane-wise ops whose output has the input's shape (softmax, layer_norm,
// batch_norm) pass that output to init() as `paired` and bind it with
// keepdim=true; then for_each_reduced_pair(in_base, out_base, g) calls
// g(in_offset, paired_offset) for every element of the lane.
//
// Offsets are element offsets from strides, so any dense dim order works.
// Adjacent dims that are dense together are merged so inner runs are long.
// The logical visiting order makes "index of the first max" and the
// flattened index of argmax(dim=None) simply a counter.
//
// Usage:
//   ReductionPlan plan;
//   TE_RETURN_IF_ERROR(plan.init(*self, dims, "sum.IntList_out"));
//   int64_t sizes[kTensorDimensionLimit];
//   TE_RETURN_IF_ERROR(resize_to(*out, {sizes, plan.output_sizes(keepdim, sizes)}));
//   plan.bind_output(*out, keepdim);
//   plan.for_each_output([&](int64_t o, int64_t base) { ... });
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/half.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// What sums of T accumulate in: double for floating types (so a float32
/// sum is as accurate as ATen's cascade sum), int64 otherwise (wrapping
/// to narrower integers like ATen; bool sums become "any").
template <typename T>
struct SumAccType {
  using type = int64_t;
};
template <>
struct SumAccType<float> {
  using type = double;
};
template <>
struct SumAccType<double> {
  using type = double;
};
template <>
struct SumAccType<Half> {
  using type = double;
};
template <>
struct SumAccType<BFloat16> {
  using type = double;
};
template <typename T>
using sum_acc_t = typename SumAccType<T>::type;

class ReductionPlan final {
 public:
  /// `dims` may hold negative dims; an empty list (or a None dim list)
  /// reduces every dim. Fails on an out-of-range or repeated dim.
  /// `paired` (may be null) must have in's shape (see the file comment).
  Error init(const Tensor& in, Span<const int64_t> dims, const char* op,
             const Tensor* paired = nullptr);

  /// Writes the output shape into `sizes` (kTensorDimensionLimit entries)
  /// and returns its rank: reduced dims become 1 with keepdim, else vanish.
  size_t output_sizes(bool keepdim, int64_t* sizes) const;

  /// Takes the output's strides; call after resizing `out`.
  void bind_output(const Tensor& out, bool keepdim);

  int64_t reduced_numel() const { return reduced_numel_; }
  int64_t output_numel() const { return output_numel_; }
  /// True when dim `d` of the input is reduced.
  bool is_reduced(int d) const { return reduced_mask_ & (1u << d); }
  /// The first reduced dim of size 0 (for ATen's "non-zero size" errors), or -1.
  int empty_reduced_dim() const;

  template <typename F>
  void for_each_output(F&& f) const {
    Counter c;
    for (int64_t n = 0; n < output_numel_; ++n, c.next(kept_)) f(c.out_off, c.in_off);
  }

  template <typename F>
  void for_each_reduced(int64_t base, F&& f) const {
    if (reduced_numel_ == 0) return;
    if (reduced_.count == 0) {
      f(base);
      return;
    }
    const int inner = reduced_.count - 1;
    const int64_t inner_size = reduced_.size[inner], inner_stride = reduced_.in_stride[inner];
    const int64_t runs = reduced_numel_ / inner_size;
    Counter c;
    for (int64_t r = 0; r < runs; ++r, c.next(reduced_, inner)) {
      const int64_t start = base + c.in_off;
      for (int64_t i = 0; i < inner_size; ++i) f(start + i * inner_stride);
    }
  }

  template <typename F>
  void for_each_reduced_pair(int64_t in_base, int64_t out_base, F&& f) const {
    if (reduced_numel_ == 0) return;
    if (reduced_.count == 0) {
      f(in_base, out_base);
      return;
    }
    const int inner = reduced_.count - 1;
    const int64_t inner_size = reduced_.size[inner];
    const int64_t in_step = reduced_.in_stride[inner], out_step = reduced_.out_stride[inner];
    const int64_t runs = reduced_numel_ / inner_size;
    Counter c;
    for (int64_t r = 0; r < runs; ++r, c.next(reduced_, inner)) {
      const int64_t in_start = in_base + c.in_off, out_start = out_base + c.out_off;
      for (int64_t i = 0; i < inner_size; ++i) f(in_start + i * in_step, out_start + i * out_step);
    }
  }

 private:
  struct Dims {
    int count = 0;
    int64_t size[kTensorDimensionLimit];
    int64_t in_stride[kTensorDimensionLimit];
    int64_t out_stride[kTensorDimensionLimit];
  };
  // A row-major counter over dims [0, count) of a Dims.
  struct Counter {
    int64_t idx[kTensorDimensionLimit] = {};
    int64_t in_off = 0, out_off = 0;
    void next(const Dims& d, int count = -1) {
      for (int i = (count < 0 ? d.count : count) - 1; i >= 0; --i) {
        in_off += d.in_stride[i];
        out_off += d.out_stride[i];
        if (++idx[i] < d.size[i]) return;
        in_off -= d.size[i] * d.in_stride[i];
        out_off -= d.size[i] * d.out_stride[i];
        idx[i] = 0;
      }
    }
  };
  static void append(Dims& dims, int64_t size, int64_t in_stride, int64_t out_stride);

  const Tensor* in_ = nullptr;
  uint32_t reduced_mask_ = 0;
  int64_t reduced_numel_ = 1;
  int64_t output_numel_ = 1;
  Dims kept_;
  Dims reduced_;
};

}  // namespace torchedge
