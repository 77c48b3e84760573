// torchedge/backends/xnnpack/blob_format.h
//
// The facts of the "TEX1" blob that the XNNPACK delegate's ahead-of-time
// half (python/torchedge/backends/xnnpack/blob_writer.py, which documents
// the layout byte by byte) writes and blob_reader.cpp reads. Everything is
// little-endian; integers are u32 unless noted, float parameters are stored
// as their IEEE-754 bit patterns in u32 slots.
//
//   header (32 bytes)  "TEX1", version, num_values, num_inputs, num_outputs,
//                      num_nodes, u64 data_offset (16-aligned)
//   values             one record each; values [0, num_inputs) are the
//                      delegate's runtime inputs in DelegateCall order,
//                      [num_inputs, num_inputs + num_outputs) its outputs
//   nodes              one record each, in execution order: opcode,
//                      num_ids, num_params, debug handle (version 3),
//                      ids, params
//   data               from data_offset to the end: constants (float32,
//                      int8 or int32 elements, as their value's datatype)
//
// Version 2 adds a datatype and quantization parameters to every value
// record (right after its kind); version 1 blobs (all float32, no datatype
// field) are still read. Version 3 adds a u32 debug handle to every node
// record (after num_params): the id the delegate reports the node's events
// with (EventTracer::log_delegate_event), which the ETRecord maps back to
// FX nodes. Nodes of older blobs get their index as handle.
//
// The blob already speaks XNNPACK: dims are in XNNPACK's layout (NHWC for
// activations of spatial operators), weights are pre-permuted, and each
// node's parameters are those of its xnn_define_* call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace xnnpack {

constexpr char kBlobMagic[4] = {'T', 'E', 'X', '1'};
constexpr uint32_t kBlobVersion = 3;
/// The oldest version this runtime reads (version 1: every value float32).
constexpr uint32_t kMinBlobVersion = 1;
constexpr size_t kHeaderBytes = 32;

/// XNN_MAX_TENSOR_DIMS of the XNNPACK this backend is built against.
constexpr uint32_t kMaxDims = 6;
/// "No value" in an optional node slot (a bias), as XNN_INVALID_VALUE_ID.
constexpr uint32_t kNoValue = 0xFFFFFFFFu;
constexpr uint32_t kMaxNodeIds = 4;
constexpr uint32_t kMaxNodeParams = 20;
/// Upper bounds that keep every size computation far from overflow.
constexpr uint32_t kMaxValues = 1u << 20;
constexpr uint32_t kMaxNodes = 1u << 20;
constexpr uint64_t kMaxElements = uint64_t{1} << 34;

enum class ValueKind : uint32_t {
  Internal = 0,  // lives in XNNPACK's workspace
  Input = 1,     // a DelegateCall input tensor
  Output = 2,    // a DelegateCall output tensor
  Constant = 3,  // float32 data in the blob's data section
};

/// A value's element type (version 2). Quantized values carry their
/// parameters in the value record, right after the datatype:
///   QInt8    f32 scale, i32 zero point: real = (q - zero_point) * scale;
///            zero point in [-128, 127]. Activations, as XNNPACK's qint8.
///   QCInt8   channel dim, then dims[channel dim] f32 scales (zero points
///            0): per-channel weights (XNNPACK qcint8). Constants only.
///   QCInt32  the same, for int32 biases (XNNPACK qcint32); scale[c] must
///            be input scale * filter scale[c]. Constants only.
/// Every scale is a normal, positive float.
enum class DataType : uint32_t {
  Float32 = 0,
  QInt8 = 1,
  QCInt8 = 2,
  QCInt32 = 3,
};
constexpr uint32_t kMaxDataType = 3;

/// Bytes per element of `t`.
constexpr uint32_t element_size(DataType t) {
  return t == DataType::QInt8 || t == DataType::QCInt8 ? 1 : 4;
}

/// How an input/output value meets the runtime tensor bound to it.
enum class Boundary : uint32_t {
  Direct = 0,      // the tensor's contiguous data is the value's data
  NchwToNhwc = 1,  // value is NHWC, tensor is NCHW: execute() converts
};

enum class OpCode : uint32_t {
  // ids: input, filter, bias (or kNoValue), output
  Conv2d = 1,           // pad t r b l, kernel h w, stride h w, dilation h w,
                        // groups, group in ch, group out ch, min, max
  DepthwiseConv2d = 2,  // pad t r b l, kernel h w, stride h w, dilation h w,
                        // depth multiplier, input channels, min, max
  FullyConnected = 3,   // min, max (filter is [out, in])
  // ids: a, b, output (numpy broadcasting)
  Add = 4,       // min, max
  Subtract = 5,  // min, max
  Multiply = 6,  // min, max
  Divide = 7,    // min, max
  Maximum = 8,   // (none)
  Minimum = 9,   // (none)
  // ids: input, output; same shape
  Clamp = 10,  // min, max
  HardSwish = 11,
  Sigmoid = 12,
  Softmax = 13,  // over the last dimension
  Abs = 14,
  Negate = 15,
  Floor = 16,
  Ceiling = 17,
  SquareRoot = 18,
  Square = 19,
  BankersRounding = 20,
  Elu = 21,        // alpha
  LeakyRelu = 22,  // negative slope
  // ids: input, output; NHWC
  GlobalAvgPool2d = 23,   // min, max
  MaxPool2d = 24,         // pad t r b l, pool h w, stride h w, dilation h w, min, max
  AvgPool2d = 25,         // pad t r b l, pool h w, stride h w, min, max
  ConstantPad = 26,       // value, pre[rank], post[rank]
  Reshape = 27,           // (none): the output's dims are the new shape
  ResizeBilinear2d = 28,  // align_corners (0 or 1)
  // ids: input, filter [groups * group out ch, kh, kw, group in ch], bias
  // (or kNoValue), output. Padding crops the output, as PyTorch's.
  Deconv2d = 29,  // pad t r b l, adjustment h w, kernel h w, upsampling h w,
                  // dilation h w, groups, group in ch, group out ch, min, max
  // ids: input, output; same shape. Float32 -> QInt8 (quantize) or QInt8
  // -> Float32 (dequantize), XNNPACK's convert node.
  Convert = 30,
};

constexpr uint32_t kMaxOpCode = 30;

// Quantized (QInt8) forms of the opcodes above, as this XNNPACK runs them:
//   Conv2d / DepthwiseConv2d: QInt8 input and output, QCInt8 filter (channel
//     dim 0, or 3 for depthwise), QCInt32 bias or none; min/max are real
//     values (a fused relu). Linear layers are lowered as 1x1 Conv2d
//     (this XNNPACK has no per-channel fully connected).
//   Add / Subtract / Multiply, GlobalAvgPool2d: QInt8 operands and output
//     (each may have its own parameters, within XNNPACK's ratio limits).
//   Clamp, MaxPool2d, Reshape, ConstantPad: QInt8 in and out with identical
//     parameters (they move integers without requantizing).

}  // namespace xnnpack
}  // namespace torchedge
