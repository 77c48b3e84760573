// Bad input never crashes the XNNPACK backend: malformed blobs (every
// truncation, every corrupted header byte, specific semantic mistakes) fail
// init with an Error and a message; wrong arguments fail execute; a too
// small method allocator fails with MemoryAllocationFailed.

#include <cstring>

#include "backends/xnnpack/test/delegate_harness.h"

namespace torchedge {
namespace {

constexpr Error kBad = Error::DelegateInvalidCompatibility;

// input [1,4,4,2] (NCHW tensor) -> 3x3 conv (pad 1) -> clamp -> output.
BlobBuilder conv_graph(std::vector<uint32_t> out_dims = {1, 4, 4, 3}) {
  BlobBuilder b;
  const uint32_t in = b.input({1, 4, 4, 2}, Boundary::NchwToNhwc);
  const uint32_t out = b.output(out_dims, Boundary::NchwToNhwc);
  const uint32_t filter = b.constant({3, 3, 3, 2}, pseudo_random(54, 1));
  const uint32_t bias = b.constant({3}, pseudo_random(3, 2));
  const uint32_t conv = b.internal(out_dims);
  b.node(OpCode::Conv2d, {in, filter, bias, conv},
         {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 2, 3, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  b.node(OpCode::Clamp, {conv, out}, {BlobBuilder::f(0.0f), BlobBuilder::f(6.0f)});
  return b;
}

Error init_error(const std::vector<uint8_t>& blob) { return LoadedDelegate(blob).init_error(); }

TEST(XnnpackMalformed, NotABlob) {
  EXPECT_EQ(init_error({}), kBad);
  std::vector<uint8_t> blob = conv_graph().build();
  blob[0] = 'X';
  EXPECT_EQ(init_error(blob), kBad);
  EXPECT_NE(std::string(last_error_message()).find("TEX1"), std::string::npos);
  blob = conv_graph().build();
  blob[4] = 99;  // version
  EXPECT_EQ(init_error(blob), kBad);
  EXPECT_NE(std::string(last_error_message()).find("version"), std::string::npos);
}

TEST(XnnpackMalformed, EveryTruncationFails) {
  const std::vector<uint8_t> blob = conv_graph().build();
  ASSERT_EQ(init_error(blob), Error::Ok) << last_error_message();
  for (size_t n = 0; n < blob.size(); ++n) {
    const std::vector<uint8_t> prefix(blob.begin(), blob.begin() + n);
    EXPECT_EQ(init_error(prefix), kBad) << "prefix of " << n << " bytes";
  }
}

TEST(XnnpackMalformed, CorruptedHeaderBytesNeverCrash) {
  const std::vector<uint8_t> blob = conv_graph().build();
  uint64_t data_offset = 0;
  memcpy(&data_offset, blob.data() + 24, 8);
  for (size_t i = 0; i < data_offset; ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> bad = blob;
      bad[i] ^= flip;
      LoadedDelegate delegate(bad);
      if (delegate.init_error() != Error::Ok) continue;
      // Accepted (e.g. a changed clamp bound): running it must be safe too.
      TestTensor x(ScalarType::Float, {1, 2, 4, 4});
      TestTensor y(ScalarType::Float, {1, 3, 4, 4});
      const Error e = delegate.execute({&x, &y});
      EXPECT_TRUE(e == Error::Ok || e == Error::InvalidArgument) << "byte " << i;
    }
  }
}

TEST(XnnpackMalformed, InconsistentShapesAreRejected) {
  EXPECT_EQ(init_error(conv_graph({1, 4, 5, 3}).build()), kBad);
  EXPECT_NE(std::string(last_error_message()).find("conv2d"), std::string::npos)
      << last_error_message();
  EXPECT_EQ(init_error(conv_graph({1, 2, 2, 3}).build()), kBad);
}

TEST(XnnpackMalformed, SemanticMistakesAreRejected) {
  {  // filter fed at run time instead of a constant
    BlobBuilder b;
    const uint32_t in = b.input({1, 2, 2, 1});
    const uint32_t w = b.input({1, 1, 1, 1});
    const uint32_t out = b.output({1, 2, 2, 1});
    b.node(OpCode::Conv2d, {in, w, xnnpack::kNoValue, out},
           {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
    EXPECT_EQ(init_error(b.build()), kBad);
    EXPECT_NE(std::string(last_error_message()).find("constant"), std::string::npos);
  }
  {  // reads a value no earlier node produced
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({4});
    const uint32_t later = b.internal({4});
    b.node(OpCode::Add, {in, later, out}, {BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
    b.node(OpCode::Negate, {in, later});
    EXPECT_EQ(init_error(b.build()), kBad);
  }
  {  // produces a value twice
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({4});
    b.node(OpCode::Negate, {in, out});
    b.node(OpCode::Abs, {in, out});
    EXPECT_EQ(init_error(b.build()), kBad);
  }
  {  // an output nobody writes
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({4});
    b.output({4});
    b.node(OpCode::Negate, {in, out});
    EXPECT_EQ(init_error(b.build()), kBad);
    EXPECT_NE(std::string(last_error_message()).find("never produced"), std::string::npos);
  }
  {  // reshape that changes the element count; writes into an input
    BlobBuilder b;
    const uint32_t in = b.input({4});
    const uint32_t out = b.output({5});
    b.node(OpCode::Reshape, {in, out});
    EXPECT_EQ(init_error(b.build()), kBad);
    BlobBuilder c;
    const uint32_t in2 = c.input({4});
    c.output({4});
    c.node(OpCode::Negate, {in2, in2});
    EXPECT_EQ(init_error(c.build()), kBad);
  }
  {  // pooling window wholly inside the padding; wrong parameter count
    BlobBuilder b;
    const uint32_t in = b.input({1, 4, 4, 1});
    const uint32_t out = b.output({1, 4, 4, 1});
    b.node(OpCode::MaxPool2d, {in, out},
           {2, 2, 2, 2, 2, 2, 1, 1, 1, 1, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
    EXPECT_EQ(init_error(b.build()), kBad);
    BlobBuilder c;
    const uint32_t in2 = c.input({4});
    const uint32_t out2 = c.output({4});
    c.node(OpCode::Clamp, {in2, out2}, {BlobBuilder::f(0.0f)});
    EXPECT_EQ(init_error(c.build()), kBad);
  }
  {  // out-of-range value id, unknown opcode
    BlobBuilder b;
    const uint32_t in = b.input({4});
    b.output({4});
    b.node(OpCode::Negate, {in, 7});
    EXPECT_EQ(init_error(b.build()), kBad);
    BlobBuilder c;
    const uint32_t in2 = c.input({4});
    const uint32_t out2 = c.output({4});
    c.node(static_cast<OpCode>(99), {in2, out2});
    EXPECT_EQ(init_error(c.build()), kBad);
  }
}

TEST(XnnpackMalformed, ConstantOutsideDataSection) {
  std::vector<uint8_t> blob = conv_graph().build();
  // Shrink the data section by moving data_offset to the end of the blob.
  uint64_t end = blob.size() - blob.size() % 16;
  memcpy(blob.data() + 24, &end, 8);
  EXPECT_EQ(init_error(blob), kBad);
}

TEST(XnnpackMalformed, WrongArgumentsFailExecute) {
  LoadedDelegate delegate(conv_graph().build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  TestTensor x(ScalarType::Float, {1, 2, 4, 4});
  TestTensor y(ScalarType::Float, {1, 3, 4, 4});
  TestTensor wrong_shape(ScalarType::Float, {1, 2, 4, 5});
  TestTensor wrong_dtype(ScalarType::Double, {1, 2, 4, 4});
  EXPECT_EQ(delegate.execute({&x}), Error::InvalidArgument);
  EXPECT_EQ(delegate.execute({&wrong_shape, &y}), Error::InvalidArgument);
  EXPECT_EQ(delegate.execute({&wrong_dtype, &y}), Error::InvalidArgument);
  EXPECT_EQ(delegate.execute({&x, &y}), Error::Ok) << last_error_message();
}

TEST(XnnpackMalformed, SmallAllocatorFailsCleanly) {
  const std::vector<uint8_t> blob = conv_graph().build();
  size_t needed = 0;
  {
    LoadedDelegate delegate(blob);
    ASSERT_EQ(delegate.init_error(), Error::Ok);
    needed = delegate.allocator_used();
  }
  for (size_t bytes = 0; bytes < needed; bytes += 64) {
    EXPECT_EQ(LoadedDelegate(blob, bytes).init_error(), Error::MemoryAllocationFailed)
        << bytes;
  }
}

}  // namespace
}  // namespace torchedge
