// Quantized (int8) XNNPACK delegate graphs, blob version 2: convert nodes,
// qs8 convolution / depthwise convolution with per-channel (qc8) filters and
// int32 biases, 1x1 convolution as a linear layer, add, max pooling, global
// average pooling, clamp; int8 tensors at the delegate boundary (bound
// directly and through the NCHW <-> NHWC staging). Results are checked
// against a scalar reference of the same integer arithmetic, within one
// quantization step (XNNPACK multiplies by a float reciprocal of the scale,
// so a value within float rounding of a .5 tie may round the other way).
// Malformed quantization parameters fail init with a message naming them.

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/xnnpack/test/delegate_harness.h"

namespace torchedge {
namespace {

using xnnpack::DataType;
using xnnpack::testing::Quant;

constexpr Error kBad = Error::DelegateInvalidCompatibility;
constexpr uint32_t kNo = xnnpack::kNoValue;

int8_t quantize(float x, float scale, int32_t zp) {
  const float q = std::nearbyint(x * (1.0f / scale)) + static_cast<float>(zp);
  return static_cast<int8_t>(std::min(127.0f, std::max(-128.0f, q)));
}

float dequantize(int8_t q, float scale, int32_t zp) {
  return static_cast<float>(q - zp) * scale;
}

std::vector<int8_t> random_int8(size_t n, uint32_t seed, int limit = 127) {
  std::vector<float> r = pseudo_random(n, seed);
  std::vector<int8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(std::lround(r[i] * limit));
  return out;
}

uint32_t fbits(float x) { return BlobBuilder::f(x); }

std::vector<uint32_t> conv_params(uint32_t pad, uint32_t k, uint32_t groups, uint32_t gic,
                                  uint32_t goc, float lo, float hi) {
  return {pad, pad, pad, pad, k, k, 1, 1, 1, 1, groups, gic, goc, fbits(lo), fbits(hi)};
}

// The quantized convolution of one NHWC output element, as XNNPACK's
// integer arithmetic defines it (fp32 requantization).
struct ConvCase {
  uint32_t n = 1, h = 5, w = 5, cin = 3, cout = 4, k = 3, pad = 1;
  float x_scale = 0.02f, out_scale = 0.05f;
  int32_t x_zp = 3, out_zp = -5;
  std::vector<float> w_scales;
  std::vector<int8_t> filter;  // OHWI
  std::vector<int32_t> bias;
  std::vector<float> input;  // NHWC float

