#include "backends/test_backend/test_backend.h"

#include <cstring>

#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/platform/platform.h"

namespace torchedge {

namespace {

int g_live = 0;

struct Op {
  uint32_t kind, a, b, result;
};

// Parsed blob plus scratch buffers for intermediate values, all in the
// method allocator.
struct Delegate {
  uint32_t num_inputs, num_outputs, num_values, num_ops;
  const uint32_t* numel;
  Op* ops;
  uint32_t* outputs;
  float** scratch;  // per value; null for inputs and outputs (bound per call)
  float** bound;    // per value, filled at execute
};

// Event names per op kind; op i's debug handle is i (test_backend.py).
constexpr const char* kOpNames[] = {"add", "mul"};

void run_op(const Op& op, const Delegate& d) {
  const float* a = d.bound[op.a];
  const float* b = d.bound[op.b];
  float* out = d.bound[op.result];
  for (uint32_t j = 0; j < d.numel[op.result]; ++j) {
    out[j] = op.kind == 0 ? a[j] + b[j] : a[j] * b[j];
  }
}

class BlobReader {
 public:
  explicit BlobReader(Span<const uint8_t> blob) : blob_(blob) {}
  bool u32(uint32_t* out) {
    if (blob_.size() - pos_ < 4) return false;
    memcpy(out, blob_.data() + pos_, 4);
    pos_ += 4;
    return true;
  }
  bool done() const { return pos_ == blob_.size(); }

 private:
  Span<const uint8_t> blob_;
  size_t pos_ = 4;  // after the magic
};

class TestBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }

  Result<DelegateHandle*> init(Span<const uint8_t> blob, Span<const CompileSpec>,
                               MemoryAllocator* allocator) const override {
    TE_CHECK_OR_RETURN(blob.size() >= 20 && memcmp(blob.data(), "TEB1", 4) == 0,
                       Error::DelegateInvalidCompatibility, "not a test-backend blob");
    BlobReader r(blob);
    Delegate* d = allocator->allocate_array<Delegate>(1);
    TE_CHECK_OR_RETURN(d != nullptr, Error::MemoryAllocationFailed, "out of method memory");
    bool ok = r.u32(&d->num_inputs) && r.u32(&d->num_outputs) && r.u32(&d->num_values) &&
              r.u32(&d->num_ops);
    TE_CHECK_OR_RETURN(ok && d->num_values < (1u << 20) && d->num_ops < (1u << 20) &&
                           d->num_inputs <= d->num_values && d->num_outputs <= d->num_values,
                       Error::DelegateInvalidCompatibility, "bad test-backend header");
    uint32_t* numel = allocator->allocate_array<uint32_t>(d->num_values + 1);
    d->ops = allocator->allocate_array<Op>(d->num_ops + 1);
    d->outputs = allocator->allocate_array<uint32_t>(d->num_outputs + 1);
    d->scratch = allocator->allocate_array<float*>(d->num_values + 1);
    d->bound = allocator->allocate_array<float*>(d->num_values + 1);
    TE_CHECK_OR_RETURN(numel && d->ops && d->outputs && d->scratch && d->bound,
                       Error::MemoryAllocationFailed, "out of method memory");
    for (uint32_t i = 0; i < d->num_values && ok; ++i) ok = r.u32(&numel[i]);
    for (uint32_t i = 0; i < d->num_ops && ok; ++i) {
      Op& op = d->ops[i];
      ok = r.u32(&op.kind) && r.u32(&op.a) && r.u32(&op.b) && r.u32(&op.result) &&
           op.kind <= 1 && op.a < d->num_values && op.b < d->num_values &&
           op.result >= d->num_inputs && op.result < d->num_values;
    }
    for (uint32_t i = 0; i < d->num_outputs && ok; ++i) {
      ok = r.u32(&d->outputs[i]) && d->outputs[i] < d->num_values;
    }
    TE_CHECK_OR_RETURN(ok && r.done(), Error::DelegateInvalidCompatibility,
                       "truncated or malformed test-backend blob");
    d->numel = numel;
    for (uint32_t v = 0; v < d->num_values; ++v) {
      d->scratch[v] = nullptr;
      if (v < d->num_inputs) continue;
      d->scratch[v] = allocator->allocate_array<float>(numel[v] + 1);
      TE_CHECK_OR_RETURN(d->scratch[v] != nullptr, Error::MemoryAllocationFailed,
                         "out of method memory for %u floats", numel[v]);
    }
    ++g_live;
    return static_cast<DelegateHandle*>(d);
  }

  Error execute(DelegateHandle* handle, Span<EValue*> args) const override {
    const Delegate* d = static_cast<const Delegate*>(handle);
    TE_CHECK_OR_RETURN(args.size() == d->num_inputs + d->num_outputs, Error::InvalidArgument,
                       "test backend: %zu arguments, expected %u", args.size(),
                       d->num_inputs + d->num_outputs);
    for (uint32_t v = 0; v < d->num_values; ++v) d->bound[v] = d->scratch[v];
    for (size_t i = 0; i < args.size(); ++i) {
      TE_CHECK_OR_RETURN(args[i]->is_tensor(), Error::InvalidType, "argument %zu not a tensor", i);
      const Tensor& t = args[i]->to_tensor();
      const uint32_t v = i < d->num_inputs ? static_cast<uint32_t>(i)
                                           : d->outputs[i - d->num_inputs];
      TE_CHECK_OR_RETURN(t.dtype() == ScalarType::Float && t.numel() == d->numel[v],
                         Error::InvalidArgument, "argument %zu: expected %u float32 elements", i,
                         d->numel[v]);
      d->bound[v] = static_cast<float*>(t.mutable_data());
    }
    EventTracer* tracer = current_delegate_tracer();
    if (tracer == nullptr) {
      for (uint32_t i = 0; i < d->num_ops; ++i) run_op(d->ops[i], *d);
      return Error::Ok;
    }
    // Each op is timed on its own and reported with its debug handle (= i).
    for (uint32_t i = 0; i < d->num_ops; ++i) {
      const uint64_t start = platform_now_ns();
      run_op(d->ops[i], *d);
      tracer->log_delegate_event(kOpNames[d->ops[i].kind], static_cast<int32_t>(i), nullptr,
                                 start, platform_now_ns());
    }
    return Error::Ok;
  }

  void destroy(DelegateHandle*) const override { --g_live; }
};

}  // namespace

Error register_test_backend() {
  static const TestBackend kBackend;
  return register_backend("TorchEdgeTestBackend", &kBackend);
}

int test_backend_live_delegates() { return g_live; }

}  // namespace torchedge
