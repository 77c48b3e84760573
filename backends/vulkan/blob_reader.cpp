#include "backends/vulkan/blob_reader.h"

#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {
namespace vulkan {

namespace {

constexpr Error kBad = Error::DelegateInvalidCompatibility;

uint32_t read_u32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

uint64_t read_u64(const uint8_t* p) { return uint64_t{read_u32(p)} | uint64_t{read_u32(p + 4)} << 32; }

// Per shader: how many ids (output first) and parameters a record has, and
// which id slots may be kNoTensor.
struct ShaderSignature {
  const char* name;
  uint32_t num_ids;
  uint32_t num_params;
  uint32_t optional_ids;  // bit i: slot i may be kNoTensor
};

constexpr ShaderSignature kSignatures[kNumShaders] = {
    {"unary", 2, 4, 0},     {"binary", 4, 27, 1u << 3},    {"copy", 2, 21, 0},
    {"matmul", 4, 20, 1u << 3}, {"conv2d", 4, 20, 1u << 3}, {"pool2d", 2, 16, 0},
    {"softmax", 2, 4, 0},   {"norm", 4, 6, (1u << 2) | (1u << 3)}, {"reduce", 2, 4, 0},
    {"resize", 2, 9, 0},
};

// Overflow-checked arithmetic in 64 bits: every bound below stays far under
// 2^63 once operands pass kMaxElements, but a hostile blob may not.
bool mul(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool add(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }

// The context of one op's checks: its record and the tensors it binds.
class OpCheck {
 public:
  OpCheck(uint32_t index, const OpInfo& op, const TensorInfo* tensors)
      : index_(index), op_(op), tensors_(tensors) {}

  const uint32_t* p() const { return op_.params; }

  uint64_t numel(uint32_t slot) const { return tensors_[op_.ids[slot]].numel; }
  bool bound(uint32_t slot) const { return op_.ids[slot] != kNoTensor; }

  // The product of params [first, first + count), checked.
  Error product(uint32_t first, uint32_t count, uint64_t* out) const {
    uint64_t r = 1;
    for (uint32_t i = 0; i < count; ++i) {
      TE_CHECK_OR_RETURN(mul(r, p()[first + i], &r) && r <= kMaxElements, kBad,
                         "vulkan blob: op %u (%s): parameter product overflows", index_,
                         kSignatures[static_cast<uint32_t>(op_.shader)].name);
    }
    *out = r;
    return Error::Ok;
  }

  // Slot `slot` must hold exactly `expected` elements.
  Error equals(uint32_t slot, uint64_t expected) const {
    TE_CHECK_OR_RETURN(numel(slot) == expected, kBad,
                       "vulkan blob: op %u (%s): tensor in slot %u has %llu elements, the "
                       "parameters describe %llu",
                       index_, name(), slot, static_cast<unsigned long long>(numel(slot)),
                       static_cast<unsigned long long>(expected));
    return Error::Ok;
  }

  // Element `last` (the largest index the shader can compute for the slot)
  // must lie inside the slot's tensor.
  Error reaches(uint32_t slot, uint64_t last) const {
    TE_CHECK_OR_RETURN(last < numel(slot), kBad,
                       "vulkan blob: op %u (%s): parameters reach element %llu of the tensor in "
                       "slot %u, which has %llu",
                       index_, name(), static_cast<unsigned long long>(last), slot,
                       static_cast<unsigned long long>(numel(slot)));
    return Error::Ok;
  }

  // Largest offset reached by a strided walk over dims (p[dims..dims+6))
  // with strides (p[strides..strides+6)) plus `base`.
  Error strided_last(uint32_t dims, uint32_t strides, uint64_t base, uint64_t* out) const {
    uint64_t last = base;
    for (uint32_t d = 0; d < kMaxDims; ++d) {
      uint64_t step = 0;
      TE_CHECK_OR_RETURN(p()[dims + d] >= 1 && mul(p()[dims + d] - 1, p()[strides + d], &step) &&
                             add(last, step, &last),
                         kBad, "vulkan blob: op %u (%s): dim %u is 0 or its stride overflows",
                         index_, name(), d);
    }
    *out = last;
    return Error::Ok;
  }

  Error require(bool ok, const char* what) const {
    TE_CHECK_OR_RETURN(ok, kBad, "vulkan blob: op %u (%s): %s", index_, name(), what);
    return Error::Ok;
  }

  const char* name() const { return kSignatures[static_cast<uint32_t>(op_.shader)].name; }

 private:
  uint32_t index_;
  const OpInfo& op_;
  const TensorInfo* tensors_;
};

Error check_elementwise_strided(const OpCheck& c, uint32_t numel_at, uint32_t dims_at,
                                uint32_t sa, uint64_t base_a, uint32_t sb, uint64_t base_b,
                                bool out_strided, uint32_t out_strides, uint64_t out_base) {
  uint64_t numel = 0;
  TE_RETURN_IF_ERROR(c.product(dims_at, kMaxDims, &numel));
  TE_RETURN_IF_ERROR(c.require(numel == c.p()[numel_at], "numel is not the product of the dims"));
  uint64_t last = 0;
  TE_RETURN_IF_ERROR(c.strided_last(dims_at, sa, base_a, &last));
  TE_RETURN_IF_ERROR(c.reaches(1, last));
  if (sb != 0) {
    TE_RETURN_IF_ERROR(c.strided_last(dims_at, sb, base_b, &last));
    TE_RETURN_IF_ERROR(c.reaches(2, last));
  }
  if (out_strided) {
    TE_RETURN_IF_ERROR(c.strided_last(dims_at, out_strides, out_base, &last));
    return c.reaches(0, last);
  }
  return c.equals(0, numel);
}

Error check_matmul(const OpCheck& c) {
  const uint32_t* p = c.p();
  const uint64_t M = p[0], N = p[1], K = p[2], B0 = p[3], B1 = p[4];
  TE_RETURN_IF_ERROR(c.require(M >= 1 && N >= 1 && K >= 1 && B0 >= 1 && B1 >= 1 && B1 <= 65535 &&
                                   B0 * B1 <= 65535,
                               "M, N, K, B0, B1 must be >= 1 and B0 * B1 <= 65535"));
  uint64_t out = 0;
  TE_RETURN_IF_ERROR(c.product(0, 2, &out));
  TE_RETURN_IF_ERROR(c.require(mul(out, B0 * B1, &out) && out <= kMaxElements, "output too large"));
  TE_RETURN_IF_ERROR(c.equals(0, out));
  // Largest index: (B0-1) s0 + (B1-1) s1 + (rows-1) s_row + (cols-1) s_col.
  auto last = [](uint64_t b0, uint64_t s0, uint64_t b1, uint64_t s1, uint64_t r, uint64_t sr,
                 uint64_t q, uint64_t sq, uint64_t* out) {
    uint64_t t[4];
    return mul(b0 - 1, s0, &t[0]) && mul(b1 - 1, s1, &t[1]) && mul(r - 1, sr, &t[2]) &&
           mul(q - 1, sq, &t[3]) && add(t[0], t[1], out) && add(*out, t[2], out) &&
           add(*out, t[3], out);
  };
  uint64_t a_last = 0, b_last = 0, bias_last = 0;
  TE_RETURN_IF_ERROR(c.require(last(B0, p[5], B1, p[6], M, p[7], K, p[8], &a_last), "A strides overflow"));
  TE_RETURN_IF_ERROR(c.reaches(1, a_last));
  TE_RETURN_IF_ERROR(c.require(last(B0, p[9], B1, p[10], K, p[11], N, p[12], &b_last), "B strides overflow"));
  TE_RETURN_IF_ERROR(c.reaches(2, b_last));
  TE_RETURN_IF_ERROR(c.require(p[15] <= 1 && p[17] <= kMaxUnaryOp, "has_bias or activation out of range"));
  TE_RETURN_IF_ERROR(c.require((p[15] != 0) == c.bound(3), "has_bias disagrees with the bias slot"));
  if (p[15] != 0) {
    TE_RETURN_IF_ERROR(c.require(last(1, 0, 1, 0, M, p[13], N, p[14], &bias_last), "bias strides overflow"));
    TE_RETURN_IF_ERROR(c.reaches(3, bias_last));
  }
  return Error::Ok;
}

Error check_conv2d(const OpCheck& c) {
  const uint32_t* p = c.p();
  const uint32_t groups = p[15];
  for (uint32_t i : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 13u, 14u, 15u}) {
    TE_RETURN_IF_ERROR(c.require(p[i] >= 1, "sizes, strides, dilations and groups must be >= 1"));
  }
  TE_RETURN_IF_ERROR(c.require(p[1] % groups == 0 && p[4] % groups == 0,
                               "groups must divide the input and output channels"));
  TE_RETURN_IF_ERROR(c.require(p[4] <= 65535 && p[0] <= 65535, "Cout and N must be <= 65535"));
  TE_RETURN_IF_ERROR(c.require(p[11] <= 1u << 20 && p[12] <= 1u << 20, "padding too large"));
  TE_RETURN_IF_ERROR(c.require(p[16] <= 1 && p[17] <= kMaxUnaryOp, "has_bias or activation out of range"));
  TE_RETURN_IF_ERROR(c.require((p[16] != 0) == c.bound(3), "has_bias disagrees with the bias slot"));
  uint64_t in = 0, out = 0, w = 0;
  TE_RETURN_IF_ERROR(c.product(0, 4, &in));
  TE_RETURN_IF_ERROR(c.equals(1, in));
  const uint32_t out_dims[4] = {p[0], p[4], p[5], p[6]};
  out = 1;
  for (uint32_t d : out_dims) TE_RETURN_IF_ERROR(c.require(mul(out, d, &out) && out <= kMaxElements, "output too large"));
  TE_RETURN_IF_ERROR(c.equals(0, out));
  const uint64_t w_dims[4] = {p[4], p[1] / groups, p[7], p[8]};
  w = 1;
  for (uint64_t d : w_dims) TE_RETURN_IF_ERROR(c.require(mul(w, d, &w) && w <= kMaxElements, "weight too large"));
  TE_RETURN_IF_ERROR(c.equals(2, w));
  if (p[16] != 0) TE_RETURN_IF_ERROR(c.reaches(3, p[4] - 1));
  return Error::Ok;
}

Error check_pool2d(const OpCheck& c) {
  const uint32_t* p = c.p();
  for (uint32_t i : {0u, 1u, 2u, 3u, 4u}) TE_RETURN_IF_ERROR(c.require(p[i] >= 1, "sizes must be >= 1"));
  TE_RETURN_IF_ERROR(c.require(p[0] <= 65535, "planes (N * C) must be <= 65535"));
  TE_RETURN_IF_ERROR(c.require(p[13] <= 3 && p[14] <= 1, "mode or count_include_pad out of range"));
  if (p[13] <= 1) {
    for (uint32_t i : {5u, 6u, 7u, 8u, 11u, 12u}) {
      TE_RETURN_IF_ERROR(c.require(p[i] >= 1 && p[i] <= 1u << 16, "kernel, stride and dilation must be in [1, 65536]"));
    }
    TE_RETURN_IF_ERROR(c.require(p[9] <= 1u << 16 && p[10] <= 1u << 16, "padding too large"));
  }
  uint64_t in = 0, out = 0;
  TE_RETURN_IF_ERROR(c.product(0, 3, &in));
  TE_RETURN_IF_ERROR(c.equals(1, in));
  TE_RETURN_IF_ERROR(c.require(mul(uint64_t{p[0]} * p[3], p[4], &out) && out <= kMaxElements, "output too large"));
  return c.equals(0, out);
}

Error check_rows(const OpCheck& c, bool reduce_out) {
  // softmax / reduce: [outer, R, inner]
  uint64_t n = 0;
  TE_RETURN_IF_ERROR(c.product(0, 3, &n));
  TE_RETURN_IF_ERROR(c.require(c.p()[1] >= 1 && c.p()[3] <= 3, "reduced size must be >= 1, op <= 3"));
  TE_RETURN_IF_ERROR(c.equals(1, n));
  return c.equals(0, reduce_out ? uint64_t{c.p()[0]} * c.p()[2] : n);
}

Error check_norm(const OpCheck& c) {
  const uint32_t* p = c.p();
  uint64_t n = 0;
  TE_RETURN_IF_ERROR(c.product(0, 2, &n));
  TE_RETURN_IF_ERROR(c.require(p[1] >= 1 && p[3] <= 1 && p[4] <= 1 && p[5] <= 1, "cols must be >= 1, flags 0 or 1"));
  TE_RETURN_IF_ERROR(c.require((p[3] != 0) == c.bound(2) && (p[4] != 0) == c.bound(3), "flags disagree with the weight/bias slots"));
  TE_RETURN_IF_ERROR(c.equals(1, n));
  TE_RETURN_IF_ERROR(c.equals(0, n));
  if (p[3] != 0) TE_RETURN_IF_ERROR(c.reaches(2, p[1] - 1));
  if (p[4] != 0) TE_RETURN_IF_ERROR(c.reaches(3, p[1] - 1));
  return Error::Ok;
}

Error check_op_params(const OpCheck& c, Shader shader) {
  const uint32_t* p = c.p();
  switch (shader) {
    case Shader::Unary:
      TE_RETURN_IF_ERROR(c.require(p[0] <= kMaxUnaryOp && p[1] >= 1, "unknown unary op or empty tensor"));
      TE_RETURN_IF_ERROR(c.reaches(1, p[1] - 1));
      return c.equals(0, p[1]);
    case Shader::Binary: {
      TE_RETURN_IF_ERROR(c.require(p[0] <= 7, "unknown binary op"));
      TE_RETURN_IF_ERROR(c.require((p[0] == 7) == c.bound(3), "only where (op 7) has a mask"));
      if (p[0] == 7) {
        uint64_t last = 0;
        TE_RETURN_IF_ERROR(c.strided_last(3, 21, 0, &last));
        TE_RETURN_IF_ERROR(c.reaches(3, last));
      }
      return check_elementwise_strided(c, 1, 3, 9, 0, 15, 0, false, 0, 0);
    }
    case Shader::Copy:
      return check_elementwise_strided(c, 0, 1, 7, p[13], 0, 0, true, 14, p[20]);
    case Shader::Matmul:
      return check_matmul(c);
    case Shader::Conv2d:
      return check_conv2d(c);
    case Shader::Pool2d:
      return check_pool2d(c);
    case Shader::Softmax:
      TE_RETURN_IF_ERROR(c.require(p[3] <= 1, "log flag must be 0 or 1"));
      return check_rows(c, false);
    case Shader::Norm:
      return check_norm(c);
    case Shader::Reduce:
      return check_rows(c, true);
    case Shader::Resize: {
      // Source indices are clamped to [0, H - 1] x [0, W - 1] in the shader.
      TE_RETURN_IF_ERROR(c.require(p[0] >= 1 && p[1] >= 1 && p[2] >= 1 && p[3] >= 1 && p[4] >= 1 &&
                                       p[5] <= 1 && p[6] <= 1,
                                   "sizes must be >= 1, mode and align_corners 0 or 1"));
      uint64_t in = 0, out = 0;
      TE_RETURN_IF_ERROR(c.product(0, 3, &in));
      TE_RETURN_IF_ERROR(c.equals(1, in));
      TE_RETURN_IF_ERROR(c.require(mul(uint64_t{p[0]} * p[3], p[4], &out) && out <= kMaxElements,
                                   "output too large"));
      return c.equals(0, out);
    }
  }
  return c.require(false, "unknown shader");
}

Error parse_tensor(const uint8_t* rec, uint32_t id, const ParsedBlob& blob, TensorInfo* tensors) {
  TensorInfo& t = tensors[id];
  const uint32_t kind = read_u32(rec);
  t.rank = read_u32(rec + 4);
  TE_CHECK_OR_RETURN(kind <= kMaxTensorKind, kBad, "vulkan blob: tensor %u: kind %u, expected <= %u",
                     id, kind, kMaxTensorKind);
  TE_CHECK_OR_RETURN(t.rank <= kMaxDims, kBad, "vulkan blob: tensor %u: rank %u, expected <= %u",
                     id, t.rank, kMaxDims);
  t.kind = static_cast<TensorKind>(kind);
  t.numel = 1;
  for (uint32_t d = 0; d < kMaxDims; ++d) {
    t.dims[d] = read_u32(rec + 8 + 4 * d);
    if (d >= t.rank) continue;
    TE_CHECK_OR_RETURN(mul(t.numel, t.dims[d], &t.numel) && t.numel <= kMaxElements, kBad,
                       "vulkan blob: tensor %u: more than %llu elements", id,
                       static_cast<unsigned long long>(kMaxElements));
  }
  TE_CHECK_OR_RETURN(t.numel >= 1, kBad, "vulkan blob: tensor %u: has no elements", id);
  const uint64_t a = read_u64(rec + 32);
  const uint64_t b = read_u64(rec + 40);
  const uint32_t dtype = read_u32(rec + 48);
  const uint32_t reserved = read_u32(rec + 52);
  TE_CHECK_OR_RETURN(dtype == kDtypeFloat32 || dtype == kDtypeFloat16, kBad,
                     "vulkan blob: tensor %u: dtype code %u, expected %u (float32) or %u (float16)",
                     id, dtype, kDtypeFloat32, kDtypeFloat16);
  TE_CHECK_OR_RETURN(reserved == 0, kBad, "vulkan blob: tensor %u: reserved word is %u, expected 0",
                     id, reserved);
  t.float16 = dtype == kDtypeFloat16;
  const uint64_t elem = element_bytes(t);
  const bool is_input = id < blob.num_inputs;
  const bool is_output = !is_input && id < blob.num_inputs + blob.num_outputs;
  const TensorKind expected =
      is_input ? TensorKind::Input : (is_output ? TensorKind::Output : t.kind);
  TE_CHECK_OR_RETURN(t.kind == expected && (is_input || is_output ||
                                            (t.kind != TensorKind::Input && t.kind != TensorKind::Output)),
                     kBad, "vulkan blob: tensor %u: kind %u where the header places %s", id, kind,
                     is_input ? "an input" : (is_output ? "an output" : "an internal tensor"));
  t.const_offset = 0;
  t.alias_of = id;
  if (t.kind == TensorKind::Constant) {
    uint64_t end = 0;
    TE_CHECK_OR_RETURN(b == t.numel * elem && add(a, b, &end) && end <= blob.data_size &&
                           a % 4 == 0,
                       kBad,
                       "vulkan blob: tensor %u: constant bytes [%llu, +%llu) must be 4-aligned, "
                       "numel * %llu = %llu and inside the %llu-byte data section",
                       id, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b),
                       static_cast<unsigned long long>(elem),
                       static_cast<unsigned long long>(t.numel * elem),
                       static_cast<unsigned long long>(blob.data_size));
    t.const_offset = a;
  } else if (t.kind == TensorKind::Alias) {
    TE_CHECK_OR_RETURN(a < id, kBad, "vulkan blob: tensor %u: aliases tensor %llu, expected an "
                       "earlier one", id, static_cast<unsigned long long>(a));
    const TensorInfo& base = tensors[a];
    TE_CHECK_OR_RETURN(base.numel == t.numel, kBad,
                       "vulkan blob: tensor %u: %llu elements, but its alias target %llu has %llu",
                       id, static_cast<unsigned long long>(t.numel),
                       static_cast<unsigned long long>(a),
                       static_cast<unsigned long long>(base.numel));
    TE_CHECK_OR_RETURN(base.float16 == t.float16 || (blob.flags & kFlagFloat16Compute) != 0, kBad,
                       "vulkan blob: tensor %u: dtype %s, but its alias target %llu is %s", id,
                       t.float16 ? "float16" : "float32", static_cast<unsigned long long>(a),
                       base.float16 ? "float16" : "float32");
    t.alias_of = base.alias_of;
  }
  return Error::Ok;
}

Error parse_op(const uint8_t* rec, uint32_t index, const ParsedBlob& blob, OpInfo* op) {
  const uint32_t shader = read_u32(rec);
  TE_CHECK_OR_RETURN(shader < kNumShaders, kBad, "vulkan blob: op %u: shader %u, expected < %u",
                     index, shader, kNumShaders);
  const ShaderSignature& sig = kSignatures[shader];
  op->shader = static_cast<Shader>(shader);
  op->debug_handle = read_u32(rec + 4);
  op->num_ids = read_u32(rec + 8);
  TE_CHECK_OR_RETURN(op->num_ids == sig.num_ids, kBad,
                     "vulkan blob: op %u (%s): %u tensor ids, expected %u", index, sig.name,
                     op->num_ids, sig.num_ids);
  for (uint32_t i = 0; i < kMaxOpIds; ++i) {
    op->ids[i] = read_u32(rec + 12 + 4 * i);
    if (i >= sig.num_ids) {
      op->ids[i] = kNoTensor;
      continue;
    }
    const bool may_be_empty = (sig.optional_ids >> i) & 1u;
    TE_CHECK_OR_RETURN(op->ids[i] < blob.num_tensors || (may_be_empty && op->ids[i] == kNoTensor),
                       kBad, "vulkan blob: op %u (%s): id %u in slot %u, expected < %u", index,
                       sig.name, op->ids[i], i, blob.num_tensors);
  }
  const TensorInfo& out = blob.tensors[op->ids[0]];
  TE_CHECK_OR_RETURN(out.kind == TensorKind::Internal || out.kind == TensorKind::Output, kBad,
                     "vulkan blob: op %u (%s): writes tensor %u of kind %u; only internal and "
                     "output tensors are written",
                     index, sig.name, op->ids[0], static_cast<uint32_t>(out.kind));
  // One shader variant per dtype: an op cannot mix them, except under
  // kFlagFloat16Compute, where every tensor is float16 on the device (or,
  // without device float16, every tensor of a blob that passed is float32).
  for (uint32_t i = 1; i < sig.num_ids && (blob.flags & kFlagFloat16Compute) == 0; ++i) {
    if (op->ids[i] == kNoTensor) continue;
    const bool half = blob.tensors[op->ids[i]].float16;
    TE_CHECK_OR_RETURN(half == out.float16, kBad,
                       "vulkan blob: op %u (%s): tensor %u in slot %u is %s, the output %u is %s",
                       index, sig.name, op->ids[i], i, half ? "float16" : "float32", op->ids[0],
                       out.float16 ? "float16" : "float32");
  }
  const uint32_t num_params = read_u32(rec + 28);
  TE_CHECK_OR_RETURN(num_params == sig.num_params, kBad,
                     "vulkan blob: op %u (%s): %u parameters, expected %u", index, sig.name,
                     num_params, sig.num_params);
  for (uint32_t i = 0; i < kMaxParams; ++i) op->params[i] = read_u32(rec + 32 + 4 * i);
  return check_op_params(OpCheck(index, *op, blob.tensors), op->shader);
}

}  // namespace

