// torchedge::linear_dynamic_int8_packed.out and
// torchedge::linear_dynamic_int8_packed_split.out: the weight stored in the
// GEMM's strip layout (support/int8_gemm_f32.h) changes only where the
// kernel reads it, so each output must equal linear_dynamic_int8.out on the
// unpacked weight bit for bit (that kernel is itself checked against the
// quantize kernels plus an exact integer sum in linear_dynamic_int8_test.cpp),
// on every ISA (the suite reruns under TORCHEDGE_ISA) and thread count.
#include <deque>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

// [n, k] row-major -> the strip layout (zero padding), as pack_int8_strips.
std::vector<int8_t> pack(const std::vector<int8_t>& w, int32_t n, int32_t k) {
  std::vector<int8_t> packed(quantized::int8_gemm_w_packed_elements(n, k), 0);
  for (int32_t c = 0; c < n; ++c) {
    for (int32_t i = 0; i < k; ++i) packed[quantized::int8_gemm_w_packed_index(c, i, k)] = w[c * k + i];
  }
  return packed;
}

int32_t strips(int32_t n) { return (n + 15) / 16; }
int32_t strip_width(int32_t k) { return static_cast<int32_t>(quantized::int8_gemm_x_stride(k)) * 16; }

std::vector<int8_t> random_weight(size_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> w8(-128, 127);
  std::vector<int8_t> w(count);
  for (int8_t& v : w) v = static_cast<int8_t>(w8(gen));
  return w;
}

// linear_dynamic_int8.out on the unpacked weight: the expected output.
std::vector<float> unpacked_output(TestTensor& x, const std::vector<int8_t>& wq,
                                   const std::vector<float>& ws, const std::vector<float>* b,
                                   int32_t m, int32_t k, int32_t n) {
  TestTensor w(ScalarType::Char, {n, k}), s(ScalarType::Float, {n}), bias(ScalarType::Float, {n});
  w.fill(wq);
  s.fill(ws);
  if (b != nullptr) bias.fill(*b);
  TestTensor out(ScalarType::Float, {m, n});
  Args args;
  args.t(x).t(w).t(s);
  if (b != nullptr) {
    args.t(bias);
  } else {
    args.none();
  }
  EXPECT_EQ(args.t(out).run(native::linear_dynamic_int8_out), Error::Ok);
  return out.values<float>();
}

void packed_case(int32_t m, int32_t k, int32_t n, bool with_bias, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << "m " << m << " k " << k << " n " << n);
  const std::vector<int8_t> wq = random_weight(static_cast<size_t>(n) * k, seed);
  const std::vector<float> ws = random_floats(n, 0.001f, 0.01f, seed + 1);
  const std::vector<float> b = random_floats(n, -1.0f, 1.0f, seed + 2);
  TestTensor x(ScalarType::Float, {m, k});
  x.fill(random_floats(static_cast<size_t>(m) * k, -3.0f, 1.5f, seed + 3));
  TestTensor w(ScalarType::Char, {strips(n), strip_width(k)}), s(ScalarType::Float, {n});
  TestTensor bias(ScalarType::Float, {n}), out(ScalarType::Float, {m, n});
  w.fill(pack(wq, n, k));
  s.fill(ws);
  bias.fill(b);
  Args args;
  args.t(x).t(w).t(s);
  if (with_bias) {
    args.t(bias);
  } else {
    args.none();
  }
  ASSERT_EQ(args.t(out).run(native::linear_dynamic_int8_packed_out), Error::Ok);
  EXPECT_EQ(out.values<float>(), unpacked_output(x, wq, ws, with_bias ? &b : nullptr, m, k, n));
}

