// torchedge/kernels/portable/test/shape_test_harness.h
//
// What the shape-kernel tests share: TestTensor (a tensor owning its
// metadata and storage, read and written in logical order whatever its dim
// order) and Call (owns the boxed arguments of one kernel call). Included by
// shape_test.cpp and shape_index_test.cpp only; everything is in an
// anonymous namespace, so each test file gets its own copy.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/shape_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using Sizes = std::vector<int32_t>;
using KernelFn = Error (*)(KernelContext&, Span<EValue*>);

// A tensor with its own metadata and storage. Its initial shape is its
// capacity; it is DynamicBound so kernels may resize it within that.
class TestTensor {
 public:
  TestTensor(ScalarType dtype, Sizes sizes, std::vector<uint8_t> dim_order = {})
      : sizes_(sizes), dim_order_(dim_order), strides_(sizes.size()) {
    if (dim_order_.empty()) {
      for (size_t i = 0; i < sizes.size(); ++i) dim_order_.push_back(static_cast<uint8_t>(i));
    }
    size_t numel = 1;
    for (int32_t s : sizes) numel *= static_cast<size_t>(s);
    bytes_.assign(numel * element_size(dtype) + 8, 0);
    tensor_ = Tensor(dtype, static_cast<int>(sizes.size()), sizes_.data(), dim_order_.data(),
                     strides_.data(), bytes_.data(), TensorShapeDynamism::DynamicBound);
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor* get() { return &tensor_; }
  Tensor& operator*() { return tensor_; }

  // Writes `values` in logical row-major order (through the strides).
  template <typename T>
  TestTensor& fill(std::vector<T> values) {
    for (size_t i = 0; i < values.size(); ++i) at<T>(i) = values[i];
    return *this;
  }
  // Reads the current contents in logical row-major order.
  template <typename T>
  std::vector<T> values() {
    std::vector<T> out;
    for (size_t i = 0; i < tensor_.numel(); ++i) out.push_back(at<T>(i));
    return out;
  }
  std::vector<int32_t> shape() const {
    return {tensor_.sizes().begin(), tensor_.sizes().end()};
  }

 private:
  template <typename T>
  T& at(size_t linear) {
    size_t offset = 0;
    for (int d = tensor_.dim() - 1; d >= 0; --d) {
      offset += (linear % tensor_.size(d)) * tensor_.stride(d);
      linear /= tensor_.size(d);
    }
    return static_cast<T*>(tensor_.mutable_data())[offset];
  }

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<uint8_t> bytes_;  // uint8 keeps bool storage byte-addressable
  Tensor tensor_;
};

template <typename T>
std::vector<T> iota(size_t n, T start = T(0)) {
  std::vector<T> v;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<T>(start + static_cast<T>(i)));
  return v;
}

// Owns the EValues of one call, so arguments are written inline:
//   Call c; c.run(native::add_out, {c.t(a), c.i(1), c.t(out)});
class Call {
 public:
  EValue* t(TestTensor& x) { return keep(EValue(x.get())); }
  EValue* none() { return keep(EValue()); }
  EValue* i(int64_t v) { return keep(EValue(v)); }
  EValue* b(bool v) { return keep(EValue(v)); }
  EValue* ints(std::vector<int64_t> values) {
    auto& items = item_lists_.emplace_back();
    for (int64_t v : values) items.push_back(i(v));
    auto& scratch = scratch_.emplace_back(values.size());
    return keep(EValue(IntListRef(items.data(), scratch.data(), values.size())));
  }
  // A TensorList; nullptr entries (with optional = true) stand for None.
  EValue* tensors(std::vector<TestTensor*> list, bool optional = false) {
    auto& ptrs = tensor_lists_.emplace_back();
    for (TestTensor* x : list) ptrs.push_back(x == nullptr ? nullptr : x->get());
    return keep(EValue(Span<Tensor* const>(ptrs.data(), ptrs.size()), optional));
  }
  Error run(KernelFn fn, std::vector<EValue*> args) {
    KernelContext ctx;
    return fn(ctx, Span<EValue*>(args.data(), args.size()));
  }

 private:
  EValue* keep(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }
  // deques: growing never moves what earlier arguments point at.
  std::deque<EValue> values_;
  std::deque<std::vector<EValue*>> item_lists_;
  std::deque<std::vector<int64_t>> scratch_;
  std::deque<std::vector<Tensor*>> tensor_lists_;
};

}  // namespace
}  // namespace torchedge
