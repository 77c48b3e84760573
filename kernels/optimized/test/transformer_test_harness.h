// torchedge/kernels/optimized/test/transformer_test_harness.h
//
// What the transformer kernel tests share: Buf (a contiguous tensor owning
// its storage, DynamicBound so kernels may resize it), Call (the boxed
// arguments of one kernel call), random fills, a NaN-aware comparison and a
// helper that runs a check at 1 and 2 threads. Everything sits in an
// anonymous namespace, so each test file gets its own copy.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
#define TE_OPTIMIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/optimized/transformer_kernels.inc"
#undef TE_OPTIMIZED_KERNEL

namespace {

using Fn = Error (*)(KernelContext&, Span<EValue*>);

// A contiguous tensor owning its metadata and storage (DynamicBound, so
// kernels may resize it within its initial element count).
struct Buf {
  Buf(ScalarType dtype, std::vector<int32_t> shape) : sizes(shape), order(shape.size()), strides(shape.size() + 1) {
    for (size_t i = 0; i < shape.size(); ++i) order[i] = static_cast<uint8_t>(i);
    size_t n = 1;
    for (int32_t s : shape) n *= static_cast<size_t>(s);
    bytes.assign(n * element_size(dtype) + 32, 0);
    t = Tensor(dtype, static_cast<int>(shape.size()), sizes.data(), order.data(), strides.data(),
               bytes.data(), TensorShapeDynamism::DynamicBound);
  }
  float* f() { return reinterpret_cast<float*>(bytes.data()); }
  std::vector<float> floats() const {
    std::vector<float> v(t.numel());
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
  }
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
  std::vector<int32_t> strides;
  std::vector<unsigned char> bytes;
  Tensor t;
};

// Boxed arguments of one call; every EValue stays put (deque).
struct Call {
  Call() = default;
  Call(const Call&) = delete;  // list arguments point into this object
  Call& operator=(const Call&) = delete;
  std::deque<EValue> values;
  std::deque<std::string> strings;
  std::deque<std::vector<EValue>> items;
  std::deque<std::vector<EValue*>> item_ptrs;
  std::deque<std::vector<int64_t>> scratch;
  Call& t(Buf& b) { return push(EValue(&b.t)); }
  Call& none() { return push(EValue()); }
  Call& i(int64_t v) { return push(EValue(v)); }
  Call& d(double v) { return push(EValue(v)); }
  Call& b(bool v) { return push(EValue(v)); }
  Call& s(const char* text) {
    const std::string& kept = strings.emplace_back(text);
    return push(EValue(StringView{kept.data(), kept.size()}));
  }
  Call& ints(std::vector<int64_t> list) {
    std::vector<EValue>& its = items.emplace_back();
    for (int64_t v : list) its.emplace_back(v);
    std::vector<EValue*>& ptrs = item_ptrs.emplace_back();
    for (EValue& v : its) ptrs.push_back(&v);
    std::vector<int64_t>& sc = scratch.emplace_back(list.size() + 1);
    return push(EValue(IntListRef(ptrs.data(), sc.data(), list.size())));
  }
  Call& push(EValue v) {
    values.push_back(v);
    return *this;
  }
  Error run(Fn fn) {
    std::vector<unsigned char> arena(1 << 16);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(&temp);
    std::vector<EValue*> ptrs;
    for (EValue& v : values) ptrs.push_back(&v);
    return fn(ctx, {ptrs.data(), ptrs.size()});
  }
};

std::mt19937& rng() {
  static std::mt19937 r(1234);
  return r;
}

void fill_random(Buf& b, float scale = 3.0f, float offset = 0.0f) {
  std::uniform_real_distribution<float> d(-scale, scale);
  for (size_t i = 0; i < b.t.numel(); ++i) b.f()[i] = d(rng()) + offset;
}

// NaN-aware closeness: both NaN, equal infinities, or |a - b| <= atol + rtol |b|.
void expect_close(const std::vector<float>& got, const std::vector<float>& want, double rtol,
                  double atol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g)) ok = std::isnan(w) && std::isnan(g);
    else if (std::isinf(w) || std::isinf(g)) ok = g == w;
    else ok = std::fabs(static_cast<double>(g) - w) <= atol + rtol * std::fabs(static_cast<double>(w));
    if (!ok && reported++ < 5) ADD_FAILURE() << what << " at " << i << ": got " << g << ", want " << w;
  }
}

std::string shape_str(const std::vector<int32_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// Runs the test body at 1 and at 2 threads.
template <typename F>
void at_thread_counts(F body) {
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    body(threads);
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
