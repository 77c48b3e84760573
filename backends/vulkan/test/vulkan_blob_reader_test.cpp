// The blob reader rejects every malformed "TVK1" blob with
// DelegateInvalidCompatibility and a message, before any Vulkan object
// exists: truncations, corrupted header bytes, and semantic mistakes
// (tensor kinds, constant ranges, alias targets, op ids, parameters that
// would index outside a bound tensor). No device is needed.
#include <gtest/gtest.h>

#include <string>

#include "backends/vulkan/blob_reader.h"
#include "backends/vulkan/test/blob_builder.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace vulkan {
namespace {

using testing::BlobBuilder;
using testing::binary_params;
constexpr Error kBad = Error::DelegateInvalidCompatibility;

// out = relu(a + b) with b a constant; a and out are [2, 3].
BlobBuilder add_relu() {
  BlobBuilder b;
  const uint32_t a = b.input({2, 3});
  const uint32_t out = b.output({2, 3});
  const uint32_t c = b.constant({2, 3}, {1, 2, 3, 4, 5, 6});
  const uint32_t t = b.internal({2, 3});
  b.op(Shader::Binary, {t, a, c, kNoTensor}, binary_params(0, {2, 3}), 0);
  b.op(Shader::Unary, {out, t}, {1, 6, 0, 0}, 1);
  return b;
}

Error parse(const std::vector<uint8_t>& blob, std::string* message = nullptr) {
  std::vector<uint64_t> arena(1 << 14);
  MemoryAllocator allocator(arena.data(), arena.size() * 8);
  Result<ParsedBlob> parsed = parse_blob({blob.data(), blob.size()}, &allocator);
  if (message != nullptr) *message = parsed.ok() ? "" : last_error_message();
  return parsed.ok() ? Error::Ok : parsed.error();
}

void expect_rejected(const BlobBuilder& b, const char* words) {
  std::string message;
  EXPECT_EQ(parse(b.build(), &message), kBad);
  EXPECT_NE(message.find(words), std::string::npos) << message;
}

TEST(VulkanBlobReader, ValidBlobParses) {
  std::vector<uint64_t> arena(1 << 14);
  MemoryAllocator allocator(arena.data(), arena.size() * 8);
  const std::vector<uint8_t> blob = add_relu().build();
  Result<ParsedBlob> parsed = parse_blob({blob.data(), blob.size()}, &allocator);
  ASSERT_TRUE(parsed.ok()) << last_error_message();
  EXPECT_EQ(parsed.get().num_tensors, 4u);
  EXPECT_EQ(parsed.get().num_ops, 2u);
  EXPECT_EQ(parsed.get().tensors[2].kind, TensorKind::Constant);
  EXPECT_EQ(parsed.get().ops[1].shader, Shader::Unary);
}

TEST(VulkanBlobReader, HeaderMistakes) {
  std::vector<uint8_t> blob = add_relu().build();
  blob[0] = 'X';
  std::string message;
  EXPECT_EQ(parse(blob, &message), kBad);
  EXPECT_NE(message.find("TVK1"), std::string::npos);
  blob = add_relu().build();
  blob[4] = 7;
  EXPECT_EQ(parse(blob, &message), kBad);
  EXPECT_NE(message.find("version"), std::string::npos);
  EXPECT_EQ(parse({}), kBad);
}

TEST(VulkanBlobReader, EveryTruncationFails) {
  const std::vector<uint8_t> blob = add_relu().build();
  ASSERT_EQ(parse(blob), Error::Ok);
  for (size_t n = 0; n < blob.size(); ++n) {
    EXPECT_NE(parse(std::vector<uint8_t>(blob.begin(), blob.begin() + n)), Error::Ok) << n;
  }
}

TEST(VulkanBlobReader, CorruptedRecordBytesNeverCrash) {
  // Every byte of the header and records, three ways: a parse either fails
  // cleanly or yields a blob whose every op still passed its checks.
  const std::vector<uint8_t> blob = add_relu().build();
  uint64_t data_offset = 0;
  memcpy(&data_offset, blob.data() + 24, 8);
  for (size_t i = 0; i < data_offset; ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> bad = blob;
      bad[i] ^= flip;
      const Error e = parse(bad);
      EXPECT_TRUE(e == Error::Ok || e == kBad || e == Error::MemoryAllocationFailed) << i;
    }
  }
}

TEST(VulkanBlobReader, TensorMistakes) {
  std::vector<uint8_t> blob = add_relu().build();
  blob[kHeaderBytes + kTensorRecordBytes] = 0;  // the output's kind -> Internal
  std::string message;
  EXPECT_EQ(parse(blob, &message), kBad);
  EXPECT_NE(message.find("header places an output"), std::string::npos) << message;

  BlobBuilder c = add_relu();
  c.tensor(TensorKind::Constant, {4}, 16, 4 * 4);  // past the 24-byte data section
  expect_rejected(c, "data section");

  BlobBuilder d = add_relu();
  d.tensor(TensorKind::Alias, {6}, 9);  // later id
  expect_rejected(d, "earlier");

  BlobBuilder e = add_relu();
  e.tensor(TensorKind::Alias, {5}, 0);  // 5 vs 6 elements
  expect_rejected(e, "alias target");

  BlobBuilder f = add_relu();
  f.tensor(TensorKind::Internal, {1u << 16, 1u << 16});
  expect_rejected(f, "elements");

  BlobBuilder g = add_relu();
  g.tensor(TensorKind::Internal, {7, 0});
  expect_rejected(g, "no elements");
}

