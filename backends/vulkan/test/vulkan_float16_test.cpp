// float16 on the Vulkan delegate (lavapipe unless a driver was chosen):
// float16 blobs run the shaders' float16 variants and accumulate in
// float32; kFlagFloat16Compute runs a float32 blob in float16 with float32
// at the boundary; a device without (or with masked) float16 features
// fails float16 blobs naming the feature and runs kFlagFloat16Compute in
// float32. Skipped, with the reason, where the device has no float16.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/vulkan/test/blob_builder.h"
#include "backends/vulkan/test/device_fixture.h"
#include "backends/vulkan/vulkan_context.h"

namespace torchedge {
namespace vulkan {
namespace {

using testing::BlobBuilder;
using testing::binary_params;
using testing::HalfTensor;
using testing::HostTensor;

constexpr int M = 4, K = 256, N = 8;

float round_half(float v) { return static_cast<float>(Half(v)); }

std::vector<float> wave(int n, float step, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = scale * std::sin(step * i + 0.25f);
  return v;
}

// out[M, N] = x[M, K] @ w[N, K]^T: a K = 256 reduction, where float16
// accumulation would be off by many float16 ulps.
std::vector<uint8_t> matmul_blob(uint32_t dtype, uint32_t flags, const std::vector<float>& w) {
  BlobBuilder b;
  b.set_dtype(dtype);
  b.set_flags(flags);
  const uint32_t in = b.input({M, K});
  const uint32_t out = b.output({M, N});
  const uint32_t wt = b.constant({N, K}, w);
  b.op(Shader::Matmul, {out, in, wt, kNoTensor},
       {M, N, K, 1, 1, 0, 0, K, 1, 0, 0, 1, K, 0, 0, 0, BlobBuilder::f(1.0f), 0, 0, 0});
  return b.build();
}

// The reference in double from the given (already rounded) operands.
double dot(const std::vector<float>& x, const std::vector<float>& w, int m, int n) {
  double acc = 0;
  for (int k = 0; k < K; ++k) acc += double(x[m * K + k]) * double(w[n * K + k]);
  return acc;
}

// One float16 rounding of a float32-accumulated value: within one ulp.
double half_ulp_bound(double ref) { return std::max(std::fabs(ref), 6.1e-5) * std::ldexp(1.0, -10); }

class VulkanFloat16 : public testing::VulkanRuntime {
 protected:
  void SetUp() override {
    testing::VulkanRuntime::SetUp();
    if (IsSkipped()) return;
    Result<VulkanContext*> ctx = VulkanContext::get();
    ASSERT_TRUE(ctx.ok());
    context_ = ctx.get();
    VulkanContext::set_masked_features(0);
    if ((context_->float16_features() & kFloat16Features) != kFloat16Features) {
      GTEST_SKIP() << "device " << context_->device_name()
                   << " lacks shaderFloat16 or storageBuffer16BitAccess";
    }
  }
  void TearDown() override { VulkanContext::set_masked_features(0); }

