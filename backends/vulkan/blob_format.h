// torchedge/backends/vulkan/blob_format.h
//
// The facts of the "TVK1" blob that the Vulkan delegate's ahead-of-time half
// (python/torchedge/backends/vulkan/blob_writer.py) writes and
// blob_reader.cpp reads. Little-endian; integers are u32 unless noted;
// float parameters are IEEE-754 bit patterns in u32 slots.
//
//   header (40 bytes)   "TVK1", version (2), num_tensors, num_inputs,
//                       num_outputs, num_ops, u64 data_offset, flags
//                       (BlobFlag bits), reserved (0)
//   tensors             kTensorRecordBytes each: kind, rank, dims[6],
//                       u64 a, u64 b (see TensorKind), dtype (a
//                       ScalarType code: 6 float32 or 5 float16),
//                       reserved (0)
//   ops                 kOpRecordBytes each, in execution order: shader,
//                       debug handle, num_ids, ids[4] (output first, then
//                       inputs), num_params, params[32]
//   data                data_offset to the end: constants, each in its
//                       tensor's dtype
//
// Tensors [0, num_inputs) are the delegate's runtime inputs in DelegateCall
// order, the next num_outputs its outputs; every tensor is contiguous. A
// tensor's dtype is its dtype in the program (what crosses the delegate
// boundary, how a constant is stored); every tensor an op binds has the
// same dtype, and an alias has its target's, unless kFlagFloat16Compute is
// set (a float16 program's float32 upcasts: all float16 on the device). Where tensors live on the
// device in float16 is decided at init (vulkan_delegate.h): float16
// tensors always, float32 ones too under kFlagFloat16Compute when the
// device can. The meaning of each shader's parameters is written at the top
// of its GLSL file (backends/vulkan/shaders/) and checked by
// blob_reader.cpp before anything reaches the device.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace vulkan {

constexpr char kBlobMagic[4] = {'T', 'V', 'K', '1'};
constexpr uint32_t kBlobVersion = 2;
constexpr size_t kHeaderBytes = 40;
constexpr size_t kTensorRecordBytes = 56;
constexpr uint32_t kMaxDims = 6;
constexpr uint32_t kMaxOpIds = 4;
constexpr uint32_t kMaxParams = 32;  // 128 bytes: the push-constant size every device has
constexpr size_t kOpRecordBytes = 4 * (3 + kMaxOpIds + 1 + kMaxParams);

/// Limits that keep every size computation (and shader index, which is
/// 32-bit) far from overflow.
constexpr uint32_t kMaxTensors = 1u << 20;
constexpr uint32_t kMaxOps = 1u << 20;
constexpr uint64_t kMaxElements = (uint64_t{1} << 31) - 1;

enum class TensorKind : uint32_t {
  Internal = 0,  // written by one op, read by later ones
  Input = 1,     // a DelegateCall input (copied in per execute)
  Output = 2,    // a DelegateCall output (copied out per execute)
  Constant = 3,  // a = byte offset in the data section, b = byte size
  Alias = 4,     // a = id of an earlier tensor with the same element count:
                 // a reshape that shares its storage (no copy)
};
constexpr uint32_t kMaxTensorKind = 4;

/// Header flag bits.
enum BlobFlag : uint32_t {
  /// Compute the float32 tensors in float16 on a device with float16
  /// support (the partitioner's force_fp16): inputs and outputs stay float32
  /// at the delegate boundary and are converted on the host; float32
  /// constants are rounded to float16 at init. Without device support the
  /// delegate runs in float32. Also set on a float16 program's partition
  /// that holds float32 values (decompositions upcast, e.g. hardswish):
  /// they are float16 on the device too.
  kFlagFloat16Compute = 1u,
};
constexpr uint32_t kKnownFlags = kFlagFloat16Compute;

/// Tensor dtypes (ScalarType codes, runtime/core/scalar_type.h).
constexpr uint32_t kDtypeFloat16 = 5;
constexpr uint32_t kDtypeFloat32 = 6;

/// One GLSL compute shader each (shaders/<name>.comp).
enum class Shader : uint32_t {
  Unary = 0,    // ids: out, in
  Binary = 1,   // ids: out, a, b, mask (where only; else kNoTensor)
  Copy = 2,     // ids: out, in
  Matmul = 3,   // ids: out, a, b, bias (or kNoTensor)
  Conv2d = 4,   // ids: out, in, weight, bias (or kNoTensor)
  Pool2d = 5,   // ids: out, in
  Softmax = 6,  // ids: out, in
  Norm = 7,     // ids: out, in, weight (or kNoTensor), bias (or kNoTensor)
  Reduce = 8,   // ids: out, in
  Resize = 9,   // ids: out, in
};
constexpr uint32_t kNumShaders = 10;

/// "No tensor" in an optional op slot (bias, norm weight).
constexpr uint32_t kNoTensor = 0xFFFFFFFFu;

/// Unary operator codes (shaders/activation.glsl); also the fused
/// activation of Matmul and Conv2d.
constexpr uint32_t kMaxUnaryOp = 23;

}  // namespace vulkan
}  // namespace torchedge