TEST(LinearDynamicInt8Packed, EqualsUnpackedKernel) {
  // Odd K (padded pair), K past one 384-k block, partial last strip, M = 1.
  packed_case(1, 64, 7, true, 1);
  packed_case(3, 101, 33, false, 2);
  packed_case(13, 1, 5, true, 3);
  packed_case(7, 777, 40, true, 4);
  packed_case(128, 384, 48, true, 5);
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  packed_case(9, 200, 70, true, 6);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// The boxed arguments of a split call (Args has no TensorList).
struct SplitCall {
  std::deque<EValue> values;
  std::vector<EValue> size_items;
  std::vector<EValue*> size_ptrs;
  std::vector<int64_t> size_scratch;
  std::vector<Tensor*> outs;

  Error run(TestTensor& x, TestTensor& w, TestTensor& s, TestTensor* bias,
            std::vector<int64_t> sizes, std::vector<TestTensor*> out_tensors) {
    values.clear();
    for (int64_t v : sizes) size_items.emplace_back(v);
    for (EValue& v : size_items) size_ptrs.push_back(&v);
    size_scratch.resize(sizes.size() + 1);
    for (TestTensor* t : out_tensors) outs.push_back(t->get());
    values.emplace_back(x.get());
    values.emplace_back(w.get());
    values.emplace_back(s.get());
    values.push_back(bias != nullptr ? EValue(bias->get()) : EValue());
    values.emplace_back(IntListRef(size_ptrs.data(), size_scratch.data(), sizes.size()));
    values.emplace_back(Span<Tensor* const>(outs.data(), outs.size()), false);
    std::vector<EValue*> ptrs;
    for (EValue& v : values) ptrs.push_back(&v);
    std::vector<unsigned char> arena(1 << 20);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(&temp);
    return native::linear_dynamic_int8_packed_split_out(ctx, {ptrs.data(), ptrs.size()});
  }
};

TEST(LinearDynamicInt8PackedSplit, EachOutputEqualsItsLayer) {
  const int32_t m = 13, k = 37;
  const std::vector<int32_t> sizes = {5, 16, 20, 0, 1};
  std::vector<int8_t> packed;
  std::vector<float> scales, biases;
  std::vector<std::vector<int8_t>> weights;
  int32_t total_strips = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    weights.push_back(random_weight(static_cast<size_t>(sizes[j]) * k, 20 + j));
    const std::vector<int8_t> p = pack(weights.back(), sizes[j], k);
    packed.insert(packed.end(), p.begin(), p.end());
    const std::vector<float> s = random_floats(sizes[j], 0.001f, 0.01f, 40 + j);
    const std::vector<float> b = random_floats(sizes[j], -1.0f, 1.0f, 60 + j);
    scales.insert(scales.end(), s.begin(), s.end());
    biases.insert(biases.end(), b.begin(), b.end());
    total_strips += strips(sizes[j]);
  }
  const int32_t n = static_cast<int32_t>(scales.size());
  TestTensor x(ScalarType::Float, {m, k}), w(ScalarType::Char, {total_strips, strip_width(k)});
  TestTensor s(ScalarType::Float, {n}), bias(ScalarType::Float, {n});
  x.fill(random_floats(static_cast<size_t>(m) * k, -2.0f, 2.5f, 7));
  w.fill(packed);
  s.fill(scales);
  bias.fill(biases);
  std::deque<TestTensor> outs;
  std::vector<TestTensor*> out_ptrs;
  for (int32_t size : sizes) out_ptrs.push_back(&outs.emplace_back(ScalarType::Float,
                                                                    std::vector<int32_t>{m, size}));
  for (int threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    SplitCall call;
    ASSERT_EQ(call.run(x, w, s, &bias,
                       std::vector<int64_t>(sizes.begin(), sizes.end()), out_ptrs),
              Error::Ok);
    int32_t col = 0;
    for (size_t j = 0; j < sizes.size(); ++j) {
      SCOPED_TRACE(testing::Message() << "layer " << j << " threads " << threads);
      const std::vector<float> ws(scales.begin() + col, scales.begin() + col + sizes[j]);
      const std::vector<float> bs(biases.begin() + col, biases.begin() + col + sizes[j]);
      if (sizes[j] > 0) {
        EXPECT_EQ(out_ptrs[j]->values<float>(), unpacked_output(x, weights[j], ws, &bs, m, k, sizes[j]));
      } else {
        EXPECT_EQ(out_ptrs[j]->get()->numel(), 0u);
      }
      col += sizes[j];
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(LinearDynamicInt8PackedSplit, BadArguments) {
  const int32_t m = 2, k = 8;
  TestTensor x(ScalarType::Float, {m, k}), w(ScalarType::Char, {2, strip_width(k)});
  TestTensor s(ScalarType::Float, {20});
  w.fill(std::vector<int8_t>(2 * strip_width(k), 1));
  s.fill(std::vector<float>(20, 0.5f));
  TestTensor a(ScalarType::Float, {m, 4}), b(ScalarType::Float, {m, 16});
  EXPECT_EQ(SplitCall().run(x, w, s, nullptr, {4, 16}, {&a, &b}), Error::Ok);
  EXPECT_EQ(SplitCall().run(x, w, s, nullptr, {4, 8, 8}, {&a, &b, &b}), Error::InvalidArgument)
      << "3 strips needed, 2 given";
  EXPECT_EQ(SplitCall().run(x, w, s, nullptr, {4, 15}, {&a, &b}), Error::InvalidArgument)
      << "sizes do not sum to the scales";
  EXPECT_EQ(SplitCall().run(x, w, s, nullptr, {4, 16}, {&a}), Error::InvalidArgument)
      << "one out per size";
  TestTensor bias_bad(ScalarType::Float, {3});
  EXPECT_EQ(SplitCall().run(x, w, s, &bias_bad, {4, 16}, {&a, &b}), Error::InvalidArgument);
  TestTensor x_wide(ScalarType::Float, {m, 9});
  EXPECT_EQ(SplitCall().run(x_wide, w, s, nullptr, {4, 16}, {&a, &b}), Error::InvalidArgument)
      << "K = 9 needs strips of 160";
}

TEST(LinearDynamicInt8Packed, BadArguments) {
  TestTensor x(ScalarType::Float, {2, 8}), w(ScalarType::Char, {1, strip_width(8)});
  TestTensor s(ScalarType::Float, {3}), out(ScalarType::Float, {2, 3});
  auto run = [&](TestTensor& ww, TestTensor& ss) {
    return Args().t(x).t(ww).t(ss).none().t(out).run(native::linear_dynamic_int8_packed_out);
  };
  EXPECT_EQ(run(w, s), Error::Ok);
  TestTensor s_wide(ScalarType::Float, {17});  // needs 2 strips
  EXPECT_EQ(run(w, s_wide), Error::InvalidArgument);
  TestTensor w_unpacked(ScalarType::Char, {3, 8});
  EXPECT_EQ(run(w_unpacked, s), Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).t(w).t(s).none().t(out).run(native::linear_dynamic_int8_packed_out, false),
            Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace torchedge
