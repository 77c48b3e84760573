#include "backends/xnnpack/xnnpack_backend.h"

#include <xnnpack.h>

#include <atomic>

#include "backends/xnnpack/blob_reader.h"
#include "backends/xnnpack/layout_copy.h"
#include "backends/xnnpack/node_events.h"
#include "backends/xnnpack/subgraph_builder.h"
#include "backends/xnnpack/threadpool.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"
#include "runtime/platform/platform.h"

namespace torchedge {

namespace {

using xnnpack::Boundary;
using xnnpack::kMaxDims;

std::atomic<int> g_live{0};

// One DelegateCall argument: the tensor sizes it must have and, for NHWC
// values of NCHW tensors, the staging buffer XNNPACK reads or writes.
struct Binding {
  Boundary boundary;
  ScalarType dtype;  // Float, or Char for qint8 values
  uint32_t rank;
  Tensor::SizesType sizes[kMaxDims];
  size_t n, c, hw;  // NchwToNhwc only
  void* staging;    // NchwToNhwc only
};

// Layout conversion at the boundary, for the binding's element type.
void to_nhwc(const Binding& b, const void* src, void* dst) {
  if (b.dtype == ScalarType::Char) {
    xnnpack::nchw_to_nhwc(static_cast<const int8_t*>(src), static_cast<int8_t*>(dst), b.n, b.c,
                          b.hw);
  } else {
    xnnpack::nchw_to_nhwc(static_cast<const float*>(src), static_cast<float*>(dst), b.n, b.c,
                          b.hw);
  }
}

void to_nchw(const Binding& b, const void* src, void* dst) {
  if (b.dtype == ScalarType::Char) {
    xnnpack::nhwc_to_nchw(static_cast<const int8_t*>(src), static_cast<int8_t*>(dst), b.n, b.c,
                          b.hw);
  } else {
    xnnpack::nhwc_to_nchw(static_cast<const float*>(src), static_cast<float*>(dst), b.n, b.c,
                          b.hw);
  }
}

struct Delegate {
  xnn_runtime_t runtime;
  pthreadpool_t pool;
  uint32_t num_inputs;
  uint32_t num_outputs;
  Binding* bindings;               // inputs, then outputs
  xnn_external_value* externals;   // what the runtime was last set up with
  bool set_up;
  xnnpack::NodeEventTable node_events;  // debug handles reported under a tracer
};

xnn_status initialize_xnnpack() {
  // xnn_initialize is idempotent and thread-safe, but asking once is enough.
  static const xnn_status status = xnn_initialize(nullptr);
  return status;
}

Error make_bindings(const xnnpack::ParsedBlob& p, MemoryAllocator* allocator, Delegate* d) {
  const uint32_t count = p.num_inputs + p.num_outputs;
  d->bindings = allocator->allocate_array<Binding>(count);
  d->externals = allocator->allocate_array<xnn_external_value>(count);
  TE_CHECK_OR_RETURN(d->bindings != nullptr && d->externals != nullptr,
                     Error::MemoryAllocationFailed,
                     "xnnpack delegate: method allocator exhausted for %u bindings", count);
  for (uint32_t i = 0; i < count; ++i) {
    const xnnpack::ValueInfo& v = p.values[i];
    Binding& b = d->bindings[i];
    b.boundary = v.boundary;
    // The reader allows only Float32 and QInt8 for inputs and outputs.
    b.dtype = v.dtype == xnnpack::DataType::QInt8 ? ScalarType::Char : ScalarType::Float;
    b.rank = v.tensor_rank;
    for (uint32_t k = 0; k < v.tensor_rank; ++k) {
      b.sizes[k] = static_cast<Tensor::SizesType>(v.tensor_dims[k]);
      TE_CHECK_OR_RETURN(v.tensor_dims[k] <= 0x7FFFFFFFu, Error::DelegateInvalidCompatibility,
                         "xnnpack blob: tensor size %u too large", v.tensor_dims[k]);
    }
    b.staging = nullptr;
    b.n = b.c = b.hw = 0;
    if (v.boundary == Boundary::NchwToNhwc) {
      b.n = v.tensor_dims[0];
      b.c = v.tensor_dims[1];
      b.hw = static_cast<size_t>(v.tensor_dims[2]) * v.tensor_dims[3];
      const size_t nbytes =
          static_cast<size_t>(v.numel) * xnnpack::element_size(v.dtype) + XNN_EXTRA_BYTES;
      b.staging = allocator->allocate(nbytes, 64);
      TE_CHECK_OR_RETURN(b.staging != nullptr, Error::MemoryAllocationFailed,
                         "xnnpack delegate: method allocator exhausted for a %zu-byte NHWC "
                         "staging buffer",
                         nbytes);
    }
    d->externals[i] = xnn_external_value{i, nullptr};
  }
  return Error::Ok;
}

bool is_channels_last(const Tensor& t) {
  const Span<const uint8_t> order = t.dim_order();
  return order.size() == 4 && order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1;
}

// The address XNNPACK should use for argument `i`, after checking the
// tensor against what the blob promised. `*staged` tells whether data goes
// through the staging buffer.
Error resolve_argument(const Delegate& d, uint32_t i, EValue* arg, void** data, bool* staged) {
  TE_CHECK_OR_RETURN(arg != nullptr && arg->is_tensor(), Error::InvalidType,
                     "xnnpack delegate: argument %u is not a tensor", i);
  const Tensor& t = arg->to_tensor();
  const Binding& b = d.bindings[i];
  bool same = t.dtype() == b.dtype && t.dim() == static_cast<int>(b.rank);
  for (uint32_t k = 0; same && k < b.rank; ++k) same = t.size(static_cast<int>(k)) == b.sizes[k];
  TE_CHECK_OR_RETURN(same && t.mutable_data() != nullptr, Error::InvalidArgument,
                     "xnnpack delegate: argument %u must be a bound %s tensor of the shape "
                     "the delegate was compiled for (rank %u)",
                     i, b.dtype == ScalarType::Char ? "int8" : "float32", b.rank);
  *staged = false;
  *data = t.mutable_data();
  if (b.boundary == Boundary::NchwToNhwc && !is_channels_last(t)) {
    *staged = true;
    *data = b.staging;
  }
  TE_CHECK_OR_RETURN(*staged || b.boundary == Boundary::NchwToNhwc || t.is_contiguous(),
                     Error::InvalidArgument,
                     "xnnpack delegate: argument %u must be contiguous", i);
  return Error::Ok;
}

class XnnpackBackend final : public BackendInterface {
 public:
  bool is_available() const override { return initialize_xnnpack() == xnn_status_success; }

