#include "backends/xnnpack/subgraph_builder.h"

#include <cstring>

#include "backends/xnnpack/node_validator.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace xnnpack {

namespace {

constexpr Error kBadBlob = Error::DelegateInvalidCompatibility;

uint32_t xnn_id(const ParsedBlob& p, uint32_t blob_id) {
  return blob_id == kNoValue ? XNN_INVALID_VALUE_ID : p.values[blob_id].xnn_id;
}

// Constants XNNPACK dereferences after init must not point into the blob,
// and misaligned ones must not be read as floats/int32 at all: both get a
// copy (with the XNN_EXTRA_BYTES XNNPACK may over-read).
Error place_constants(ParsedBlob& p, MemoryAllocator* allocator) {
  for (uint32_t i = 0; i < p.num_values; ++i) {
    ValueInfo& v = p.values[i];
    if (v.kind != ValueKind::Constant) continue;
    const size_t element = element_size(v.dtype);
    const bool aligned = reinterpret_cast<uintptr_t>(v.data) % element == 0;
    if (!v.read_at_run && aligned) continue;
    const size_t nbytes = static_cast<size_t>(v.numel) * element;
    void* copy = allocator->allocate(nbytes + XNN_EXTRA_BYTES, 64);
    TE_CHECK_OR_RETURN(copy != nullptr, Error::MemoryAllocationFailed,
                       "xnnpack delegate: method allocator exhausted copying a %zu-byte constant",
                       nbytes);
    memcpy(copy, v.data, nbytes);
    v.data = static_cast<const uint8_t*>(copy);
  }
  return Error::Ok;
}

Error define_values(ParsedBlob& p, xnn_subgraph_t subgraph) {
  for (uint32_t i = 0; i < p.num_values; ++i) {
    ValueInfo& v = p.values[i];
    size_t dims[kMaxDims];
    for (uint32_t d = 0; d < v.rank; ++d) dims[d] = v.dims[d];
    uint32_t external_id = XNN_INVALID_VALUE_ID;
    uint32_t flags = 0;
    if (v.kind == ValueKind::Input || v.kind == ValueKind::Output) {
      external_id = i;
      flags = v.kind == ValueKind::Input ? XNN_VALUE_FLAG_EXTERNAL_INPUT
                                         : XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
    }
    const void* data = v.kind == ValueKind::Constant ? v.data : nullptr;
    xnn_status status = xnn_status_invalid_parameter;
    switch (v.dtype) {
      case DataType::Float32:
        status = xnn_define_tensor_value(subgraph, xnn_datatype_fp32, v.rank, dims, data,
                                         external_id, flags, &v.xnn_id);
        break;
      case DataType::QInt8:
        status = xnn_define_quantized_tensor_value(subgraph, xnn_datatype_qint8, v.zero_point,
                                                   v.scale, v.rank, dims, data, external_id,
                                                   flags, &v.xnn_id);
        break;
      case DataType::QCInt8:
      case DataType::QCInt32:
        status = xnn_define_channelwise_quantized_tensor_value(
            subgraph, v.dtype == DataType::QCInt8 ? xnn_datatype_qcint8 : xnn_datatype_qcint32,
            v.channel_scales, v.rank, v.channel_dim, dims, data, external_id, flags, &v.xnn_id);
        break;
    }
    TE_CHECK_OR_RETURN(status == xnn_status_success, kBadBlob,
                       "xnnpack delegate: XNNPACK refused value %u (status %d)", i,
                       static_cast<int>(status));
  }
  return Error::Ok;
}

xnn_status define_node(const NodeInfo& n, const ParsedBlob& p, xnn_subgraph_t s) {
  const uint32_t* q = n.params;
  auto f = [&n](uint32_t i) { return n.float_param(i); };
  auto id = [&](uint32_t slot) { return xnn_id(p, n.ids[slot]); };
  switch (n.op) {
    case OpCode::Conv2d:
      return xnn_define_convolution_2d(s, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8],
                                       q[9], q[10], q[11], q[12], f(13), f(14), id(0), id(1),
                                       id(2), id(3), 0);
    case OpCode::DepthwiseConv2d:
      return xnn_define_depthwise_convolution_2d(s, q[0], q[1], q[2], q[3], q[4], q[5], q[6],
                                                 q[7], q[8], q[9], q[10], q[11], f(12), f(13),
                                                 id(0), id(1), id(2), id(3), 0);
    case OpCode::Deconv2d:
      return xnn_define_deconvolution_2d(s, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8],
                                         q[9], q[10], q[11], q[12], q[13], q[14], f(15), f(16),
                                         id(0), id(1), id(2), id(3), 0);
    case OpCode::FullyConnected:
      return xnn_define_fully_connected(s, f(0), f(1), id(0), id(1), id(2), id(3), 0);
    case OpCode::Add:
      return xnn_define_add2(s, f(0), f(1), id(0), id(1), id(2), 0);
    case OpCode::Subtract:
      return xnn_define_subtract(s, f(0), f(1), id(0), id(1), id(2), 0);
    case OpCode::Multiply:
      return xnn_define_multiply2(s, f(0), f(1), id(0), id(1), id(2), 0);
    case OpCode::Divide:
      return xnn_define_divide(s, f(0), f(1), id(0), id(1), id(2), 0);
    case OpCode::Maximum:
      return xnn_define_maximum2(s, id(0), id(1), id(2), 0);
    case OpCode::Minimum:
      return xnn_define_minimum2(s, id(0), id(1), id(2), 0);
    case OpCode::Clamp:
      return xnn_define_clamp(s, f(0), f(1), id(0), id(1), 0);
    case OpCode::HardSwish:
      return xnn_define_hardswish(s, id(0), id(1), 0);
    case OpCode::Sigmoid:
      return xnn_define_sigmoid(s, id(0), id(1), 0);
    case OpCode::Softmax:
      return xnn_define_softmax(s, id(0), id(1), 0);
    case OpCode::Abs:
      return xnn_define_abs(s, id(0), id(1), 0);
    case OpCode::Negate:
      return xnn_define_negate(s, id(0), id(1), 0);
    case OpCode::Floor:
      return xnn_define_floor(s, id(0), id(1), 0);
    case OpCode::Ceiling:
      return xnn_define_ceiling(s, id(0), id(1), 0);
    case OpCode::SquareRoot:
      return xnn_define_square_root(s, id(0), id(1), 0);
    case OpCode::Square:
      return xnn_define_square(s, id(0), id(1), 0);
    case OpCode::BankersRounding:
      return xnn_define_bankers_rounding(s, id(0), id(1), 0);
    case OpCode::Elu:
      return xnn_define_elu(s, f(0), id(0), id(1), 0);
    case OpCode::LeakyRelu:
      return xnn_define_leaky_relu(s, f(0), id(0), id(1), 0);
    case OpCode::GlobalAvgPool2d:
      return xnn_define_global_average_pooling_2d(s, f(0), f(1), id(0), id(1), 0);
    case OpCode::MaxPool2d:
      return xnn_define_max_pooling_2d(s, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8],
                                       q[9], f(10), f(11), id(0), id(1), 0);
    case OpCode::AvgPool2d:
      return xnn_define_average_pooling_2d(s, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7],
                                           f(8), f(9), id(0), id(1), 0);
    case OpCode::ConstantPad: {
      const uint32_t rank = p.values[n.ids[0]].rank;
      size_t pre[kMaxDims];
      size_t post[kMaxDims];
      for (uint32_t d = 0; d < rank; ++d) {
        pre[d] = q[1 + d];
        post[d] = q[1 + rank + d];
      }
      return xnn_define_static_constant_pad(s, pre, post, f(0), id(0), id(1), 0);
    }
    case OpCode::Reshape: {
      const ValueInfo& out = p.values[n.ids[1]];
      size_t shape[kMaxDims];
      for (uint32_t d = 0; d < out.rank; ++d) shape[d] = out.dims[d];
      return xnn_define_static_reshape(s, out.rank, shape, id(0), id(1), 0);
    }
    case OpCode::Convert:
      return xnn_define_convert(s, id(0), id(1), 0);
    case OpCode::ResizeBilinear2d: {
      const ValueInfo& out = p.values[n.ids[1]];
      return xnn_define_static_resize_bilinear_2d(s, out.dims[1], out.dims[2], id(0), id(1),
                                                  q[0] != 0 ? XNN_FLAG_ALIGN_CORNERS : 0);
    }
  }
  return xnn_status_invalid_parameter;
}

}  // namespace