  ConvCase() {
    w_scales = {0.01f, 0.02f, 0.005f, 0.015f};
    filter = random_int8(cout * k * k * cin, 3);
    bias = {100, -250, 0, 37};
    input = pseudo_random(n * h * w * cin, 4);
    for (float& v : input) v *= 2.0f;
  }
  std::vector<float> bias_scales() const {
    std::vector<float> s;
    for (float ws : w_scales) s.push_back(x_scale * ws);
    return s;
  }
  // Expected qint8 outputs (NHWC), relu fused when `relu`.
  std::vector<int8_t> expected(bool relu) const {
    std::vector<int8_t> out;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t o = 0; o < cout; ++o) {
          int32_t acc = bias[o];
          for (uint32_t ky = 0; ky < k; ++ky)
            for (uint32_t kx = 0; kx < k; ++kx)
              for (uint32_t c = 0; c < cin; ++c) {
                const int iy = static_cast<int>(y + ky) - static_cast<int>(pad);
                const int ix = static_cast<int>(x + kx) - static_cast<int>(pad);
                if (iy < 0 || ix < 0 || iy >= static_cast<int>(h) || ix >= static_cast<int>(w))
                  continue;
                const int8_t q = quantize(input[(iy * w + ix) * cin + c], x_scale, x_zp);
                acc += (q - x_zp) * filter[((o * k + ky) * k + kx) * cin + c];
              }
          float real = static_cast<float>(acc) * x_scale * w_scales[o];
          if (relu) real = std::max(real, 0.0f);
          out.push_back(quantize(real, out_scale, out_zp));
        }
    return out;
  }
};

// float NHWC input -> convert -> qc8 conv [relu] -> convert -> float output.
BlobBuilder conv_blob(const ConvCase& c, bool relu) {
  BlobBuilder b;
  const uint32_t in = b.input({c.n, c.h, c.w, c.cin});
  const uint32_t out = b.output({c.n, c.h, c.w, c.cout});
  const uint32_t xq = b.internal({c.n, c.h, c.w, c.cin}, Quant::q8(c.x_scale, c.x_zp));
  const uint32_t yq = b.internal({c.n, c.h, c.w, c.cout}, Quant::q8(c.out_scale, c.out_zp));
  const uint32_t filter = b.constant_qc8({c.cout, c.k, c.k, c.cin}, 0, c.w_scales, c.filter);
  const uint32_t bias = b.constant_qc32(c.bias_scales(), c.bias);
  b.node(OpCode::Convert, {in, xq});
  b.node(OpCode::Conv2d, {xq, filter, bias, yq},
         conv_params(c.pad, c.k, 1, c.cin, c.cout, relu ? 0.0f : -kInf, kInf));
  b.node(OpCode::Convert, {yq, out});
  return b;
}

void expect_within_one_step(const std::vector<float>& got, const std::vector<int8_t>& expected,
                            float scale, int32_t zp) {
  ASSERT_EQ(got.size(), expected.size());
  size_t off_by_one = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float want = dequantize(expected[i], scale, zp);
    EXPECT_LE(std::fabs(got[i] - want), scale * 1.001f) << "element " << i;
    off_by_one += got[i] != want;
  }
  EXPECT_LE(off_by_one, got.size() / 20 + 1);  // ties are rare
}

TEST(XnnpackQuantized, ConvolutionWithPerChannelWeightsMatchesIntegerReference) {
  const ConvCase c;
  for (bool relu : {false, true}) {
    LoadedDelegate delegate(conv_blob(c, relu).build());
    ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
    TestTensor x(ScalarType::Float, {1, 5, 5, 3});
    x.fill(c.input);
    TestTensor y(ScalarType::Float, {1, 5, 5, 4});
    ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok) << last_error_message();
    expect_within_one_step(y.values<float>(), c.expected(relu), c.out_scale, c.out_zp);
    if (relu) {
      for (float v : y.values<float>()) EXPECT_GE(v, 0.0f);
    }
  }
}

TEST(XnnpackQuantized, Int8TensorsAtTheBoundaryIncludingNchwStaging) {
  // int8 NCHW tensor in -> depthwise qc8 conv -> int8 NCHW tensor out.
  const uint32_t C = 3, H = 4, W = 4;
  const float s = 0.03f, so = 0.06f;
  const int32_t zp = -2, zpo = 4;
  const std::vector<float> w_scales = {0.02f, 0.01f, 0.04f};
  const std::vector<int8_t> filter = random_int8(9 * C, 7);  // [1, 3, 3, C]
  BlobBuilder b;
  const uint32_t in = b.input({1, H, W, C}, Boundary::NchwToNhwc, Quant::q8(s, zp));
  const uint32_t out = b.output({1, H, W, C}, Boundary::NchwToNhwc, Quant::q8(so, zpo));
  const uint32_t f = b.constant_qc8({1, 3, 3, C}, 3, w_scales, filter);
  b.node(OpCode::DepthwiseConv2d, {in, f, kNo, out},
         {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, C, fbits(-kInf), fbits(kInf)});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  const std::vector<int8_t> xq = random_int8(C * H * W, 8, 100);
  TestTensor x(ScalarType::Char, {1, static_cast<int32_t>(C), 4, 4});
  x.fill(xq);
  TestTensor y(ScalarType::Char, {1, static_cast<int32_t>(C), 4, 4});
  ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok) << last_error_message();
  const std::vector<int8_t> got = y.values<int8_t>();
  for (uint32_t ch = 0; ch < C; ++ch)
    for (uint32_t yy = 0; yy < H; ++yy)
      for (uint32_t xx = 0; xx < W; ++xx) {
        int32_t acc = 0;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = static_cast<int>(yy) + ky - 1, ix = static_cast<int>(xx) + kx - 1;
            if (iy < 0 || ix < 0 || iy >= static_cast<int>(H) || ix >= static_cast<int>(W))
              continue;
            acc += (xq[(ch * H + iy) * W + ix] - zp) * filter[(ky * 3 + kx) * C + ch];
          }
        const int8_t want = quantize(static_cast<float>(acc) * s * w_scales[ch], so, zpo);
        EXPECT_LE(std::abs(got[(ch * H + yy) * W + xx] - want), 1) << ch << " " << yy << " " << xx;
      }
  // A float tensor where the blob says int8 is refused.
  TestTensor wrong(ScalarType::Float, {1, static_cast<int32_t>(C), 4, 4});
  EXPECT_EQ(delegate.execute({&wrong, &y}), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("int8"), std::string::npos);
}

