// torchedge/backends/xnnpack/test/blob_builder.h
//
// Writes "TEX1" blobs in C++ for the backend tests, the way the Python
// preprocess does (python/torchedge/backends/xnnpack/blob_writer.py): values
// may be declared in any order; build() puts inputs first, then outputs,
// and renumbers node ids to match.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/xnnpack/blob_format.h"

namespace torchedge {
namespace xnnpack {
namespace testing {

/// Quantization of a value: none (float32), per tensor (qint8) or per
/// channel (qcint8 / qcint32 constants).
struct Quant {
  DataType dtype = DataType::Float32;
  float scale = 1.0f;
  int32_t zero_point = 0;
  uint32_t channel_dim = 0;
  std::vector<float> channel_scales;

  static Quant q8(float scale, int32_t zero_point) {
    return {DataType::QInt8, scale, zero_point, 0, {}};
  }
};

class BlobBuilder {
 public:
  uint32_t input(std::vector<uint32_t> dims, Boundary boundary = Boundary::Direct,
                 Quant q = {}) {
    return add({ValueKind::Input, dims, boundary, {}, q});
  }
  uint32_t output(std::vector<uint32_t> dims, Boundary boundary = Boundary::Direct,
                  Quant q = {}) {
    return add({ValueKind::Output, dims, boundary, {}, q});
  }
  uint32_t internal(std::vector<uint32_t> dims, Quant q = {}) {
    return add({ValueKind::Internal, dims, Boundary::Direct, {}, q});
  }
  uint32_t constant(std::vector<uint32_t> dims, std::vector<float> data) {
    return add({ValueKind::Constant, dims, Boundary::Direct, bytes(data), {}});
  }
  /// Per-channel int8 weights (qcint8) along `channel_dim`.
  uint32_t constant_qc8(std::vector<uint32_t> dims, uint32_t channel_dim,
                        std::vector<float> scales, std::vector<int8_t> data) {
    return add({ValueKind::Constant, dims, Boundary::Direct, bytes(data),
                {DataType::QCInt8, 1.0f, 0, channel_dim, scales}});
  }
  /// Per-channel int32 bias (qcint32), channel dim 0.
  uint32_t constant_qc32(std::vector<float> scales, std::vector<int32_t> data) {
    const uint32_t n = static_cast<uint32_t>(data.size());
    return add({ValueKind::Constant, {n}, Boundary::Direct, bytes(data),
                {DataType::QCInt32, 1.0f, 0, 0, scales}});
  }
  /// A node; its debug handle is `debug_handle`, or its index when omitted.
  void node(OpCode op, std::vector<uint32_t> ids, std::vector<uint32_t> params = {},
            uint32_t debug_handle = kNoValue) {
    const uint32_t handle =
        debug_handle == kNoValue ? static_cast<uint32_t>(nodes_.size()) : debug_handle;
    nodes_.push_back({op, ids, params, handle});
  }
  static uint32_t f(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    return bits;
  }

