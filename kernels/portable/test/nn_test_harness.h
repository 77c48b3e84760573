// torchedge/kernels/portable/test/nn_test_harness.h
//
// What the nn/linear-algebra/reduction kernel tests share: TestTensor (a
// tensor owning its metadata and storage, filled and read in logical order
// whatever its dim order), Args (the boxed arguments of one kernel call) and
// float comparison helpers. Everything sits in an anonymous namespace, so
// each test file gets its own copy.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/nn_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using KernelFn = Error (*)(KernelContext&, Span<EValue*>);

// A tensor with its own metadata and storage. Its initial shape is its
// capacity; it is DynamicBound so kernels may resize it within that.
class TestTensor {
 public:
  TestTensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order = {})
      : sizes_(sizes), dim_order_(dim_order), strides_(sizes.size() + 1) {
    if (dim_order_.empty()) {
      for (size_t i = 0; i < sizes.size(); ++i) dim_order_.push_back(static_cast<uint8_t>(i));
    }
    size_t numel = 1;
    for (int32_t s : sizes) numel *= static_cast<size_t>(s);
    bytes_.assign(numel * element_size(dtype) + 16, 0);
    tensor_ = Tensor(dtype, static_cast<int>(sizes.size()), sizes_.data(), dim_order_.data(),
                     strides_.data(), bytes_.data(), TensorShapeDynamism::DynamicBound);
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor& operator*() { return tensor_; }
  Tensor* get() { return &tensor_; }

  // Writes `values` in logical row-major order (through the strides).
  template <typename T>
  TestTensor& fill(const std::vector<T>& values) {
    for (size_t i = 0; i < values.size(); ++i) at<T>(i) = values[i];
    return *this;
  }
  // The current contents in logical row-major order.
  template <typename T>
  std::vector<T> values() {
    std::vector<T> out;
    for (size_t i = 0; i < tensor_.numel(); ++i) out.push_back(at<T>(i));
    return out;
  }
  std::vector<int32_t> shape() const { return {tensor_.sizes().begin(), tensor_.sizes().end()}; }

  template <typename T>
  T& at(size_t linear) {
    size_t offset = 0;
    for (int d = tensor_.dim() - 1; d >= 0; --d) {
      offset += (linear % tensor_.size(d)) * tensor_.stride(d);
      linear /= tensor_.size(d);
    }
    return static_cast<T*>(tensor_.mutable_data())[offset];
  }

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<unsigned char> bytes_;
  Tensor tensor_;
};

// The boxed arguments of one call, in schema order.
class Args {
 public:
  Args& t(TestTensor& tensor) { return push(EValue(tensor.get())); }
  // A tensor the test built itself (e.g. a view aliasing another's storage).
  Args& t(Tensor* tensor) { return push(EValue(tensor)); }
  Args& none() { return push(EValue()); }
  Args& i(int64_t v) { return push(EValue(v)); }
  Args& d(double v) { return push(EValue(v)); }
  Args& b(bool v) { return push(EValue(v)); }
  Args& ints(std::vector<int64_t> list) {
    std::vector<EValue>& items = int_items_.emplace_back();
    for (int64_t v : list) items.emplace_back(v);
    std::vector<EValue*>& ptrs = int_ptrs_.emplace_back();
    for (EValue& v : items) ptrs.push_back(&v);
    std::vector<int64_t>& scratch = int_scratch_.emplace_back(list.size() + 1);
    return push(EValue(IntListRef(ptrs.data(), scratch.data(), list.size())));
  }
  Args& doubles(std::vector<double> list) {
    const std::vector<double>& stored = double_lists_.emplace_back(list);
    return push(EValue(Span<const double>(stored.data(), stored.size())));
  }

  // Calls `fn` with a 1 MiB temp allocator (or none).
  Error run(KernelFn fn, bool with_temp = true) {
    std::vector<unsigned char> arena(1 << 20);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(with_temp ? &temp : nullptr);
    return run_with(fn, ctx);
  }

  // Calls `fn` with the caller's context (to inspect the scratch it used).
  Error run_with(KernelFn fn, KernelContext& ctx) {
    std::vector<EValue*> ptrs;
    for (EValue& v : values_) ptrs.push_back(&v);
    return fn(ctx, {ptrs.data(), ptrs.size()});
  }

 private:
  Args& push(EValue v) {
    values_.push_back(v);
    return *this;
  }
  std::deque<EValue> values_;
  std::deque<std::vector<EValue>> int_items_;
  std::deque<std::vector<EValue*>> int_ptrs_;
  std::deque<std::vector<int64_t>> int_scratch_;
  std::deque<std::vector<double>> double_lists_;
};

inline void expect_near_all(const std::vector<float>& got, const std::vector<float>& want,
                            float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "at " << i;
  }
}

inline std::vector<float> arange(size_t n, float scale = 1.0f, float offset = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale + offset;
  return v;
}

// A contiguous float32 tensor of `sizes` over `data` (not owned), for
// operands that share storage (overlap checks).
struct FloatView {
  std::vector<int32_t> sizes, strides;
  std::vector<uint8_t> order;
  Tensor tensor;
  FloatView(float* data, std::vector<int32_t> s) : sizes(s), strides(s.size()), order(s.size()) {
    for (size_t d = 0; d < s.size(); ++d) order[d] = static_cast<uint8_t>(d);
    tensor = Tensor(ScalarType::Float, static_cast<int>(s.size()), sizes.data(), order.data(),
                    strides.data(), data);
  }
};

}  // namespace
}  // namespace torchedge
