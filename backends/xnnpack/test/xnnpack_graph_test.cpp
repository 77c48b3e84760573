// Whole small graphs through the XNNPACK backend, checked against the
// portable kernels on the same NCHW data: conv + relu + global average pool
// + fully connected, and depthwise conv + max pool + broadcast add, with
// NCHW<->NHWC conversion at the delegate's boundary.

#include "backends/xnnpack/test/delegate_harness.h"

namespace torchedge {
namespace native {
Error relu_out(KernelContext&, Span<EValue*>);
}  // namespace native

namespace {

constexpr float kTolerance = 1e-5f;

TEST(XnnpackGraph, ConvReluPoolLinearMatchesPortable) {
  const uint32_t n = 2, c = 3, h = 6, w = 7, oc = 4, fc_out = 5;
  const std::vector<float> x = pseudo_random(n * c * h * w, 1);
  const std::vector<float> conv_w = pseudo_random(oc * c * 3 * 3, 2);
  const std::vector<float> conv_b = pseudo_random(oc, 3);
  const std::vector<float> fc_w = pseudo_random(fc_out * oc, 4);  // [out, in]
  const std::vector<float> fc_b = pseudo_random(fc_out, 5);

  BlobBuilder b;
  const uint32_t in = b.input({n, h, w, c}, Boundary::NchwToNhwc);
  const uint32_t logits = b.output({n, fc_out});
  const uint32_t act = b.output({n, h, w, oc}, Boundary::NchwToNhwc);
  const uint32_t filter = b.constant({oc, 3, 3, c}, oihw_to_ohwi(conv_w, oc, c, 3, 3));
  const uint32_t bias = b.constant({oc}, conv_b);
  const uint32_t conv = b.internal({n, h, w, oc});
  const uint32_t pooled = b.internal({n, 1, 1, oc});
  const uint32_t flat = b.internal({n, oc});
  const uint32_t fc_filter = b.constant({fc_out, oc}, fc_w);
  const uint32_t fc_bias = b.constant({fc_out}, fc_b);
  b.node(OpCode::Conv2d, {in, filter, bias, conv},
         {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, c, oc, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  b.node(OpCode::Clamp, {conv, act}, {BlobBuilder::f(0.0f), BlobBuilder::f(kInf)});
  b.node(OpCode::GlobalAvgPool2d, {act, pooled}, {BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  b.node(OpCode::Reshape, {pooled, flat});
  b.node(OpCode::FullyConnected, {flat, fc_filter, fc_bias, logits},
         {BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();

  TestTensor tx(ScalarType::Float, {int32_t(n), int32_t(c), int32_t(h), int32_t(w)});
  tx.fill(x);
  TestTensor t_logits(ScalarType::Float, {int32_t(n), int32_t(fc_out)});
  TestTensor t_act(ScalarType::Float, {int32_t(n), int32_t(oc), int32_t(h), int32_t(w)});
  ASSERT_EQ(delegate.execute({&tx, &t_logits, &t_act}), Error::Ok) << last_error_message();

  // The same network on the portable kernels.
  TestTensor rw(ScalarType::Float, {int32_t(oc), int32_t(c), 3, 3});
  rw.fill(conv_w);
  TestTensor rb(ScalarType::Float, {int32_t(oc)});
  rb.fill(conv_b);
  TestTensor r_conv(ScalarType::Float, {int32_t(n), int32_t(oc), int32_t(h), int32_t(w)});
  ASSERT_EQ(Args().t(tx).t(rw).t(rb).ints({1, 1}).ints({1, 1}).ints({1, 1}).b(false).ints({0, 0})
                .i(1).t(r_conv).run(native::convolution_out),
            Error::Ok);
  TestTensor r_act(ScalarType::Float, {int32_t(n), int32_t(oc), int32_t(h), int32_t(w)});
  ASSERT_EQ(Args().t(r_conv).t(r_act).run(native::relu_out), Error::Ok);
  TestTensor r_mean(ScalarType::Float, {int32_t(n), int32_t(oc)});
  ASSERT_EQ(Args().t(r_act).ints({2, 3}).b(false).none().t(r_mean).run(native::mean_out),
            Error::Ok);
  std::vector<float> fc_w_t(fc_w.size());  // addmm takes [in, out]
  for (uint32_t o = 0; o < fc_out; ++o)
    for (uint32_t i = 0; i < oc; ++i) fc_w_t[i * fc_out + o] = fc_w[o * oc + i];
  TestTensor r_fw(ScalarType::Float, {int32_t(oc), int32_t(fc_out)});
  r_fw.fill(fc_w_t);
  TestTensor r_fb(ScalarType::Float, {int32_t(fc_out)});
  r_fb.fill(fc_b);
  TestTensor r_logits(ScalarType::Float, {int32_t(n), int32_t(fc_out)});
  ASSERT_EQ(Args().t(r_fb).t(r_mean).t(r_fw).i(1).i(1).t(r_logits).run(native::addmm_out),
            Error::Ok);

  expect_near_all(t_act.values<float>(), r_act.values<float>(), kTolerance);
  expect_near_all(t_logits.values<float>(), r_logits.values<float>(), kTolerance);

  // Same tensors again: the runtime is not set up twice, results identical.
  const std::vector<float> first = t_logits.values<float>();
  ASSERT_EQ(delegate.execute({&tx, &t_logits, &t_act}), Error::Ok);
  EXPECT_EQ(t_logits.values<float>(), first);
}

TEST(XnnpackGraph, DepthwiseMaxPoolBroadcastAddMatchesPortable) {
  const uint32_t n = 1, c = 4, mult = 2, h = 9, w = 8, cm = c * mult;
  const uint32_t oh = 5, ow = 4;    // 3x3 depthwise, stride 2, pad 1
  const uint32_t ph = 2, pw = 2;    // then 2x2 max pool, stride 2
  const std::vector<float> x = pseudo_random(n * c * h * w, 11);
  const std::vector<float> dw = pseudo_random(cm * 9, 12);
  const std::vector<float> dw_b = pseudo_random(cm, 13);
  const std::vector<float> shift = pseudo_random(cm, 14);

  BlobBuilder b;
  const uint32_t in = b.input({n, h, w, c}, Boundary::NchwToNhwc);
  const uint32_t out = b.output({n, ph, pw, cm}, Boundary::NchwToNhwc);
  const uint32_t filter = b.constant({1, 3, 3, cm}, depthwise_to_hwc(dw, cm, 3, 3));
  const uint32_t bias = b.constant({cm}, dw_b);
  const uint32_t shift_v = b.constant({cm}, shift);  // broadcasts along NHWC's last dim
  const uint32_t conv = b.internal({n, oh, ow, cm});
  const uint32_t pooled = b.internal({n, ph, pw, cm});
  b.node(OpCode::DepthwiseConv2d, {in, filter, bias, conv},
         {1, 1, 1, 1, 3, 3, 2, 2, 1, 1, mult, c, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  b.node(OpCode::MaxPool2d, {conv, pooled},
         {0, 0, 0, 0, 2, 2, 2, 2, 1, 1, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  b.node(OpCode::Add, {pooled, shift_v, out}, {BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();

  TestTensor tx(ScalarType::Float, {int32_t(n), int32_t(c), int32_t(h), int32_t(w)});
  tx.fill(x);
  TestTensor t_out(ScalarType::Float, {int32_t(n), int32_t(cm), int32_t(ph), int32_t(pw)});
  ASSERT_EQ(delegate.execute({&tx, &t_out}), Error::Ok) << last_error_message();

  TestTensor rw(ScalarType::Float, {int32_t(cm), 1, 3, 3});
  rw.fill(dw);
  TestTensor rb(ScalarType::Float, {int32_t(cm)});
  rb.fill(dw_b);
  TestTensor r_conv(ScalarType::Float, {int32_t(n), int32_t(cm), int32_t(oh), int32_t(ow)});
  ASSERT_EQ(Args().t(tx).t(rw).t(rb).ints({2, 2}).ints({1, 1}).ints({1, 1}).b(false).ints({0, 0})
                .i(c).t(r_conv).run(native::convolution_out),
            Error::Ok);
  TestTensor r_pool(ScalarType::Float, {int32_t(n), int32_t(cm), int32_t(ph), int32_t(pw)});
  TestTensor r_idx(ScalarType::Long, {int32_t(n), int32_t(cm), int32_t(ph), int32_t(pw)});
  ASSERT_EQ(Args().t(r_conv).ints({2, 2}).ints({2, 2}).ints({0, 0}).ints({1, 1}).b(false)
                .t(r_pool).t(r_idx).run(native::max_pool2d_with_indices_out),
            Error::Ok);
  std::vector<float> want = r_pool.values<float>();
  for (size_t i = 0; i < want.size(); ++i) want[i] += shift[(i / (ph * pw)) % cm];
  expect_near_all(t_out.values<float>(), want, kTolerance);
}

TEST(XnnpackGraph, ChannelsLastTensorIsBoundWithoutConversion) {
  // An NHWC value whose tensor already has dim order {0, 2, 3, 1}.
  BlobBuilder b;
  const uint32_t in = b.input({1, 2, 2, 3}, Boundary::NchwToNhwc);
  const uint32_t out = b.output({1, 2, 2, 3}, Boundary::NchwToNhwc);
  b.node(OpCode::Clamp, {in, out}, {BlobBuilder::f(-0.5f), BlobBuilder::f(0.5f)});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  const std::vector<float> x = pseudo_random(12, 21);
  TestTensor tx(ScalarType::Float, {1, 3, 2, 2}, {0, 2, 3, 1});
  tx.fill(x);
  TestTensor t_out(ScalarType::Float, {1, 3, 2, 2});  // contiguous: converted back
  ASSERT_EQ(delegate.execute({&tx, &t_out}), Error::Ok) << last_error_message();
  const std::vector<float> got = t_out.values<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_FLOAT_EQ(got[i], std::fmin(0.5f, std::fmax(-0.5f, x[i]))) << i;
  }
}

}  // namespace
}  // namespace torchedge
