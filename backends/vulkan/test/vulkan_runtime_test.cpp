// The Vulkan backend on a real device (Mesa's lavapipe unless the
// environment names another driver): results against a CPU reference, one
// recorded command buffer replayed, argument checks, per-op events with
// debug handles, lifetime. Skipped, with the reason, only where no Vulkan
// device exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/vulkan/test/blob_builder.h"
#include "backends/vulkan/test/device_fixture.h"
#include "backends/vulkan/vulkan_backend.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/event_tracer.h"

namespace torchedge {
namespace vulkan {
namespace {

using testing::BlobBuilder;
using testing::binary_params;
using testing::HostTensor;
using testing::VulkanRuntime;

TEST_F(VulkanRuntime, ElementwiseMatchesReferenceAndReplays) {
  BlobBuilder b;
  const uint32_t a = b.input({2, 3});
  const uint32_t out = b.output({2, 3});
  const uint32_t c = b.constant({2, 3}, {1, -2, 3, -4, 5, -6});
  const uint32_t t = b.internal({2, 3});
  b.op(Shader::Binary, {t, a, c, kNoTensor}, binary_params(0, {2, 3}, 0.5f), 7);
  b.op(Shader::Unary, {out, t}, {1, 6, 0, 0}, 8);
  Result<DelegateHandle*> h = init(b.build());
  ASSERT_TRUE(h.ok()) << last_error_message();
  const float cs[6] = {1, -2, 3, -4, 5, -6};
  for (int run = 0; run < 3; ++run) {
    std::vector<float> in(6);
    for (int i = 0; i < 6; ++i) in[i] = static_cast<float>(run * 2 - i);
    HostTensor x({2, 3}, in), y({2, 3}, std::vector<float>(6, -99.0f));
    EValue* args[] = {&x.value, &y.value};
    ASSERT_EQ(backend_->execute(h.get(), {args, 2}), Error::Ok) << last_error_message();
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y.data[i], std::max(0.0f, in[i] + 0.5f * cs[i])) << run;
  }
  backend_->destroy(h.get());
}

TEST_F(VulkanRuntime, MatmulWithBiasAndActivation) {
  // [3, 5] @ [5, 4] + bias[4], relu; B is read transposed from a [4, 5] weight.
  const int M = 3, K = 5, N = 4;
  std::vector<float> w(N * K), bias(N), x(M * K);
  for (int i = 0; i < N * K; ++i) w[i] = std::sin(0.3f * i);
  for (int i = 0; i < N; ++i) bias[i] = 0.1f * i - 0.2f;
  for (int i = 0; i < M * K; ++i) x[i] = std::cos(0.7f * i);
  BlobBuilder b;
  const uint32_t in = b.input({M, K});
  const uint32_t out = b.output({M, N});
  const uint32_t wt = b.constant({N, K}, w);
  const uint32_t bt = b.constant({N}, bias);
  b.op(Shader::Matmul, {out, in, wt, bt},
       {M, N, K, 1, 1, 0, 0, K, 1, 0, 0, 1, K, 0, 1, 1, BlobBuilder::f(1.0f), 1, 0, 0});
  Result<DelegateHandle*> h = init(b.build());
  ASSERT_TRUE(h.ok()) << last_error_message();
  HostTensor xt({M, K}, x), yt({M, N}, std::vector<float>(M * N));
  EValue* args[] = {&xt.value, &yt.value};
  ASSERT_EQ(backend_->execute(h.get(), {args, 2}), Error::Ok) << last_error_message();
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      float ref = bias[n];
      for (int k = 0; k < K; ++k) ref += x[m * K + k] * w[n * K + k];
      EXPECT_NEAR(yt.data[m * N + n], std::max(ref, 0.0f), 1e-5f);
    }
  }
  backend_->destroy(h.get());
}