TEST(XnnpackQuantized, LinearAsOneByOneConvolutionAddPoolingAndClamp) {
  // x [1, 2, 2, 4] f32 -> q -> maxpool 2x2 (same params) -> add(itself) ->
  // global avg pool -> reshape [1, 4] -> [1, 1, 1, 4] -> 1x1 conv (linear
  // 4 -> 3) -> clamp [0, 0.5] -> reshape [1, 3] -> dequantize.
  const float s = 0.02f, s_add = 0.04f, s_gap = 0.04f, s_fc = 0.01f;
  const std::vector<float> w_scales = {0.01f, 0.02f, 0.03f};
  const std::vector<int8_t> w = random_int8(12, 11);
  const std::vector<int32_t> bias = {10, -20, 30};
  std::vector<float> bias_scales;
  for (float ws : w_scales) bias_scales.push_back(s_gap * ws);
  BlobBuilder b;
  const uint32_t in = b.input({1, 2, 2, 4});
  const uint32_t out = b.output({1, 3});
  const uint32_t xq = b.internal({1, 2, 2, 4}, Quant::q8(s, 1));
  const uint32_t pooled = b.internal({1, 1, 1, 4}, Quant::q8(s, 1));
  const uint32_t doubled = b.internal({1, 1, 1, 4}, Quant::q8(s_add, 0));
  const uint32_t gap = b.internal({1, 1, 1, 4}, Quant::q8(s_gap, 0));
  const uint32_t flat = b.internal({1, 4}, Quant::q8(s_gap, 0));
  const uint32_t rows = b.internal({1, 1, 1, 4}, Quant::q8(s_gap, 0));
  const uint32_t fc = b.internal({1, 1, 1, 3}, Quant::q8(s_fc, -3));
  const uint32_t clamped = b.internal({1, 1, 1, 3}, Quant::q8(s_fc, -3));
  const uint32_t fc_flat = b.internal({1, 3}, Quant::q8(s_fc, -3));
  const uint32_t filter = b.constant_qc8({3, 1, 1, 4}, 0, w_scales, w);
  const uint32_t bias_id = b.constant_qc32(bias_scales, bias);
  b.node(OpCode::Convert, {in, xq});
  b.node(OpCode::MaxPool2d, {xq, pooled},
         {0, 0, 0, 0, 2, 2, 2, 2, 1, 1, fbits(-kInf), fbits(kInf)});
  b.node(OpCode::Add, {pooled, pooled, doubled}, {fbits(-kInf), fbits(kInf)});
  b.node(OpCode::GlobalAvgPool2d, {doubled, gap}, {fbits(-kInf), fbits(kInf)});
  b.node(OpCode::Reshape, {gap, flat});
  b.node(OpCode::Reshape, {flat, rows});
  b.node(OpCode::Conv2d, {rows, filter, bias_id, fc}, conv_params(0, 1, 1, 4, 3, -kInf, kInf));
  b.node(OpCode::Clamp, {fc, clamped}, {fbits(0.0f), fbits(0.5f)});
  b.node(OpCode::Reshape, {clamped, fc_flat});
  b.node(OpCode::Convert, {fc_flat, out});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  const std::vector<float> input = pseudo_random(16, 12);
  TestTensor x(ScalarType::Float, {1, 2, 2, 4});
  x.fill(input);
  TestTensor y(ScalarType::Float, {1, 3});
  ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok) << last_error_message();
  // Reference in the integer domain (each step may be one step off).
  std::vector<int8_t> v(4);
  for (int c = 0; c < 4; ++c) {
    int8_t m = -128;
    for (int p = 0; p < 4; ++p) m = std::max(m, quantize(input[p * 4 + c], s, 1));
    v[c] = quantize(2.0f * dequantize(m, s, 1), s_add, 0);  // GAP of one pixel keeps it
  }
  const std::vector<float> got = y.values<float>();
  for (int o = 0; o < 3; ++o) {
    int32_t acc = bias[o];
    for (int c = 0; c < 4; ++c) acc += v[c] * w[o * 4 + c];
    const float real = std::min(0.5f, std::max(0.0f, acc * s_gap * w_scales[o]));
    const float want = dequantize(quantize(real, s_fc, -3), s_fc, -3);
    // One step from each requantizing node on the way (add, conv).
    EXPECT_NEAR(got[o], want, 2.01f * s_fc + 1e-6f) << o;
  }
}