Error build_subgraph(ParsedBlob& parsed, MemoryAllocator* allocator, SubgraphOwner* owner) {
  // Pass 1: check everything before XNNPACK sees any of it.
  NodeReader check(parsed);
  for (uint32_t i = 0; !check.done(); ++i) {
    NodeInfo node;
    TE_RETURN_IF_ERROR(check.next(&node));
    TE_RETURN_IF_ERROR(validate_node(node, i, parsed));
  }
  TE_CHECK_OR_RETURN(check.exhausted(), kBadBlob,
                     "xnnpack blob: bytes trail the last node record");
  for (uint32_t i = parsed.num_inputs; i < parsed.num_inputs + parsed.num_outputs; ++i) {
    TE_CHECK_OR_RETURN(parsed.values[i].defined, kBadBlob,
                       "xnnpack blob: output value %u is never produced", i);
  }
  TE_RETURN_IF_ERROR(place_constants(parsed, allocator));

  const xnn_status created =
      xnn_create_subgraph(parsed.num_inputs + parsed.num_outputs, 0, owner->out());
  TE_CHECK_OR_RETURN(created == xnn_status_success, Error::DelegateMemoryAllocationFailed,
                     "xnnpack delegate: xnn_create_subgraph failed (status %d)",
                     static_cast<int>(created));
  TE_RETURN_IF_ERROR(define_values(parsed, owner->get()));

  // Pass 2: define the (now known-good) nodes.
  NodeReader define(parsed);
  for (uint32_t i = 0; !define.done(); ++i) {
    NodeInfo node;
    TE_RETURN_IF_ERROR(define.next(&node));
    const xnn_status status = define_node(node, parsed, owner->get());
    TE_CHECK_OR_RETURN(status == xnn_status_success, kBadBlob,
                       "xnnpack delegate: XNNPACK refused node %u (%s), status %d", i,
                       op_name(node.op), static_cast<int>(status));
  }
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace torchedge