  Result<DelegateHandle*> init(Span<const uint8_t> blob, Span<const CompileSpec>,
                               MemoryAllocator* allocator) const override {
    TE_CHECK_OR_RETURN(initialize_xnnpack() == xnn_status_success, Error::NotSupported,
                       "XNNPACK does not support this CPU");
    TE_ASSIGN_OR_RETURN(xnnpack::ParsedBlob parsed, xnnpack::parse_blob(blob, allocator));
    xnnpack::SubgraphOwner subgraph;
    TE_RETURN_IF_ERROR(xnnpack::build_subgraph(parsed, allocator, &subgraph));
    Delegate* d = allocator->allocate_array<Delegate>(1);
    TE_CHECK_OR_RETURN(d != nullptr, Error::MemoryAllocationFailed,
                       "xnnpack delegate: method allocator exhausted");
    *d = Delegate{nullptr, nullptr, parsed.num_inputs, parsed.num_outputs, nullptr, nullptr,
                  false, {}};
    TE_RETURN_IF_ERROR(make_bindings(parsed, allocator, d));
    TE_ASSIGN_OR_RETURN(d->node_events, xnnpack::make_node_event_table(parsed, allocator));
    TE_ASSIGN_OR_RETURN(d->pool, xnnpack::acquire_threadpool());
    // Workers sleep after each invoke instead of spinning: between delegate
    // calls the portable kernels need the cores.
    const xnn_status status =
        xnn_create_runtime_v2(subgraph.get(), d->pool, XNN_FLAG_YIELD_WORKERS, &d->runtime);
    if (status != xnn_status_success) {
      xnnpack::release_threadpool(d->pool);
      record_error_message("xnnpack delegate: xnn_create_runtime_v2 failed (status %d)",
                           static_cast<int>(status));
      return status == xnn_status_out_of_memory ? Error::DelegateMemoryAllocationFailed
                                                : Error::DelegateInvalidCompatibility;
    }
    ++g_live;
    return static_cast<DelegateHandle*>(d);
  }