const char* shader_name(Shader shader) {
  const uint32_t i = static_cast<uint32_t>(shader);
  return i < kNumShaders ? kSignatures[i].name : "unknown";
}

Result<ParsedBlob> parse_blob(Span<const uint8_t> blob, MemoryAllocator* allocator) {
  TE_CHECK_OR_RETURN(blob.size() >= kHeaderBytes, kBad,
                     "vulkan blob: %zu bytes, expected at least the %zu-byte header", blob.size(),
                     kHeaderBytes);
  const uint8_t* b = blob.data();
  TE_CHECK_OR_RETURN(memcmp(b, kBlobMagic, 4) == 0, kBad,
                     "vulkan blob: magic is not \"TVK1\"");
  const uint32_t version = read_u32(b + 4);
  TE_CHECK_OR_RETURN(version == kBlobVersion, kBad, "vulkan blob: version %u, expected %u",
                     version, kBlobVersion);
  ParsedBlob parsed;
  parsed.num_tensors = read_u32(b + 8);
  parsed.num_inputs = read_u32(b + 12);
  parsed.num_outputs = read_u32(b + 16);
  parsed.num_ops = read_u32(b + 20);
  const uint64_t data_offset = read_u64(b + 24);
  parsed.flags = read_u32(b + 32);
  const uint32_t reserved = read_u32(b + 36);
  TE_CHECK_OR_RETURN((parsed.flags & ~kKnownFlags) == 0 && reserved == 0, kBad,
                     "vulkan blob: flags 0x%x and reserved word %u; expected flags within 0x%x "
                     "and 0",
                     parsed.flags, reserved, kKnownFlags);
  TE_CHECK_OR_RETURN(parsed.num_tensors <= kMaxTensors && parsed.num_ops <= kMaxOps &&
                         parsed.num_ops >= 1 && parsed.num_outputs >= 1 &&
                         uint64_t{parsed.num_inputs} + parsed.num_outputs <= parsed.num_tensors,
                     kBad,
                     "vulkan blob: %u tensors (%u inputs, %u outputs) and %u ops; expected "
                     "1..%u ops, >= 1 output, inputs + outputs <= tensors <= %u",
                     parsed.num_tensors, parsed.num_inputs, parsed.num_outputs, parsed.num_ops,
                     kMaxOps, kMaxTensors);
  const uint64_t records = kHeaderBytes + uint64_t{parsed.num_tensors} * kTensorRecordBytes +
                           uint64_t{parsed.num_ops} * kOpRecordBytes;
  TE_CHECK_OR_RETURN(records <= data_offset && data_offset <= blob.size(), kBad,
                     "vulkan blob: records end at %llu, data section at %llu, blob is %zu bytes",
                     static_cast<unsigned long long>(records),
                     static_cast<unsigned long long>(data_offset), blob.size());
  parsed.data = b + data_offset;
  parsed.data_size = blob.size() - data_offset;
  TensorInfo* tensors = allocator->allocate_array<TensorInfo>(parsed.num_tensors);
  OpInfo* ops = allocator->allocate_array<OpInfo>(parsed.num_ops);
  TE_CHECK_OR_RETURN(tensors != nullptr && ops != nullptr, Error::MemoryAllocationFailed,
                     "vulkan delegate: method allocator exhausted for %u tensors and %u ops",
                     parsed.num_tensors, parsed.num_ops);
  parsed.tensors = tensors;
  const uint8_t* rec = b + kHeaderBytes;
  for (uint32_t i = 0; i < parsed.num_tensors; ++i, rec += kTensorRecordBytes) {
    TE_RETURN_IF_ERROR(parse_tensor(rec, i, parsed, tensors));
  }
  for (uint32_t i = 0; i < parsed.num_ops; ++i, rec += kOpRecordBytes) {
    TE_RETURN_IF_ERROR(parse_op(rec, i, parsed, &ops[i]));
  }
  parsed.ops = ops;
  return parsed;
}

}  // namespace vulkan
}  // namespace torchedge