  VulkanContext* context_ = nullptr;
};

TEST_F(VulkanFloat16, DeviceFeaturesAreRecorded) {
  // lavapipe (Mesa 22.3) reports both; SetUp skipped any device without.
  EXPECT_EQ(context_->usable_float16_features(), kFloat16Features);
  VulkanContext::set_masked_features(kShaderFloat16);
  EXPECT_EQ(context_->usable_float16_features(), uint32_t{kStorageBuffer16BitAccess});
  EXPECT_EQ(context_->float16_features(), kFloat16Features);
}

TEST_F(VulkanFloat16, Float16MatmulAccumulatesInFloat32) {
  const std::vector<float> w = wave(N * K, 0.37f, 1.0f);
  Result<DelegateHandle*> h = init(matmul_blob(kDtypeFloat16, 0, w));
  ASSERT_TRUE(h.ok()) << last_error_message();
  HalfTensor x({M, K}, wave(M * K, 0.11f, 2.0f)), y({M, N}, std::vector<float>(M * N, -1.0f));
  EValue* args[] = {&x.value, &y.value};
  ASSERT_EQ(backend_->execute(h.get(), {args, 2}), Error::Ok) << last_error_message();
  std::vector<float> xs(x.data.begin(), x.data.end()), ws(w.size());
  for (size_t i = 0; i < w.size(); ++i) ws[i] = round_half(w[i]);
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      const double ref = dot(xs, ws, m, n);
      EXPECT_NEAR(static_cast<float>(y.data[m * N + n]), ref, half_ulp_bound(ref)) << m << "," << n;
    }
  }
  // A float32 argument where the blob says float16 is an argument error.
  HostTensor wrong({M, K}, std::vector<float>(M * K));
  EValue* bad[] = {&wrong.value, &y.value};
  EXPECT_EQ(backend_->execute(h.get(), {bad, 2}), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("float16"), std::string::npos);
  backend_->destroy(h.get());
}

TEST_F(VulkanFloat16, Float16ElementwiseRoundsLikeEager) {
  // add with alpha, then gelu: eager float16 computes each in float32 and
  // rounds the result to float16, as the float16 variants do.
  const std::vector<float> a = wave(64, 0.5f, 3.0f), c = wave(64, 0.9f, 2.0f);
  BlobBuilder b;
  b.set_dtype(kDtypeFloat16);
  const uint32_t in = b.input({64});
  const uint32_t out = b.output({64});
  const uint32_t ct = b.constant({64}, c);
  const uint32_t t = b.internal({64});
  b.op(Shader::Binary, {t, in, ct, kNoTensor}, binary_params(0, {64}, 0.5f));
  b.op(Shader::Unary, {out, t}, {3, 64, 0, 0});
  Result<DelegateHandle*> h = init(b.build());
  ASSERT_TRUE(h.ok()) << last_error_message();
  HalfTensor x({64}, a), y({64}, std::vector<float>(64));
  EValue* args[] = {&x.value, &y.value};
  ASSERT_EQ(backend_->execute(h.get(), {args, 2}), Error::Ok) << last_error_message();
  for (int i = 0; i < 64; ++i) {
    const float sum = round_half(round_half(a[i]) + 0.5f * round_half(c[i]));
    const double ref = 0.5 * sum * (1.0 + std::erf(sum / std::sqrt(2.0)));
    EXPECT_NEAR(static_cast<float>(y.data[i]), ref, half_ulp_bound(ref) + 2e-7) << i;
  }
  backend_->destroy(h.get());
}

TEST_F(VulkanFloat16, MaskedFeaturesFailFloat16BlobsByName) {
  const std::vector<uint8_t> blob = matmul_blob(kDtypeFloat16, 0, wave(N * K, 0.37f, 1.0f));
  struct Case {
    uint32_t mask;
    const char* names;
  };
  for (const Case& c : {Case{kShaderFloat16, "lacks shaderFloat16 (masked)"},
                        Case{kStorageBuffer16BitAccess, "lacks storageBuffer16BitAccess (masked)"},
                        Case{kFloat16Features, "lacks shaderFloat16 and storageBuffer16BitAccess"}}) {
    VulkanContext::set_masked_features(c.mask);
    Result<DelegateHandle*> h = init(blob);
    ASSERT_FALSE(h.ok()) << c.mask;
    EXPECT_EQ(h.error(), Error::DelegateInvalidCompatibility);
    const std::string message = last_error_message();
    EXPECT_NE(message.find(c.names), std::string::npos) << message;
    EXPECT_NE(message.find("float16 tensors"), std::string::npos) << message;
  }
}

TEST_F(VulkanFloat16, Float16ComputeFlagAndItsFloat32Fallback) {
  const std::vector<float> w = wave(N * K, 0.37f, 1.0f), x = wave(M * K, 0.11f, 2.0f);
  std::vector<float> xs(x.size()), ws(w.size());
  for (size_t i = 0; i < x.size(); ++i) xs[i] = round_half(x[i]);
  for (size_t i = 0; i < w.size(); ++i) ws[i] = round_half(w[i]);
  const std::vector<uint8_t> blob = matmul_blob(kDtypeFloat32, kFlagFloat16Compute, w);
  std::vector<float> results[2];
  for (bool masked : {false, true}) {
    VulkanContext::set_masked_features(masked ? uint32_t{kShaderFloat16} : 0u);
    Result<DelegateHandle*> h = init(blob);
    ASSERT_TRUE(h.ok()) << last_error_message();
    HostTensor xt({M, K}, x), yt({M, N}, std::vector<float>(M * N));  // float32 at the boundary
    EValue* args[] = {&xt.value, &yt.value};
    ASSERT_EQ(backend_->execute(h.get(), {args, 2}), Error::Ok) << last_error_message();
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        const float got = yt.data[m * N + n];
        if (masked) {  // float32 throughout
          EXPECT_NEAR(got, dot(x, w, m, n), 1e-4) << m << "," << n;
        } else {       // inputs and weights rounded to float16, float32 sums, one rounding
          const double ref = dot(xs, ws, m, n);
          EXPECT_NEAR(got, ref, half_ulp_bound(ref)) << m << "," << n;
          EXPECT_EQ(got, round_half(got));  // the output was float16 on the device
        }
      }
    }
    results[masked ? 1 : 0] = yt.data;
    backend_->destroy(h.get());
  }
  EXPECT_NE(results[0], results[1]);
}

}  // namespace
}  // namespace vulkan
}  // namespace torchedge
