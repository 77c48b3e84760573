// Runtime behaviour of the XNNPACK backend: thread count setting, delegate
// lifetime accounting, and zero heap allocations in a steady-state execute.

#include "backends/xnnpack/test/delegate_harness.h"

#ifdef TORCHEDGE_XNNPACK_HEAP_COUNTER
#include "extension/test/heap_counter.h"
#endif

namespace torchedge {
namespace {

// [1, 16, 20, 20] NCHW -> 3x3 conv to 32 channels -> relu -> NCHW output:
// large enough that two threads split real work.
std::vector<uint8_t> conv_blob() {
  BlobBuilder b;
  const uint32_t in = b.input({1, 20, 20, 16}, Boundary::NchwToNhwc);
  const uint32_t out = b.output({1, 20, 20, 32}, Boundary::NchwToNhwc);
  const uint32_t filter = b.constant({32, 3, 3, 16}, pseudo_random(32 * 9 * 16, 7));
  const uint32_t bias = b.constant({32}, pseudo_random(32, 8));
  const uint32_t conv = b.internal({1, 20, 20, 32});
  b.node(OpCode::Conv2d, {in, filter, bias, conv},
         {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 16, 32, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  b.node(OpCode::Clamp, {conv, out}, {BlobBuilder::f(0.0f), BlobBuilder::f(kInf)});
  return b.build();
}

std::vector<float> run_conv(size_t threads) {
  set_xnnpack_num_threads(threads);
  LoadedDelegate delegate(conv_blob());
  set_xnnpack_num_threads(1);
  EXPECT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  TestTensor x(ScalarType::Float, {1, 16, 20, 20});
  x.fill(pseudo_random(16 * 400, 9));
  TestTensor y(ScalarType::Float, {1, 32, 20, 20});
  EXPECT_EQ(delegate.execute({&x, &y}), Error::Ok) << last_error_message();
  return y.values<float>();
}

TEST(XnnpackRuntime, ThreadCountSettingDoesNotChangeResults) {
  EXPECT_EQ(xnnpack_num_threads(), 1u);
  set_xnnpack_num_threads(0);  // read as 1
  EXPECT_EQ(xnnpack_num_threads(), 1u);
  const std::vector<float> one = run_conv(1);
  const std::vector<float> two = run_conv(2);
  const std::vector<float> three = run_conv(3);
  expect_near_all(two, one, 1e-6f);
  expect_near_all(three, one, 1e-6f);
}

TEST(XnnpackRuntime, DelegatesAreCountedUntilDestroyed) {
  const int before = xnnpack_live_delegates();
  {
    set_xnnpack_num_threads(2);
    LoadedDelegate a(conv_blob());
    LoadedDelegate b(conv_blob());  // shares a's two-thread pool
    set_xnnpack_num_threads(1);
    ASSERT_EQ(a.init_error(), Error::Ok);
    ASSERT_EQ(b.init_error(), Error::Ok);
    EXPECT_EQ(xnnpack_live_delegates(), before + 2);
  }
  EXPECT_EQ(xnnpack_live_delegates(), before);
  // A failed init leaves nothing live.
  LoadedDelegate bad(std::vector<uint8_t>{'T', 'E', 'X', '1'});
  EXPECT_NE(bad.init_error(), Error::Ok);
  EXPECT_EQ(xnnpack_live_delegates(), before);
}

TEST(XnnpackRuntime, TensorsMayMoveBetweenCalls) {
  LoadedDelegate delegate(conv_blob());
  ASSERT_EQ(delegate.init_error(), Error::Ok);
  const std::vector<float> input = pseudo_random(16 * 400, 9);
  TestTensor x1(ScalarType::Float, {1, 16, 20, 20});
  x1.fill(input);
  TestTensor y1(ScalarType::Float, {1, 32, 20, 20});
  ASSERT_EQ(delegate.execute({&x1, &y1}), Error::Ok);
  TestTensor x2(ScalarType::Float, {1, 16, 20, 20});
  x2.fill(input);
  TestTensor y2(ScalarType::Float, {1, 32, 20, 20});
  ASSERT_EQ(delegate.execute({&x2, &y2}), Error::Ok);
  EXPECT_EQ(y1.values<float>(), y2.values<float>());
}

#ifdef TORCHEDGE_XNNPACK_HEAP_COUNTER
TEST(XnnpackRuntime, SteadyStateExecuteDoesNotTouchTheHeap) {
  LoadedDelegate delegate(conv_blob());
  ASSERT_EQ(delegate.init_error(), Error::Ok);
  TestTensor x(ScalarType::Float, {1, 16, 20, 20});
  TestTensor y(ScalarType::Float, {1, 32, 20, 20});
  // The first call sets the runtime up (XNNPACK may size its indirection
  // buffers then); later calls with the same tensors must not allocate.
  delegate.prepare({&x, &y});
  ASSERT_EQ(delegate.execute_prepared(), Error::Ok);
  size_t allocations = 0;
  Error errors[3];
  {
    testing::HeapCounter counter;
    for (Error& e : errors) e = delegate.execute_prepared();
    allocations = counter.allocations();
  }
  for (Error e : errors) EXPECT_EQ(e, Error::Ok);
  EXPECT_EQ(allocations, 0u);
}
#endif

}  // namespace
}  // namespace torchedge
