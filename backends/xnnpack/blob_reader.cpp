#include "backends/xnnpack/blob_reader.h"

#include <cmath>
#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {
namespace xnnpack {

namespace {

constexpr Error kBadBlob = Error::DelegateInvalidCompatibility;

// A cursor over untrusted bytes: every read checks the remaining length
// first, and a failed read leaves the cursor where it was.
class Cursor {
 public:
  Cursor(Span<const uint8_t> bytes, size_t pos) : bytes_(bytes), pos_(pos) {}
  bool u32(uint32_t* out) { return take(out, 4); }
  bool u64(uint64_t* out) { return take(out, 8); }
  bool f32(float* out) { return take(out, 4); }
  bool i32(int32_t* out) { return take(out, 4); }
  size_t pos() const { return pos_; }

 private:
  bool take(void* out, size_t n) {
    if (pos_ > bytes_.size() || bytes_.size() - pos_ < n) return false;
    memcpy(out, bytes_.data() + pos_, n);  // blob bytes may be unaligned
    pos_ += n;
    return true;
  }
  Span<const uint8_t> bytes_;
  size_t pos_;
};

bool read_dims(Cursor& c, uint32_t* rank, uint32_t* dims, uint64_t* numel) {
  if (!c.u32(rank) || *rank > kMaxDims) return false;
  uint64_t n = 1;
  for (uint32_t d = 0; d < *rank; ++d) {
    // Zero-sized dims are rejected: XNNPACK operators do not accept them.
    if (!c.u32(&dims[d]) || dims[d] == 0) return false;
    n *= dims[d];
    if (n > kMaxElements) return false;
  }
  *numel = n;
  return true;
}

// XNNPACK accepts only normal, positive scales (it divides by them).
bool good_scale(float s) { return std::isnormal(s) && s > 0.0f; }

// Version 2: datatype and its quantization parameters (the scales of a
// channelwise value follow its dims, so they are read after them).
Error parse_dtype(Cursor& c, uint32_t index, ValueInfo* v) {
  uint32_t dtype = 0;
  TE_CHECK_OR_RETURN(c.u32(&dtype) && dtype <= kMaxDataType, kBadBlob,
                     "xnnpack blob: value %u has a bad datatype (%u; 0..%u)", index, dtype,
                     kMaxDataType);
  v->dtype = static_cast<DataType>(dtype);
  if (v->dtype == DataType::QInt8) {
    TE_CHECK_OR_RETURN(c.f32(&v->scale) && c.i32(&v->zero_point), kBadBlob,
                       "xnnpack blob: value %u: quantization parameters truncated", index);
    TE_CHECK_OR_RETURN(good_scale(v->scale), kBadBlob,
                       "xnnpack blob: value %u: quantization scale %g must be finite, normal "
                       "and > 0",
                       index, static_cast<double>(v->scale));
    TE_CHECK_OR_RETURN(v->zero_point >= -128 && v->zero_point <= 127, kBadBlob,
                       "xnnpack blob: value %u: int8 zero point %d outside [-128, 127]", index,
                       static_cast<int>(v->zero_point));
  }
  return Error::Ok;
}

Error parse_channel_scales(Cursor& c, uint32_t index, MemoryAllocator* allocator, ValueInfo* v) {
  TE_CHECK_OR_RETURN(c.u32(&v->channel_dim), kBadBlob,
                     "xnnpack blob: value %u: channel dim truncated", index);
  TE_CHECK_OR_RETURN(v->channel_dim < v->rank, kBadBlob,
                     "xnnpack blob: value %u: channel dim %u outside its rank %u", index,
                     v->channel_dim, v->rank);
  TE_CHECK_OR_RETURN(v->kind == ValueKind::Constant, kBadBlob,
                     "xnnpack blob: value %u: per-channel quantized values must be constants "
                     "(weights or biases)",
                     index);
  const uint32_t channels = v->dims[v->channel_dim];
  float* scales = allocator->allocate_array<float>(channels);
  TE_CHECK_OR_RETURN(scales != nullptr, Error::MemoryAllocationFailed,
                     "xnnpack delegate: method allocator exhausted for %u channel scales",
                     channels);
  for (uint32_t i = 0; i < channels; ++i) {
    TE_CHECK_OR_RETURN(c.f32(&scales[i]), kBadBlob,
                       "xnnpack blob: value %u: %u channel scales expected, record truncated",
                       index, channels);
    TE_CHECK_OR_RETURN(good_scale(scales[i]), kBadBlob,
                       "xnnpack blob: value %u: channel %u scale %g must be finite, normal and "
                       "> 0",
                       index, i, static_cast<double>(scales[i]));
  }
  v->channel_scales = scales;
  return Error::Ok;
}

Error parse_value(Cursor& c, uint32_t index, const ParsedBlob& p, Span<const uint8_t> data,
                  MemoryAllocator* allocator, ValueInfo* v) {
  uint32_t kind = 0;
  TE_CHECK_OR_RETURN(c.u32(&kind) && kind <= static_cast<uint32_t>(ValueKind::Constant), kBadBlob,
                     "xnnpack blob: value %u has a bad kind", index);
  v->kind = static_cast<ValueKind>(kind);
  v->dtype = DataType::Float32;
  v->scale = 1.0f;
  v->zero_point = 0;
  v->channel_dim = 0;
  v->channel_scales = nullptr;
  if (p.version >= 2) TE_RETURN_IF_ERROR(parse_dtype(c, index, v));
  TE_CHECK_OR_RETURN(read_dims(c, &v->rank, v->dims, &v->numel) && v->rank > 0, kBadBlob,
                     "xnnpack blob: value %u has bad dims (rank 1..%u, sizes >= 1)", index,
                     kMaxDims);
  if (v->dtype == DataType::QCInt8 || v->dtype == DataType::QCInt32) {
    TE_RETURN_IF_ERROR(parse_channel_scales(c, index, allocator, v));
  }
  const ValueKind expected = index < p.num_inputs                   ? ValueKind::Input
                             : index < p.num_inputs + p.num_outputs ? ValueKind::Output
                                                                    : ValueKind::Internal;
  const bool external = expected != ValueKind::Internal;
  TE_CHECK_OR_RETURN(
      external ? v->kind == expected
               : (v->kind == ValueKind::Internal || v->kind == ValueKind::Constant),
      kBadBlob, "xnnpack blob: value %u has kind %u where the value table expects %s", index,
      kind, external ? "an input or output" : "an internal value or constant");
  v->boundary = Boundary::Direct;
  v->tensor_rank = 0;
  v->data = nullptr;
  v->xnn_id = kNoValue;
  v->defined = v->kind == ValueKind::Input || v->kind == ValueKind::Constant;
  v->read_at_run = false;
  if (external) {
    uint32_t boundary = 0;
    uint64_t tensor_numel = 0;
    TE_CHECK_OR_RETURN(c.u32(&boundary) && boundary <= 1 &&
                           read_dims(c, &v->tensor_rank, v->tensor_dims, &tensor_numel) &&
                           tensor_numel == v->numel,
                       kBadBlob,
                       "xnnpack blob: external value %u: bad boundary or tensor sizes (the "
                       "tensor must hold as many elements as the value)",
                       index);
    v->boundary = static_cast<Boundary>(boundary);
    if (v->boundary == Boundary::NchwToNhwc) {
      const uint32_t* t = v->tensor_dims;
      TE_CHECK_OR_RETURN(v->rank == 4 && v->tensor_rank == 4 && v->dims[0] == t[0] &&
                             v->dims[1] == t[2] && v->dims[2] == t[3] && v->dims[3] == t[1],
                         kBadBlob,
                         "xnnpack blob: external value %u: NCHW<->NHWC boundary needs NHWC "
                         "dims that permute the tensor's NCHW sizes",
                         index);
    }
  } else if (v->kind == ValueKind::Constant) {
    uint64_t offset = 0;
    TE_CHECK_OR_RETURN(c.u64(&offset), kBadBlob, "xnnpack blob: constant %u truncated", index);
    const uint64_t nbytes = v->numel * element_size(v->dtype);
    TE_CHECK_OR_RETURN(offset <= data.size() && nbytes <= data.size() - offset, kBadBlob,
                       "xnnpack blob: constant %u ([%llu, +%llu) bytes) lies outside the %zu-byte "
                       "data section",
                       index, static_cast<unsigned long long>(offset),
                       static_cast<unsigned long long>(nbytes), data.size());
    v->data = data.data() + offset;
  }
  return Error::Ok;
}

}  // namespace

float NodeInfo::float_param(uint32_t i) const {
  float f;
  memcpy(&f, &params[i], sizeof(f));
  return f;
}

Result<ParsedBlob> parse_blob(Span<const uint8_t> blob, MemoryAllocator* allocator) {
  TE_CHECK_OR_RETURN(blob.size() >= kHeaderBytes && memcmp(blob.data(), kBlobMagic, 4) == 0,
                     kBadBlob, "not an XNNPACK delegate blob (expected magic 'TEX1', %zu bytes)",
                     blob.size());
  Cursor c(blob, 4);
  uint32_t version = 0;
  ParsedBlob p;
  uint64_t data_offset = 0;
  c.u32(&version);
  TE_CHECK_OR_RETURN(version >= kMinBlobVersion && version <= kBlobVersion, kBadBlob,
                     "xnnpack blob version %u; this runtime reads versions %u to %u", version,
                     kMinBlobVersion, kBlobVersion);
  p.version = version;
  c.u32(&p.num_values);
  c.u32(&p.num_inputs);
  c.u32(&p.num_outputs);
  c.u32(&p.num_nodes);
  c.u64(&data_offset);
  TE_CHECK_OR_RETURN(p.num_values <= kMaxValues && p.num_nodes <= kMaxNodes &&
                         p.num_inputs <= p.num_values &&
                         p.num_outputs <= p.num_values - p.num_inputs && p.num_outputs > 0,
                     kBadBlob,
                     "xnnpack blob: bad counts (%u values, %u inputs, %u outputs, %u nodes)",
                     p.num_values, p.num_inputs, p.num_outputs, p.num_nodes);
  TE_CHECK_OR_RETURN(data_offset >= kHeaderBytes && data_offset <= blob.size() &&
                         data_offset % 16 == 0,
                     kBadBlob, "xnnpack blob: data offset %llu outside the %zu-byte blob",
                     static_cast<unsigned long long>(data_offset), blob.size());
  const Span<const uint8_t> head(blob.data(), static_cast<size_t>(data_offset));
  const Span<const uint8_t> data(blob.data() + data_offset, blob.size() - data_offset);

  p.values = allocator->allocate_array<ValueInfo>(p.num_values + 1);
  TE_CHECK_OR_RETURN(p.values != nullptr, Error::MemoryAllocationFailed,
                     "xnnpack delegate: method allocator exhausted for %u values", p.num_values);
  Cursor values(head, kHeaderBytes);
  for (uint32_t i = 0; i < p.num_values; ++i) {
    TE_RETURN_IF_ERROR(parse_value(values, i, p, data, allocator, &p.values[i]));
  }
  p.node_section = Span<const uint8_t>(head.data() + values.pos(), head.size() - values.pos());
  return p;
}

Error NodeReader::next(NodeInfo* out) {
  TE_CHECK_OR_RETURN(remaining_ > 0, kBadBlob, "xnnpack blob: read past the last node");
  Cursor c(section_, pos_);
  uint32_t op = 0;
  bool ok = c.u32(&op) && op >= 1 && op <= kMaxOpCode && c.u32(&out->num_ids) &&
            out->num_ids <= kMaxNodeIds && c.u32(&out->num_params) &&
            out->num_params <= kMaxNodeParams;
  out->debug_handle = index_;
  if (ok && version_ >= 3) ok = c.u32(&out->debug_handle);
  for (uint32_t i = 0; ok && i < out->num_ids; ++i) ok = c.u32(&out->ids[i]);
  for (uint32_t i = 0; ok && i < out->num_params; ++i) ok = c.u32(&out->params[i]);
  TE_CHECK_OR_RETURN(ok, kBadBlob,
                     "xnnpack blob: node %u is truncated or malformed (opcode %u, at most %u "
                     "values and %u parameters)",
                     index_, op, kMaxNodeIds, kMaxNodeParams);
  out->op = static_cast<OpCode>(op);
  pos_ = c.pos();
  --remaining_;
  ++index_;
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace torchedge
