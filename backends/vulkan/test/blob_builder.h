// torchedge/backends/vulkan/test/blob_builder.h
//
// Writes "TVK1" (version 2) blobs (blob_format.h) for the Vulkan backend tests, the way
// python/torchedge/backends/vulkan/blob_writer.py does.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/vulkan/blob_format.h"
#include "runtime/core/half.h"

namespace torchedge {
namespace vulkan {
namespace testing {

class BlobBuilder {
 public:
  static uint32_t f(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
  }

  /// Tensors added from now on have `dtype` (kDtypeFloat32 by default).
  void set_dtype(uint32_t dtype) { dtype_ = dtype; }
  void set_flags(uint32_t flags) { flags_ = flags; }

  uint32_t tensor(TensorKind kind, std::vector<uint32_t> dims, uint64_t a = 0, uint64_t b = 0) {
    tensors_.push_back({kind, std::move(dims), a, b, dtype_});
    return static_cast<uint32_t>(tensors_.size() - 1);
  }
  uint32_t input(std::vector<uint32_t> dims) { ++inputs_; return tensor(TensorKind::Input, dims); }
  uint32_t output(std::vector<uint32_t> dims) { ++outputs_; return tensor(TensorKind::Output, dims); }
  uint32_t internal(std::vector<uint32_t> dims) { return tensor(TensorKind::Internal, dims); }
  /// A constant in the current dtype (float16 values rounded from `values`).
  uint32_t constant(std::vector<uint32_t> dims, const std::vector<float>& values) {
    while (data_.size() % 16) data_.push_back(0);
    const uint64_t offset = data_.size();
    const bool half = dtype_ == kDtypeFloat16;
    const uint64_t bytes = (half ? 2 : 4) * values.size();
    data_.resize(offset + bytes);
    for (size_t i = 0; i < values.size(); ++i) {
      if (half) {
        const uint16_t h = Half(values[i]).bits;
        memcpy(data_.data() + offset + 2 * i, &h, 2);
      } else {
        memcpy(data_.data() + offset + 4 * i, &values[i], 4);
      }
    }
    return tensor(TensorKind::Constant, std::move(dims), offset, bytes);
  }

  void op(Shader shader, std::vector<uint32_t> ids, std::vector<uint32_t> params,
          uint32_t handle = 0) {
    ops_.push_back({shader, std::move(ids), std::move(params), handle});
  }

  std::vector<uint8_t> build() const {
    std::vector<uint8_t> out;
    auto u32 = [&](uint32_t v) { for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i))); };
    auto u64 = [&](uint64_t v) { u32(static_cast<uint32_t>(v)); u32(static_cast<uint32_t>(v >> 32)); };
    const uint64_t records = kHeaderBytes + tensors_.size() * kTensorRecordBytes + ops_.size() * kOpRecordBytes;
    const uint64_t data_offset = (records + 15) / 16 * 16;
    out.insert(out.end(), kBlobMagic, kBlobMagic + 4);
    u32(kBlobVersion);
    u32(static_cast<uint32_t>(tensors_.size()));
    u32(inputs_);
    u32(outputs_);
    u32(static_cast<uint32_t>(ops_.size()));
    u64(data_offset);
    u32(flags_);
    u32(0);
    for (const T& t : tensors_) {
      u32(static_cast<uint32_t>(t.kind));
      u32(static_cast<uint32_t>(t.dims.size()));
      for (uint32_t d = 0; d < kMaxDims; ++d) u32(d < t.dims.size() ? t.dims[d] : 0);
      u64(t.a);
      u64(t.b);
      u32(t.dtype);
      u32(0);
    }
    for (const O& o : ops_) {
      u32(static_cast<uint32_t>(o.shader));
      u32(o.handle);
      u32(static_cast<uint32_t>(o.ids.size()));
      for (uint32_t i = 0; i < kMaxOpIds; ++i) u32(i < o.ids.size() ? o.ids[i] : kNoTensor);
      u32(static_cast<uint32_t>(o.params.size()));
      for (uint32_t i = 0; i < kMaxParams; ++i) u32(i < o.params.size() ? o.params[i] : 0);
    }
    out.resize(data_offset, 0);
    out.insert(out.end(), data_.begin(), data_.end());
    return out;
  }

 private:
  struct T { TensorKind kind; std::vector<uint32_t> dims; uint64_t a, b; uint32_t dtype; };
  struct O { Shader shader; std::vector<uint32_t> ids; std::vector<uint32_t> params; uint32_t handle; };
  std::vector<T> tensors_;
  std::vector<O> ops_;
  std::vector<uint8_t> data_;
  uint32_t inputs_ = 0;
  uint32_t outputs_ = 0;
  uint32_t dtype_ = kDtypeFloat32;
  uint32_t flags_ = 0;
};

/// Binary-shader params for same-shape contiguous operands of `dims` (rank <= 6).
inline std::vector<uint32_t> binary_params(uint32_t op, std::vector<uint32_t> dims, float alpha = 1.0f) {
  std::vector<uint32_t> padded(kMaxDims - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  std::vector<uint32_t> strides(kMaxDims);
  uint32_t step = 1, numel = 1;
  for (int d = kMaxDims - 1; d >= 0; --d) { strides[d] = step; step *= padded[d]; }
  for (uint32_t d : dims) numel *= d;
  std::vector<uint32_t> p = {op, numel, BlobBuilder::f(alpha)};
  p.insert(p.end(), padded.begin(), padded.end());
  p.insert(p.end(), strides.begin(), strides.end());
  p.insert(p.end(), strides.begin(), strides.end());
  p.insert(p.end(), kMaxDims, 0);
  return p;
}

}  // namespace testing
}  // namespace vulkan
}  // namespace torchedge
