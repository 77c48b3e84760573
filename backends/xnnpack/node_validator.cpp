#include "backends/xnnpack/node_validator.h"

#include <cmath>

#include "runtime/core/error_message.h"

namespace torchedge {
namespace xnnpack {

namespace {

constexpr Error kBadBlob = Error::DelegateInvalidCompatibility;

struct OpSpec {
  const char* name;
  uint8_t num_inputs;   // value ids before the output id
  int8_t num_params;    // -1: depends on the input's rank (constant pad)
  uint8_t weight_mask;  // input slots that must be constants XNNPACK packs at init
  uint8_t optional_mask;  // input slots that may be kNoValue
};

// Indexed by opcode; entry 0 is unused.
constexpr OpSpec kSpecs[kMaxOpCode + 1] = {
    {"invalid", 0, 0, 0, 0},
    {"conv2d", 3, 15, 0b110, 0b100},
    {"depthwise_conv2d", 3, 14, 0b110, 0b100},
    {"fully_connected", 3, 2, 0b110, 0b100},
    {"add", 2, 2, 0, 0},
    {"subtract", 2, 2, 0, 0},
    {"multiply", 2, 2, 0, 0},
    {"divide", 2, 2, 0, 0},
    {"maximum", 2, 0, 0, 0},
    {"minimum", 2, 0, 0, 0},
    {"clamp", 1, 2, 0, 0},
    {"hardswish", 1, 0, 0, 0},
    {"sigmoid", 1, 0, 0, 0},
    {"softmax", 1, 0, 0, 0},
    {"abs", 1, 0, 0, 0},
    {"negate", 1, 0, 0, 0},
    {"floor", 1, 0, 0, 0},
    {"ceiling", 1, 0, 0, 0},
    {"square_root", 1, 0, 0, 0},
    {"square", 1, 0, 0, 0},
    {"bankers_rounding", 1, 0, 0, 0},
    {"elu", 1, 1, 0, 0},
    {"leaky_relu", 1, 1, 0, 0},
    {"global_average_pooling_2d", 1, 2, 0, 0},
    {"max_pooling_2d", 1, 12, 0, 0},
    {"average_pooling_2d", 1, 10, 0, 0},
    {"static_constant_pad", 1, -1, 0, 0},
    {"static_reshape", 1, 0, 0, 0},
    {"static_resize_bilinear_2d", 1, 1, 0, 0},
    {"deconv2d", 3, 17, 0b110, 0b100},
    {"convert", 1, 0, 0, 0},
};

bool same_dims(const ValueInfo& a, const ValueInfo& b) {
  if (a.rank != b.rank) return false;
  for (uint32_t d = 0; d < a.rank; ++d) {
    if (a.dims[d] != b.dims[d]) return false;
  }
  return true;
}

bool has_dims(const ValueInfo& v, uint32_t rank, const uint64_t* dims) {
  if (v.rank != rank) return false;
  for (uint32_t d = 0; d < rank; ++d) {
    if (v.dims[d] != dims[d]) return false;
  }
  return true;
}

// Output extent of a sliding window, as XNNPACK computes it; false when a
// parameter is zero or the window does not fit the padded input.
bool window_extent(uint64_t in, uint64_t pad_a, uint64_t pad_b, uint64_t kernel, uint64_t stride,
                   uint64_t dilation, uint64_t* out) {
  if (kernel == 0 || stride == 0 || dilation == 0) return false;
  const uint64_t effective = (kernel - 1) * dilation + 1;
  const uint64_t padded = in + pad_a + pad_b;
  if (padded < effective) return false;
  *out = (padded - effective) / stride + 1;
  return true;
}

// params: pad t r b l, kernel h w, stride h w, dilation h w (the first 10).
bool spatial_extent(const NodeInfo& n, const ValueInfo& in, bool has_dilation, uint64_t* oh,
                    uint64_t* ow) {
  const uint32_t* p = n.params;
  const uint32_t dh = has_dilation ? p[8] : 1;
  const uint32_t dw = has_dilation ? p[9] : 1;
  return in.rank == 4 && window_extent(in.dims[1], p[0], p[2], p[4], p[6], dh, oh) &&
         window_extent(in.dims[2], p[3], p[1], p[5], p[7], dw, ow);
}

bool check_conv(const NodeInfo& n, const ValueInfo& in, const ValueInfo& filter,
                const ValueInfo* bias, const ValueInfo& out) {
  const uint32_t* p = n.params;
  uint64_t oh = 0, ow = 0;
  if (!spatial_extent(n, in, true, &oh, &ow)) return false;
  const uint64_t groups = p[10], gic = p[11], goc = p[12];
  if (groups == 0 || gic == 0 || goc == 0 || groups * gic != in.dims[3]) return false;
  const uint64_t filter_dims[4] = {groups * goc, p[4], p[5], gic};
  const uint64_t bias_dims[1] = {groups * goc};
  const uint64_t out_dims[4] = {in.dims[0], oh, ow, groups * goc};
  return has_dims(filter, 4, filter_dims) && (bias == nullptr || has_dims(*bias, 1, bias_dims)) &&
         has_dims(out, 4, out_dims);
}

// Transposed convolution: out = up * (in - 1) + adjustment + effective
// kernel - padding, as XNNPACK and PyTorch both compute it.
bool check_deconv(const NodeInfo& n, const ValueInfo& in, const ValueInfo& filter,
                  const ValueInfo* bias, const ValueInfo& out) {
  const uint32_t* p = n.params;
  if (in.rank != 4) return false;
  uint64_t extent[2];
  for (int a = 0; a < 2; ++a) {
    const uint64_t adjustment = p[4 + a], kernel = p[6 + a], up = p[8 + a], dilation = p[10 + a];
    const uint64_t pad = uint64_t{a == 0 ? p[0] : p[3]} + (a == 0 ? p[2] : p[1]);
    if (kernel == 0 || up == 0 || dilation == 0 || adjustment >= up) return false;
    const uint64_t full = up * (in.dims[1 + a] - 1) + adjustment + (kernel - 1) * dilation + 1;
    if (full <= pad) return false;
    extent[a] = full - pad;
  }
  const uint64_t groups = p[12], gic = p[13], goc = p[14];
  if (groups == 0 || gic == 0 || goc == 0 || groups * gic != in.dims[3]) return false;
  const uint64_t filter_dims[4] = {groups * goc, p[6], p[7], gic};
  const uint64_t bias_dims[1] = {groups * goc};
  const uint64_t out_dims[4] = {in.dims[0], extent[0], extent[1], groups * goc};
  return has_dims(filter, 4, filter_dims) && (bias == nullptr || has_dims(*bias, 1, bias_dims)) &&
         has_dims(out, 4, out_dims);
}

bool check_depthwise(const NodeInfo& n, const ValueInfo& in, const ValueInfo& filter,
                     const ValueInfo* bias, const ValueInfo& out) {
  const uint32_t* p = n.params;
  uint64_t oh = 0, ow = 0;
  if (!spatial_extent(n, in, true, &oh, &ow)) return false;
  const uint64_t multiplier = p[10], channels = p[11];
  if (multiplier == 0 || channels != in.dims[3]) return false;
  const uint64_t filter_dims[4] = {1, p[4], p[5], channels * multiplier};
  const uint64_t bias_dims[1] = {channels * multiplier};
  const uint64_t out_dims[4] = {in.dims[0], oh, ow, channels * multiplier};
  return has_dims(filter, 4, filter_dims) && (bias == nullptr || has_dims(*bias, 1, bias_dims)) &&
         has_dims(out, 4, out_dims);
}

bool check_fully_connected(const ValueInfo& in, const ValueInfo& filter, const ValueInfo* bias,
                           const ValueInfo& out) {
  if (filter.rank != 2 || filter.dims[1] != in.dims[in.rank - 1]) return false;
  if (bias != nullptr && (bias->rank != 1 || bias->dims[0] != filter.dims[0])) return false;
  if (out.rank != in.rank || out.dims[out.rank - 1] != filter.dims[0]) return false;
  for (uint32_t d = 0; d + 1 < in.rank; ++d) {
    if (out.dims[d] != in.dims[d]) return false;
  }
  return true;
}

// Numpy broadcasting, aligned at the last dimension.
bool check_broadcast(const ValueInfo& a, const ValueInfo& b, const ValueInfo& out) {
  const uint32_t rank = a.rank > b.rank ? a.rank : b.rank;
  if (out.rank != rank) return false;
  for (uint32_t i = 0; i < rank; ++i) {
    const uint32_t da = i < a.rank ? a.dims[a.rank - 1 - i] : 1;
    const uint32_t db = i < b.rank ? b.dims[b.rank - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return false;
    if (out.dims[rank - 1 - i] != (da == 1 ? db : da)) return false;
  }
  return true;
}

bool check_pool(const NodeInfo& n, const ValueInfo& in, const ValueInfo& out, bool dilation) {
  uint64_t oh = 0, ow = 0;
  if (!spatial_extent(n, in, dilation, &oh, &ow)) return false;
  const uint32_t* p = n.params;
  // A pooling window lying wholly in the padding has no input to read.
  if (p[0] >= p[4] || p[2] >= p[4] || p[1] >= p[5] || p[3] >= p[5]) return false;
  if (uint64_t{p[4]} * p[5] < 2) return false;  // XNNPACK rejects 1x1 pooling
  const uint64_t out_dims[4] = {in.dims[0], oh, ow, in.dims[3]};
  return has_dims(out, 4, out_dims);
}

bool check_pad(const NodeInfo& n, const ValueInfo& in, const ValueInfo& out) {
  if (n.num_params != 1 + 2 * in.rank || out.rank != in.rank) return false;
  for (uint32_t d = 0; d < in.rank; ++d) {
    const uint64_t want = uint64_t{in.dims[d]} + n.params[1 + d] + n.params[1 + in.rank + d];
    if (out.dims[d] != want) return false;
  }
  return true;
}

bool check_shapes(const NodeInfo& n, const ValueInfo* const* in, const ValueInfo& out) {
  switch (n.op) {
    case OpCode::Conv2d:
      return check_conv(n, *in[0], *in[1], in[2], out);
    case OpCode::DepthwiseConv2d:
      return check_depthwise(n, *in[0], *in[1], in[2], out);
    case OpCode::Deconv2d:
      return check_deconv(n, *in[0], *in[1], in[2], out);
    case OpCode::FullyConnected:
      return check_fully_connected(*in[0], *in[1], in[2], out);
    case OpCode::Add:
    case OpCode::Subtract:
    case OpCode::Multiply:
    case OpCode::Divide:
    case OpCode::Maximum:
    case OpCode::Minimum:
      return check_broadcast(*in[0], *in[1], out);
    case OpCode::GlobalAvgPool2d: {
      const uint64_t dims[4] = {in[0]->dims[0], 1, 1, in[0]->dims[3]};
      return in[0]->rank == 4 && has_dims(out, 4, dims);
    }
    case OpCode::MaxPool2d:
      return check_pool(n, *in[0], out, true);
    case OpCode::AvgPool2d:
      return check_pool(n, *in[0], out, false);
    case OpCode::ConstantPad:
      return check_pad(n, *in[0], out);
    case OpCode::Reshape:
      return in[0]->numel == out.numel;
    case OpCode::Convert:
      return same_dims(*in[0], out);
    case OpCode::ResizeBilinear2d:
      return in[0]->rank == 4 && out.rank == 4 && out.dims[0] == in[0]->dims[0] &&
             out.dims[3] == in[0]->dims[3] && n.params[0] <= 1;
    default:  // elementwise unary operators keep the shape
      return same_dims(*in[0], out);
  }
}

// ---- datatypes ------------------------------------------------------------------

bool is_f32(const ValueInfo* v) { return v == nullptr || v->dtype == DataType::Float32; }
bool is_q8(const ValueInfo& v) { return v.dtype == DataType::QInt8; }
bool same_qparams(const ValueInfo& a, const ValueInfo& b) {
  return is_q8(a) && is_q8(b) && a.scale == b.scale && a.zero_point == b.zero_point;
}
bool ratio_in(double ratio, double low, double high) { return ratio >= low && ratio < high; }

// XNNPACK's qc8 convolution: QCInt8 filter with its channel dim where
// XNNPACK expects it, an optional QCInt32 bias whose scales are input scale
// times filter scale, and per-channel requantization scales it accepts
// (input * filter / output < 256). Returns nullptr or what is wrong.
const char* check_qc8_conv(const ValueInfo& in, const ValueInfo& filter, const ValueInfo* bias,
                           const ValueInfo& out, uint32_t channel_dim) {
  if (!is_q8(out)) return "a quantized convolution must write a qint8 output";
  if (filter.dtype != DataType::QCInt8 || filter.channel_dim != channel_dim) {
    return "the filter of a quantized convolution must be qcint8, quantized along its output "
           "channel dim (0; 3 for depthwise)";
  }
  if (bias != nullptr && (bias->dtype != DataType::QCInt32 || bias->channel_dim != 0)) {
    return "the bias of a quantized convolution must be qcint32 along dim 0";
  }
  // Shapes were checked first: the bias has one entry (and scale) per filter channel.
  const uint32_t channels = filter.dims[channel_dim];
  for (uint32_t c = 0; c < channels; ++c) {
    const double product = static_cast<double>(in.scale) * filter.channel_scales[c];
    if (!ratio_in(product / out.scale, 0x1.0p-32, 256.0)) {
      return "input scale * filter scale / output scale must lie in [2^-32, 256) for every "
             "channel (XNNPACK's requantization range)";
    }
    if (bias != nullptr && std::fabs(bias->channel_scales[c] - product) > 1e-4 * product) {
      return "bias scale[c] must equal input scale * filter scale[c]";
    }
  }
  return nullptr;
}

// Returns nullptr when the node's datatypes are a combination this
// XNNPACK runs (see blob_format.h), else what is wrong.
const char* check_types(const NodeInfo& n, const ValueInfo* const* in, const ValueInfo& out) {
  const ValueInfo& x = *in[0];
  if (x.dtype == DataType::QCInt8 || x.dtype == DataType::QCInt32 ||
      out.dtype == DataType::QCInt8 || out.dtype == DataType::QCInt32) {
    return "per-channel quantized values may only be convolution filters and biases";
  }
  switch (n.op) {
    case OpCode::Conv2d:
    case OpCode::DepthwiseConv2d:
      if (is_f32(&x)) {
        return is_f32(in[1]) && is_f32(in[2]) && is_f32(&out)
                   ? nullptr
                   : "a float32 convolution needs float32 filter, bias and output";
      }
      return check_qc8_conv(x, *in[1], in[2], out, n.op == OpCode::Conv2d ? 0 : 3);
    case OpCode::Convert:
      return (is_f32(&x) && is_q8(out)) || (is_q8(x) && is_f32(&out))
                 ? nullptr
                 : "convert goes from float32 to qint8 or from qint8 to float32";
    case OpCode::Add:
    case OpCode::Subtract:
      if (is_q8(x) && is_q8(*in[1]) && is_q8(out)) {
        return ratio_in(static_cast<double>(x.scale) / out.scale, 0x1.0p-10, 256.0) &&
                       ratio_in(static_cast<double>(in[1]->scale) / out.scale, 0x1.0p-10, 256.0)
                   ? nullptr
                   : "quantized add/subtract needs input/output scale ratios in [2^-10, 256)";
      }
      break;
    case OpCode::Multiply:
      if (is_q8(x) && is_q8(*in[1]) && is_q8(out)) return nullptr;
      break;
    case OpCode::GlobalAvgPool2d:
      if (is_q8(x) && is_q8(out)) {
        return ratio_in(static_cast<double>(x.scale) / out.scale, 0x1.0p-8, 256.0)
                   ? nullptr
                   : "quantized global average pooling needs an input/output scale ratio in "
                     "[2^-8, 256)";
      }
      break;
    case OpCode::Clamp:
    case OpCode::MaxPool2d:
    case OpCode::Reshape:
    case OpCode::ConstantPad:
      if (is_q8(x) || is_q8(out)) {
        return same_qparams(x, out) ? nullptr
                                    : "quantized clamp/max pooling/reshape/pad move integers: "
                                      "input and output need the same scale and zero point";
      }
      break;
    default:
      break;
  }
  for (uint32_t i = 0; i < n.num_ids - 1; ++i) {
    if (!is_f32(in[i])) return "this operator runs on float32 values only";
  }
  return is_f32(&out) ? nullptr : "this operator runs on float32 values only";
}

}  // namespace

const char* op_name(OpCode op) {
  const uint32_t i = static_cast<uint32_t>(op);
  return i <= kMaxOpCode ? kSpecs[i].name : "unknown";
}

Error validate_node(const NodeInfo& n, uint32_t index, ParsedBlob& parsed) {
  const OpSpec& spec = kSpecs[static_cast<uint32_t>(n.op)];
  TE_CHECK_OR_RETURN(n.num_ids == spec.num_inputs + 1u, kBadBlob,
                     "xnnpack blob: node %u (%s) has %u value ids, expected %u", index, spec.name,
                     n.num_ids, spec.num_inputs + 1u);
  const ValueInfo* inputs[kMaxNodeIds] = {nullptr, nullptr, nullptr, nullptr};
  for (uint32_t i = 0; i < spec.num_inputs; ++i) {
    const uint32_t id = n.ids[i];
    const bool weight = (spec.weight_mask >> i) & 1;
    if (id == kNoValue && ((spec.optional_mask >> i) & 1)) continue;
    TE_CHECK_OR_RETURN(id < parsed.num_values && parsed.values[id].defined, kBadBlob,
                       "xnnpack blob: node %u (%s) input %u reads value %u, which is out of range "
                       "or not yet produced",
                       index, spec.name, i, id);
    TE_CHECK_OR_RETURN(!weight || parsed.values[id].kind == ValueKind::Constant, kBadBlob,
                       "xnnpack blob: node %u (%s) input %u must be a constant (weights are "
                       "packed at init)",
                       index, spec.name, i);
    inputs[i] = &parsed.values[id];
  }
  const uint32_t out_id = n.ids[spec.num_inputs];
  TE_CHECK_OR_RETURN(out_id < parsed.num_values && !parsed.values[out_id].defined &&
                         (parsed.values[out_id].kind == ValueKind::Internal ||
                          parsed.values[out_id].kind == ValueKind::Output),
                     kBadBlob,
                     "xnnpack blob: node %u (%s) writes value %u, which is out of range, an input, "
                     "a constant or already produced",
                     index, spec.name, out_id);
  const int expected_params =
      spec.num_params >= 0 ? spec.num_params : static_cast<int>(1 + 2 * inputs[0]->rank);
  TE_CHECK_OR_RETURN(static_cast<int>(n.num_params) == expected_params, kBadBlob,
                     "xnnpack blob: node %u (%s) has %u parameters, expected %d", index, spec.name,
                     n.num_params, expected_params);
  ValueInfo& out = parsed.values[out_id];
  TE_CHECK_OR_RETURN(check_shapes(n, inputs, out), kBadBlob,
                     "xnnpack blob: node %u (%s): shapes and parameters disagree (output value "
                     "%u)",
                     index, spec.name, out_id);
  const char* type_problem = check_types(n, inputs, out);
  TE_CHECK_OR_RETURN(type_problem == nullptr, kBadBlob, "xnnpack blob: node %u (%s): %s", index,
                     spec.name, type_problem);
  for (uint32_t i = 0; i < spec.num_inputs; ++i) {
    if (inputs[i] != nullptr && !((spec.weight_mask >> i) & 1) &&
        inputs[i]->kind == ValueKind::Constant) {
      parsed.values[n.ids[i]].read_at_run = true;
    }
  }
  out.defined = true;
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace torchedge