// ---- malformed quantization parameters --------------------------------------------

// Value record offsets in a blob whose first value is a QInt8 input:
// kind @32, dtype @36, scale @40, zero point @44.
std::vector<uint8_t> q8_passthrough_blob() {
  BlobBuilder b;
  const uint32_t in = b.input({1, 2, 2, 3}, Boundary::Direct, Quant::q8(0.1f, 5));
  const uint32_t out = b.output({1, 2, 2, 3});
  b.node(OpCode::Convert, {in, out});
  return b.build();
}

void put_u32(std::vector<uint8_t>& blob, size_t at, uint32_t v) { memcpy(&blob[at], &v, 4); }

Error init_error(const std::vector<uint8_t>& blob) { return LoadedDelegate(blob).init_error(); }

void expect_rejected(const std::vector<uint8_t>& blob, const char* words) {
  EXPECT_EQ(init_error(blob), kBad) << words;
  EXPECT_NE(std::string(last_error_message()).find(words), std::string::npos)
      << last_error_message();
}

TEST(XnnpackQuantizedMalformed, BadScalesAndZeroPointsAreRejected) {
  const std::vector<uint8_t> good = q8_passthrough_blob();
  ASSERT_EQ(init_error(good), Error::Ok) << last_error_message();
  for (float bad : {0.0f, -0.5f, NAN, INFINITY, 1e-40f /* subnormal */}) {
    std::vector<uint8_t> blob = good;
    put_u32(blob, 40, fbits(bad));
    expect_rejected(blob, "scale");
  }
  for (int32_t zp : {128, -129, 100000}) {
    std::vector<uint8_t> blob = good;
    put_u32(blob, 44, static_cast<uint32_t>(zp));
    expect_rejected(blob, "zero point");
  }
  std::vector<uint8_t> blob = good;
  put_u32(blob, 36, 9);  // datatype
  expect_rejected(blob, "datatype");
}

TEST(XnnpackQuantizedMalformed, EveryTruncationOfAQuantizedBlobFails) {
  const std::vector<uint8_t> blob = conv_blob(ConvCase(), true).build();
  ASSERT_EQ(init_error(blob), Error::Ok) << last_error_message();
  for (size_t n = 0; n < blob.size(); ++n) {
    const std::vector<uint8_t> prefix(blob.begin(), blob.begin() + n);
    EXPECT_EQ(init_error(prefix), kBad) << "prefix of " << n << " bytes";
  }
}