TEST(VulkanBlobReader, DtypeCodesFlagsAndMixedDtypes) {
  // Byte 48 of a tensor record is its dtype: only 6 (float32) and 5
  // (float16) exist; every other code is rejected by number.
  for (uint32_t code : {0u, 3u, 4u, 7u, 15u, 255u}) {
    std::vector<uint8_t> blob = add_relu().build();
    blob[kHeaderBytes + 2 * kTensorRecordBytes + 48] = static_cast<uint8_t>(code);
    std::string message;
    EXPECT_EQ(parse(blob, &message), kBad) << code;
    EXPECT_NE(message.find("tensor 2: dtype code " + std::to_string(code)), std::string::npos)
        << message;
  }
  std::vector<uint8_t> reserved = add_relu().build();
  reserved[kHeaderBytes + 52] = 1;
  std::string message;
  EXPECT_EQ(parse(reserved, &message), kBad);
  EXPECT_NE(message.find("reserved word is 1"), std::string::npos) << message;

  BlobBuilder flags = add_relu();
  flags.set_flags(kFlagFloat16Compute | 4u);
  expect_rejected(flags, "flags 0x5");
  BlobBuilder fp16_compute = add_relu();
  fp16_compute.set_flags(kFlagFloat16Compute);
  EXPECT_EQ(parse(fp16_compute.build()), Error::Ok);

  // A float16 constant added to a float32 tensor: one op, two dtypes.
  BlobBuilder mixed;
  const uint32_t a = mixed.input({2, 3});
  const uint32_t out = mixed.output({2, 3});
  mixed.set_dtype(kDtypeFloat16);
  const uint32_t c = mixed.constant({2, 3}, {1, 2, 3, 4, 5, 6});
  mixed.op(Shader::Binary, {out, a, c, kNoTensor}, binary_params(0, {2, 3}));
  expect_rejected(mixed, "tensor 2 in slot 2 is float16, the output 1 is float32");

  // An alias keeps its target's dtype.
  BlobBuilder alias = add_relu();
  alias.set_dtype(kDtypeFloat16);
  alias.tensor(TensorKind::Alias, {6}, 3);
  expect_rejected(alias, "alias target 3 is float32");

  // float16 constants take 2 bytes per element, no more, no less.
  BlobBuilder half;
  half.set_dtype(kDtypeFloat16);
  const uint32_t x = half.input({2, 3});
  const uint32_t y = half.output({2, 3});
  const uint32_t k = half.constant({2, 3}, {1, 2, 3, 4, 5, 6});
  half.op(Shader::Binary, {y, x, k, kNoTensor}, binary_params(2, {2, 3}));
  EXPECT_EQ(parse(half.build()), Error::Ok);
  half.tensor(TensorKind::Constant, {2, 3}, 0, 6 * 4);  // float32 size
  expect_rejected(half, "numel * 2 = 12");
}

TEST(VulkanBlobReader, OpMistakes) {
  BlobBuilder a = add_relu();
  a.op(static_cast<Shader>(42), {1, 0}, {});
  expect_rejected(a, "shader 42");

  BlobBuilder b = add_relu();
  b.op(Shader::Unary, {1, 99}, {1, 6, 0, 0});
  expect_rejected(b, "id 99");

  BlobBuilder c = add_relu();
  c.op(Shader::Unary, {2, 0}, {1, 6, 0, 0});  // writes the constant
  expect_rejected(c, "only internal and output");

  BlobBuilder d = add_relu();
  d.op(Shader::Unary, {1, 0}, {1, 6, 0});  // 3 of 4 params
  expect_rejected(d, "parameters, expected 4");

  BlobBuilder e = add_relu();
  e.op(Shader::Unary, {1, 0}, {1, 7, 0, 0});  // 7 elements of 6
  expect_rejected(e, "reach element 6");

  BlobBuilder f = add_relu();
  f.op(Shader::Unary, {1, 0}, {99, 6, 0, 0});
  expect_rejected(f, "unknown unary op");
}

TEST(VulkanBlobReader, StridedParametersStayInsideTheirTensors) {
  // binary: b is read with a stride of 2 along the last dim -> element 10.
  BlobBuilder b = add_relu();
  std::vector<uint32_t> p = binary_params(0, {2, 3});
  p[15 + 5] = 2;
  b.op(Shader::Binary, {1, 0, 2, kNoTensor}, p);
  expect_rejected(b, "slot 2");

  // copy: an out_offset of 1 walks past the output's end.
  BlobBuilder c = add_relu();
  std::vector<uint32_t> q = {6, 1, 1, 1, 1, 2, 3, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 3, 1, 1};
  c.op(Shader::Copy, {1, 0}, q);
  expect_rejected(c, "slot 0");

  // matmul: [2, 3] @ [3, 2] reads B (6 elements) with a k stride of 3:
  // (3 - 1) * 3 + (2 - 1) * 1 = element 7.
  BlobBuilder m = add_relu();
  const uint32_t mm = m.internal({2, 2});
  m.op(Shader::Matmul, {mm, 0, 2, kNoTensor},
       {2, 2, 3, 1, 1, 0, 0, 3, 1, 0, 0, 3, 1, 0, 0, 0, BlobBuilder::f(1), 0, 0, 0});
  expect_rejected(m, "element 7 of the tensor in slot 2");

  // conv: groups must divide the channels.
  BlobBuilder v;
  const uint32_t x = v.input({1, 3, 4, 4});
  const uint32_t y = v.output({1, 2, 4, 4});
  const uint32_t w = v.constant({2, 3, 1, 1}, std::vector<float>(6, 1.0f));
  v.op(Shader::Conv2d, {y, x, w, kNoTensor},
       {1, 3, 4, 4, 2, 4, 4, 1, 1, 1, 1, 0, 0, 1, 1, 2, 0, 0, 0, 0});
  expect_rejected(v, "groups");
}

}  // namespace
}  // namespace vulkan
}  // namespace torchedge