  std::vector<uint8_t> build() const {
    std::vector<uint32_t> order;  // new index -> declared index
    for (ValueKind kind : {ValueKind::Input, ValueKind::Output}) {
      for (uint32_t i = 0; i < values_.size(); ++i) {
        if (values_[i].kind == kind) order.push_back(i);
      }
    }
    uint32_t num_inputs = 0, num_outputs = 0;
    for (const Value& v : values_) {
      num_inputs += v.kind == ValueKind::Input;
      num_outputs += v.kind == ValueKind::Output;
    }
    for (uint32_t i = 0; i < values_.size(); ++i) {
      const ValueKind k = values_[i].kind;
      if (k != ValueKind::Input && k != ValueKind::Output) order.push_back(i);
    }
    std::vector<uint32_t> renumber(values_.size());
    for (uint32_t i = 0; i < order.size(); ++i) renumber[order[i]] = i;

    std::vector<uint8_t> head(kHeaderBytes, 0);
    std::vector<uint8_t> data;
    for (uint32_t index : order) {
      const Value& v = values_[index];
      u32(head, static_cast<uint32_t>(v.kind));
      u32(head, static_cast<uint32_t>(v.q.dtype));
      if (v.q.dtype == DataType::QInt8) {
        u32(head, f(v.q.scale));
        u32(head, static_cast<uint32_t>(v.q.zero_point));
      }
      dims(head, v.dims);
      if (v.q.dtype == DataType::QCInt8 || v.q.dtype == DataType::QCInt32) {
        u32(head, v.q.channel_dim);
        for (float x : v.q.channel_scales) u32(head, f(x));
      }
      if (v.kind == ValueKind::Input || v.kind == ValueKind::Output) {
        u32(head, static_cast<uint32_t>(v.boundary));
        std::vector<uint32_t> t = v.dims;
        if (v.boundary == Boundary::NchwToNhwc) t = {v.dims[0], v.dims[3], v.dims[1], v.dims[2]};
        dims(head, t);
      } else if (v.kind == ValueKind::Constant) {
        while (data.size() % 16 != 0) data.push_back(0);
        u64(head, data.size());
        data.insert(data.end(), v.data.begin(), v.data.end());
      }
    }
    for (const Node& n : nodes_) {
      u32(head, static_cast<uint32_t>(n.op));
      u32(head, static_cast<uint32_t>(n.ids.size()));
      u32(head, static_cast<uint32_t>(n.params.size()));
      u32(head, n.debug_handle);
      for (uint32_t id : n.ids) u32(head, id == kNoValue || id >= renumber.size() ? id : renumber[id]);
      for (uint32_t p : n.params) u32(head, p);
    }
    while (head.size() % 16 != 0) head.push_back(0);
    const uint64_t data_offset = head.size();
    std::vector<uint8_t> blob(head);
    memcpy(blob.data(), kBlobMagic, 4);
    put32(blob, 4, kBlobVersion);
    put32(blob, 8, static_cast<uint32_t>(values_.size()));
    put32(blob, 12, num_inputs);
    put32(blob, 16, num_outputs);
    put32(blob, 20, static_cast<uint32_t>(nodes_.size()));
    memcpy(blob.data() + 24, &data_offset, 8);
    blob.insert(blob.end(), data.begin(), data.end());
    return blob;
  }

 private:
  struct Value {
    ValueKind kind;
    std::vector<uint32_t> dims;
    Boundary boundary;
    std::vector<uint8_t> data;
    Quant q;
  };
  template <typename T>
  static std::vector<uint8_t> bytes(const std::vector<T>& v) {
    std::vector<uint8_t> out(v.size() * sizeof(T));
    if (!v.empty()) memcpy(out.data(), v.data(), out.size());
    return out;
  }
  struct Node {
    OpCode op;
    std::vector<uint32_t> ids;
    std::vector<uint32_t> params;
    uint32_t debug_handle;
  };
  uint32_t add(Value v) {
    values_.push_back(v);
    return static_cast<uint32_t>(values_.size() - 1);
  }
  static void u32(std::vector<uint8_t>& out, uint32_t v) {
    const size_t at = out.size();
    out.resize(at + 4);
    memcpy(out.data() + at, &v, 4);
  }
  static void u64(std::vector<uint8_t>& out, uint64_t v) {
    const size_t at = out.size();
    out.resize(at + 8);
    memcpy(out.data() + at, &v, 8);
  }
  static void put32(std::vector<uint8_t>& out, size_t at, uint32_t v) { memcpy(out.data() + at, &v, 4); }
  static void dims(std::vector<uint8_t>& out, const std::vector<uint32_t>& d) {
    u32(out, static_cast<uint32_t>(d.size()));
    for (uint32_t x : d) u32(out, x);
  }
  std::vector<Value> values_;
  std::vector<Node> nodes_;
};

}  // namespace testing
}  // namespace xnnpack
}  // namespace torchedge