TEST(XnnpackQuantizedMalformed, CorruptedHeaderBytesNeverCrash) {
  const ConvCase c;
  const std::vector<uint8_t> blob = conv_blob(c, true).build();
  uint64_t data_offset = 0;
  memcpy(&data_offset, blob.data() + 24, 8);
  for (size_t i = 0; i < data_offset; ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> bad = blob;
      bad[i] ^= flip;
      LoadedDelegate delegate(bad);
      if (delegate.init_error() != Error::Ok) continue;
      // Accepted (e.g. a changed scale): running it must be safe too.
      TestTensor x(ScalarType::Float, {1, 5, 5, 3});
      x.fill(c.input);
      TestTensor y(ScalarType::Float, {1, 5, 5, 4});
      const Error e = delegate.execute({&x, &y});
      EXPECT_TRUE(e == Error::Ok || e == Error::InvalidArgument) << "byte " << i;
    }
  }
}

TEST(XnnpackQuantizedMalformed, ChannelwiseParametersAreChecked) {
  const ConvCase c;
  {  // channel dim outside the rank
    BlobBuilder b;
    b.input({4});
    b.output({4});
    b.constant_qc8({4}, 1, {0.1f, 0.1f, 0.1f, 0.1f}, random_int8(4, 1));
    expect_rejected(b.build(), "channel dim");
  }
  {  // a per-channel scale that is not positive
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({4});
    b.constant_qc8({4}, 0, {0.1f, 0.0f, 0.1f, 0.1f}, random_int8(4, 1));
    b.node(OpCode::Negate, {in, out});
    expect_rejected(b.build(), "channel 1 scale");
  }
  {  // filter quantized along the wrong dim (channel dim 3 for a regular conv)
    BlobBuilder b;
    const uint32_t in = b.input({1, 5, 5, 3}, Boundary::Direct, Quant::q8(c.x_scale, c.x_zp));
    const uint32_t out = b.output({1, 5, 5, 4}, Boundary::Direct, Quant::q8(c.out_scale, 0));
    const uint32_t f = b.constant_qc8({4, 3, 3, 3}, 3, {0.01f, 0.01f, 0.01f}, c.filter);
    b.node(OpCode::Conv2d, {in, f, kNo, out}, conv_params(1, 3, 1, 3, 4, -kInf, kInf));
    expect_rejected(b.build(), "output channel dim");
  }
  {  // bias scale that is not input scale * filter scale
    BlobBuilder b;
    const uint32_t in = b.input({1, 5, 5, 3}, Boundary::Direct, Quant::q8(c.x_scale, c.x_zp));
    const uint32_t out = b.output({1, 5, 5, 4}, Boundary::Direct, Quant::q8(c.out_scale, 0));
    const uint32_t f = b.constant_qc8({4, 3, 3, 3}, 0, c.w_scales, c.filter);
    const uint32_t bias = b.constant_qc32({1.0f, 1.0f, 1.0f, 1.0f}, c.bias);
    b.node(OpCode::Conv2d, {in, f, bias, out}, conv_params(1, 3, 1, 3, 4, -kInf, kInf));
    expect_rejected(b.build(), "bias scale");
  }
  {  // a float bias under a quantized convolution
    BlobBuilder b;
    const uint32_t in = b.input({1, 5, 5, 3}, Boundary::Direct, Quant::q8(c.x_scale, c.x_zp));
    const uint32_t out = b.output({1, 5, 5, 4}, Boundary::Direct, Quant::q8(c.out_scale, 0));
    const uint32_t f = b.constant_qc8({4, 3, 3, 3}, 0, c.w_scales, c.filter);
    const uint32_t bias = b.constant({4}, {0.0f, 0.0f, 0.0f, 0.0f});
    b.node(OpCode::Conv2d, {in, f, bias, out}, conv_params(1, 3, 1, 3, 4, -kInf, kInf));
    expect_rejected(b.build(), "qcint32");
  }
  {  // requantization scale XNNPACK cannot represent (>= 256)
    BlobBuilder b;
    const uint32_t in = b.input({1, 5, 5, 3}, Boundary::Direct, Quant::q8(1.0f, 0));
    const uint32_t out = b.output({1, 5, 5, 4}, Boundary::Direct, Quant::q8(1e-5f, 0));
    const uint32_t f = b.constant_qc8({4, 3, 3, 3}, 0, c.w_scales, c.filter);
    b.node(OpCode::Conv2d, {in, f, kNo, out}, conv_params(1, 3, 1, 3, 4, -kInf, kInf));
    expect_rejected(b.build(), "requantization");
  }
  {  // per-channel quantized value that is not a constant
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({4});
    b.node(OpCode::Negate, {in, out});
    std::vector<uint8_t> blob = b.build();
    put_u32(blob, 36, 2);  // the input becomes qcint8: channel dim then scales follow its dims
    EXPECT_EQ(init_error(blob), kBad);
  }
}