TEST_F(VulkanRuntime, WrongArgumentsAreErrors) {
  BlobBuilder b;
  const uint32_t a = b.input({4});
  const uint32_t out = b.output({4});
  b.op(Shader::Unary, {out, a}, {10, 4, 0, 0});
  Result<DelegateHandle*> h = init(b.build());
  ASSERT_TRUE(h.ok()) << last_error_message();
  HostTensor x({4}, {1, 2, 3, 4}), wrong({5}, std::vector<float>(5)), y({4}, std::vector<float>(4));
  EValue* bad_shape[] = {&x.value, &wrong.value};
  EXPECT_EQ(backend_->execute(h.get(), {bad_shape, 2}), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("argument 1"), std::string::npos);
  EValue* too_few[] = {&x.value};
  EXPECT_EQ(backend_->execute(h.get(), {too_few, 1}), Error::InvalidArgument);
  EValue* good[] = {&x.value, &y.value};
  ASSERT_EQ(backend_->execute(h.get(), {good, 2}), Error::Ok);
  EXPECT_EQ(y.data[3], -4.0f);
  const int live = vulkan_live_delegates();
  backend_->destroy(h.get());
  EXPECT_EQ(vulkan_live_delegates(), live - 1);
  EXPECT_EQ(backend_->execute(h.get(), {good, 2}), Error::DelegateInvalidHandle);
}

TEST_F(VulkanRuntime, TinyAllocatorFailsCleanly) {
  const std::vector<uint8_t> blob = [] {
    BlobBuilder b;
    const uint32_t a = b.input({4});
    const uint32_t out = b.output({4});
    b.op(Shader::Unary, {out, a}, {10, 4, 0, 0});
    return b.build();
  }();
  for (size_t bytes : {size_t{0}, size_t{64}, size_t{512}}) {
    std::vector<uint64_t> arena(bytes / 8 + 1);
    MemoryAllocator small(arena.data(), bytes);
    Result<DelegateHandle*> h = backend_->init({blob.data(), blob.size()}, {}, &small);
    EXPECT_FALSE(h.ok()) << bytes;
    if (!h.ok()) {
      EXPECT_EQ(h.error(), Error::MemoryAllocationFailed);
    }
  }
}

// Collects delegate events.
class Recorder : public EventTracer {
 public:
  void begin_instruction(size_t) override {}
  void end_instruction(const InstructionEvent&) override {}
  void log_delegate_event(const char* name, int32_t id, const char*, uint64_t start,
                          uint64_t end) override {
    names.push_back(name);
    ids.push_back(id);
    ok = ok && start <= end;
  }
  std::vector<std::string> names;
  std::vector<int32_t> ids;
  bool ok = true;
};

TEST_F(VulkanRuntime, ReportsOneEventPerOpWithItsDebugHandle) {
  BlobBuilder b;
  const uint32_t a = b.input({8});
  const uint32_t out = b.output({8});
  const uint32_t t = b.internal({8});
  b.op(Shader::Unary, {t, a}, {10, 8, 0, 0}, 21);
  b.op(Shader::Unary, {out, t}, {1, 8, 0, 0}, 22);
  Result<DelegateHandle*> h = init(b.build());
  ASSERT_TRUE(h.ok()) << last_error_message();
  HostTensor x({8}, std::vector<float>(8, 1.0f)), y({8}, std::vector<float>(8));
  EValue* args[] = {&x.value, &y.value};
  Recorder recorder;
  internal::g_delegate_tracer = &recorder;
  const Error err = backend_->execute(h.get(), {args, 2});
  internal::g_delegate_tracer = nullptr;
  ASSERT_EQ(err, Error::Ok);
  std::vector<int32_t> op_ids;
  for (size_t i = 0; i < recorder.ids.size(); ++i) {
    if (recorder.ids[i] >= 0) {
      op_ids.push_back(recorder.ids[i]);
      EXPECT_EQ(recorder.names[i], "unary");
    }
  }
  EXPECT_EQ(op_ids, (std::vector<int32_t>{21, 22}));
  EXPECT_TRUE(recorder.ok);
  backend_->destroy(h.get());
}

}  // namespace
}  // namespace vulkan
}  // namespace torchedge