  Error execute(DelegateHandle* handle, Span<EValue*> args) const override {
    Delegate* d = static_cast<Delegate*>(handle);
    TE_CHECK_OR_RETURN(d != nullptr && d->runtime != nullptr, Error::DelegateInvalidHandle,
                       "xnnpack delegate: executed after destroy");
    const uint32_t count = d->num_inputs + d->num_outputs;
    TE_CHECK_OR_RETURN(args.size() == count, Error::InvalidArgument,
                       "xnnpack delegate: %zu arguments, expected %u inputs and %u outputs",
                       args.size(), d->num_inputs, d->num_outputs);
    // One branch when nobody listens; the traced copy adds clock reads.
    EventTracer* tracer = current_delegate_tracer();
    return tracer == nullptr ? run<false>(d, args, nullptr) : run<true>(d, args, tracer);
  }

  void destroy(DelegateHandle* handle) const override {
    Delegate* d = static_cast<Delegate*>(handle);
    if (d == nullptr || d->runtime == nullptr) return;
    xnn_delete_runtime(d->runtime);
    xnnpack::release_threadpool(d->pool);
    d->runtime = nullptr;
    d->pool = nullptr;
    --g_live;
  }

 private:
  // Binds, sets up when needed, invokes and converts outputs back; with
  // kTraced, reports the stages and the nodes (node_events.h) to `tracer`.
  template <bool kTraced>
  static Error run(Delegate* d, Span<EValue*> args, EventTracer* tracer) {
    const uint32_t count = d->num_inputs + d->num_outputs;
    uint64_t t0 = 0;
    if constexpr (kTraced) t0 = platform_now_ns();
    bool changed = !d->set_up;
    bool staged_input = false;
    for (uint32_t i = 0; i < count; ++i) {
      void* data = nullptr;
      bool staged = false;
      TE_RETURN_IF_ERROR(resolve_argument(*d, i, args[i], &data, &staged));
      const Binding& b = d->bindings[i];
      if (staged && i < d->num_inputs) {
        to_nhwc(b, args[i]->to_tensor().mutable_data(), b.staging);
        staged_input = true;
      }
      changed = changed || d->externals[i].data != data;
      d->externals[i].data = data;
    }
    uint64_t t1 = 0;
    if constexpr (kTraced) {
      t1 = platform_now_ns();
      if (staged_input) tracer->log_delegate_event(xnnpack::kInputLayoutEvent, -1, nullptr, t0, t1);
    }
    if (changed) {
      // Re-binding recomputes XNNPACK's indirection buffers; skipped when
      // the planned tensors sit where they did last time (the usual case).
      const xnn_status status = xnn_setup_runtime(d->runtime, count, d->externals);
      TE_CHECK_OR_RETURN(status == xnn_status_success, Error::Internal,
                         "xnnpack delegate: xnn_setup_runtime failed (status %d)",
                         static_cast<int>(status));
      d->set_up = true;
      if constexpr (kTraced) {
        const uint64_t now = platform_now_ns();
        tracer->log_delegate_event(xnnpack::kSetupEvent, -1, nullptr, t1, now);
        t1 = now;
      }
    }
    const xnn_status status = xnn_invoke_runtime(d->runtime);
    uint64_t t2 = 0;
    if constexpr (kTraced) t2 = platform_now_ns();
    TE_CHECK_OR_RETURN(status == xnn_status_success, Error::Internal,
                       "xnnpack delegate: xnn_invoke_runtime failed (status %d)",
                       static_cast<int>(status));
    if constexpr (kTraced) {
      tracer->log_delegate_event(xnnpack::kInvokeEvent, -1, nullptr, t1, t2);
      xnnpack::report_nodes(tracer, d->node_events, t1, t2);
    }
    bool staged_output = false;
    for (uint32_t i = d->num_inputs; i < count; ++i) {
      const Binding& b = d->bindings[i];
      if (d->externals[i].data == b.staging && b.staging != nullptr) {
        to_nchw(b, b.staging, args[i]->to_tensor().mutable_data());
        staged_output = true;
      }
    }
    if constexpr (kTraced) {
      if (staged_output) {
        tracer->log_delegate_event(xnnpack::kOutputLayoutEvent, -1, nullptr, t2, platform_now_ns());
      }
    }
    return Error::Ok;
  }
};

}  // namespace

Error register_xnnpack_backend() {
  static const XnnpackBackend kBackend;
  return register_backend("XnnpackBackend", &kBackend);
}

int xnnpack_live_delegates() { return g_live.load(); }

}  // namespace torchedge