TEST(XnnpackQuantizedMalformed, DatatypeCombinationsAreChecked) {
  {  // convert float -> float
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({4});
    b.node(OpCode::Convert, {in, out});
    expect_rejected(b.build(), "convert");
  }
  {  // max pooling that would reinterpret integers under new parameters
    BlobBuilder b;
    const uint32_t in = b.input({1, 2, 2, 1}, Boundary::Direct, Quant::q8(0.1f, 0));
    const uint32_t out = b.output({1, 1, 1, 1}, Boundary::Direct, Quant::q8(0.2f, 0));
    b.node(OpCode::MaxPool2d, {in, out},
           {0, 0, 0, 0, 2, 2, 2, 2, 1, 1, fbits(-kInf), fbits(kInf)});
    expect_rejected(b.build(), "same scale and zero point");
  }
  {  // a float-only operator on int8 values
    BlobBuilder b;
    const uint32_t in = b.input({4}, Boundary::Direct, Quant::q8(0.1f, 0));
    const uint32_t out = b.output({4}, Boundary::Direct, Quant::q8(0.1f, 0));
    b.node(OpCode::Negate, {in, out});
    expect_rejected(b.build(), "float32 values only");
  }
  {  // add with an output scale far from the inputs'
    BlobBuilder b;
    const uint32_t in = b.input({4}, Boundary::Direct, Quant::q8(1.0f, 0));
    const uint32_t out = b.output({4}, Boundary::Direct, Quant::q8(1e-3f, 0));
    b.node(OpCode::Add, {in, in, out}, {fbits(-kInf), fbits(kInf)});
    expect_rejected(b.build(), "ratio");
  }
  {  // a float filter under a quantized convolution
    BlobBuilder b;
    const uint32_t in = b.input({1, 2, 2, 1}, Boundary::Direct, Quant::q8(0.1f, 0));
    const uint32_t out = b.output({1, 2, 2, 1}, Boundary::Direct, Quant::q8(0.1f, 0));
    const uint32_t f = b.constant({1, 1, 1, 1}, {1.0f});
    b.node(OpCode::Conv2d, {in, f, kNo, out}, conv_params(0, 1, 1, 1, 1, -kInf, kInf));
    expect_rejected(b.build(), "qcint8");
  }
}

TEST(XnnpackQuantized, VersionOneBlobsStillLoad) {
  // A version-1 record has no datatype: input [4], output [4], negate.
  std::vector<uint32_t> words = {0, 1, 2, 1, 1, 1, 0, 0,  // header (magic, offset patched)
                                 1, 1, 4, 0, 1, 4,        // input: kind, rank, dims, boundary, tensor dims
                                 2, 1, 4, 0, 1, 4,        // output
                                 15, 2, 0, 0, 1};         // negate(0) -> 1
  while (words.size() % 4 != 0) words.push_back(0);
  std::vector<uint8_t> blob(words.size() * 4);
  memcpy(blob.data(), words.data(), blob.size());
  memcpy(blob.data(), "TEX1", 4);
  const uint64_t offset = blob.size();
  memcpy(blob.data() + 24, &offset, 8);
  LoadedDelegate delegate(blob);
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  TestTensor x(ScalarType::Float, {4});
  x.fill(std::vector<float>{1, -2, 3, -4});
  TestTensor y(ScalarType::Float, {4});
  ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok);
  EXPECT_EQ(y.values<float>(), (std::vector<float>{-1, 2, -3, 4}));
}

}  // namespace
}  // namespace torchedge
