// torchedge/kernels/optimized/test/glue_test_support.h
//
// What the glue kernel tests (glue_ops_test.cpp: copies;
// glue_mask_ops_test.cpp: eq / where / any / logical_not) share: Tens (a
// dense tensor in any dim order owning its storage), compare() (the
// optimized kernel against the portable one: same error, same sizes, same
// bytes) and GLUE_TEST (a test body run at 1 and at 2 threads). Everything
// sits in an anonymous namespace, as in transformer_test_harness.h.
#pragma once

// The harness's float helpers (fill_random, expect_close) are unused here.
#pragma GCC diagnostic ignored "-Wunused-function"
#include "kernels/optimized/test/transformer_test_harness.h"

#include <algorithm>
#include <functional>

namespace torchedge {
namespace optimized {
#define TE_OPTIMIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/optimized/glue_kernels.inc"
#undef TE_OPTIMIZED_KERNEL

namespace {

using Shape = std::vector<int32_t>;

// A dense tensor in any dim order, owning its storage (DynamicBound).
struct Tens {
  Tens(ScalarType dtype, Shape shape, std::vector<uint8_t> dim_order = {})
      : sizes(shape), order(std::move(dim_order)), strides(shape.size() + 1) {
    if (order.empty()) {
      for (size_t i = 0; i < shape.size(); ++i) order.push_back(static_cast<uint8_t>(i));
    }
    size_t n = 1;
    for (int32_t s : shape) n *= static_cast<size_t>(s);
    bytes.assign(n * element_size(dtype) + 16, 0);
    t = Tensor(dtype, static_cast<int>(shape.size()), sizes.data(), order.data(), strides.data(),
               bytes.data(), TensorShapeDynamism::DynamicBound);
  }
  // Random contents: bools 0/1, other dtypes random bytes.
  Tens& random() {
    std::uniform_int_distribution<int> byte(0, 255);
    for (size_t i = 0; i < t.nbytes(); ++i) {
      bytes[i] = static_cast<unsigned char>(t.dtype() == ScalarType::Bool ? byte(rng()) & 1
                                                                         : byte(rng()));
    }
    return *this;
  }
  // A bool tensor mostly false, so any/all see both answers.
  Tens& sparse_bools(int one_in) {
    std::uniform_int_distribution<int> d(0, one_in - 1);
    for (size_t i = 0; i < t.nbytes(); ++i) bytes[i] = d(rng()) == 0;
    return *this;
  }
  std::vector<unsigned char> data() const {
    return std::vector<unsigned char>(bytes.begin(), bytes.begin() + t.nbytes());
  }
  Shape shape() const { return Shape(t.sizes().begin(), t.sizes().end()); }
  Shape sizes;
  std::vector<uint8_t> order;
  std::vector<int32_t> strides;
  std::vector<unsigned char> bytes;
  Tensor t;
};

// Runs `fast` and `portable` on the same inputs with fresh outs made by
// make_outs(); expects the same error and, on success, identical outs.
// (Each test runs whole at 1 and at 2 threads: see GLUE_TEST.)
void compare(const std::string& what, Fn fast, Fn portable,
             const std::function<std::vector<Tens>()>& make_outs,
             const std::function<void(Call&, std::vector<Tens>&)>& build) {
  std::vector<Tens> got = make_outs(), want = make_outs();
  Call cg, cw;
  build(cg, got);
  build(cw, want);
  const Error eg = cg.run(fast), ew = cw.run(portable);
  const std::string where = what + " threads " + std::to_string(num_threads());
  ASSERT_EQ(eg, ew) << where;
  if (ew != Error::Ok) return;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << where << " out " << i;
    ASSERT_TRUE(got[i].data() == want[i].data()) << where << " out " << i;
  }
}

// A test whose body runs at 1 and at 2 threads (the pool restarts once per
// count, not once per comparison).
#define GLUE_TEST(name)                                           \
  void name##_body();                                             \
  TEST(GlueOps, name) { at_thread_counts([](size_t) { name##_body(); }); } \
  void name##_body()

// One out of `dtype` with `shape` (a bound large enough for the result).
std::function<std::vector<Tens>()> one_out(ScalarType dtype, Shape shape,
                                           std::vector<uint8_t> order = {}) {
  return [=] {
    std::vector<Tens> v;
    v.emplace_back(dtype, shape, order);
    return v;
  };
}

std::vector<uint8_t> reversed_order(size_t rank) {
  std::vector<uint8_t> o(rank);
  for (size_t i = 0; i < rank; ++i) o[i] = static_cast<uint8_t>(rank - 1 - i);
  return o;
}

Shape permuted(const Shape& s, const std::vector<int64_t>& perm) {
  Shape r;
  for (int64_t p : perm) r.push_back(s[static_cast<size_t>(p)]);
  return r;
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
