#include "runtime/executor/backend_delegate.h"

#include "runtime/core/error_message.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

namespace {

Result<Span<CompileSpec>> parse_compile_specs(const fb::BackendDelegate& d,
                                              MemoryAllocator* allocator) {
  const auto* specs = d.compile_specs();
  const size_t n = specs == nullptr ? 0 : specs->size();
  CompileSpec* out = allocator->allocate_array<CompileSpec>(n + 1);
  TE_CHECK_OR_RETURN(out != nullptr, Error::MemoryAllocationFailed,
                     "method allocator exhausted creating %zu compile specs", n);
  for (size_t i = 0; i < n; ++i) {
    const fb::CompileSpec* spec = specs->Get(i);
    out[i].key = spec->key() != nullptr ? spec->key()->c_str() : "";
    out[i].value = spec->value() != nullptr
                       ? Span<const uint8_t>(spec->value()->data(), spec->value()->size())
                       : Span<const uint8_t>();
  }
  return Span<CompileSpec>(out, n);
}

}  // namespace

Error BackendDelegate::init(const fb::BackendDelegate& serialized, const Program& program,
                            MemoryAllocator* allocator, BackendDelegate* out) {
  const char* id = serialized.id()->c_str();
  const BackendInterface* backend = find_backend(id);
  TE_CHECK_OR_RETURN(backend != nullptr, Error::NotSupported,
                     "the program delegates to backend '%s', which is not linked into this "
                     "runtime",
                     id);
  TE_CHECK_OR_RETURN(backend->is_available(), Error::NotSupported,
                     "backend '%s' is linked but not available on this machine", id);
  TE_ASSIGN_OR_RETURN(Span<CompileSpec> specs, parse_compile_specs(serialized, allocator));

  const fb::BackendDelegateDataReference* ref = serialized.processed();
  FreeableBuffer segment;  // released when init returns
  Span<const uint8_t> blob;
  if (ref->location() == fb::DataLocation::INLINE) {
    const auto* inline_data = program.flatbuffer()->backend_delegate_data();
    TE_CHECK_OR_RETURN(inline_data != nullptr && ref->index() < inline_data->size() &&
                           inline_data->Get(ref->index())->data() != nullptr,
                       Error::InvalidProgram, "delegate '%s': inline data %u out of range", id,
                       ref->index());
    const auto* data = inline_data->Get(ref->index())->data();
    blob = Span<const uint8_t>(data->data(), data->size());
  } else {
    TE_ASSIGN_OR_RETURN(segment, program.load_segment(ref->index()));
    blob = Span<const uint8_t>(static_cast<const uint8_t*>(segment.data()), segment.size());
  }
  Result<DelegateHandle*> handle = backend->init(blob, specs, allocator);
  if (!handle.ok()) {
    prepend_error_context("backend '%s' init", id);
    return handle.error();
  }
  out->backend_ = backend;
  out->handle_ = handle.get();
  out->id_ = id;
  return Error::Ok;
}

void BackendDelegate::destroy() {
  if (backend_ != nullptr && handle_ != nullptr) backend_->destroy(handle_);
  handle_ = nullptr;
}

}  // namespace torchedge
