#include "runtime/executor/program.h"

#include <cstring>

#include "runtime/core/error_message.h"
#include "runtime/executor/extended_header.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program_verifier.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

namespace {
constexpr size_t kFlatbufferHeadBytes = 8;  // root offset + file identifier

// Where the flatbuffer and the segments are, from the file head.
struct FileLayout {
  size_t program_size;
  size_t segment_base_offset;  // 0 when the file has no segments
};

Result<FileLayout> read_layout(DataLoader* loader, size_t file_size) {
  TE_CHECK_OR_RETURN(file_size >= kFlatbufferHeadBytes, Error::InvalidProgram,
                     "file is %zu bytes, too small to be a .pte program", file_size);
  const size_t head_size =
      file_size < ExtendedHeader::kNumHeadBytes ? file_size : ExtendedHeader::kNumHeadBytes;
  TE_ASSIGN_OR_RETURN(FreeableBuffer head, loader->load(0, head_size));
  const char* bytes = static_cast<const char*>(head.data());
  TE_CHECK_OR_RETURN(memcmp(bytes + 4, "ET12", 4) == 0, Error::InvalidProgram,
                     "not a .pte program: file identifier is '%.4s', expected 'ET12'", bytes + 4);
  Result<ExtendedHeader> header = ExtendedHeader::parse(head.data(), head.size());
  if (header.error() == Error::NotFound) {
    clear_error_message();
    return FileLayout{file_size, 0};  // a plain flatbuffer without segments
  }
  if (!header.ok()) return header.error();
  TE_CHECK_OR_RETURN(header->program_size >= kFlatbufferHeadBytes &&
                         header->program_size <= file_size,
                     Error::InvalidProgram,
                     "extended header says the program is %llu bytes but the file has %zu "
                     "(truncated file?)",
                     static_cast<unsigned long long>(header->program_size), file_size);
  const uint64_t base = header->segment_base_offset;
  TE_CHECK_OR_RETURN(base == 0 || (base >= header->program_size && base <= file_size),
                     Error::InvalidProgram,
                     "segment base offset %llu outside [program end %llu, file size %zu]",
                     static_cast<unsigned long long>(base),
                     static_cast<unsigned long long>(header->program_size), file_size);
  TE_CHECK_OR_RETURN(base == 0 || header->segment_data_size <= file_size - base,
                     Error::InvalidProgram,
                     "segment data (%llu bytes at %llu) runs past the end of the %zu-byte file "
                     "(truncated file?)",
                     static_cast<unsigned long long>(header->segment_data_size),
                     static_cast<unsigned long long>(base), file_size);
  return FileLayout{static_cast<size_t>(header->program_size), static_cast<size_t>(base)};
}
}  // namespace

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  TE_CHECK_OR_RETURN(loader != nullptr, Error::InvalidArgument, "null data loader");
  TE_ASSIGN_OR_RETURN(size_t file_size, loader->size());
  TE_ASSIGN_OR_RETURN(FileLayout layout, read_layout(loader, file_size));
  TE_ASSIGN_OR_RETURN(FreeableBuffer data, loader->load(0, layout.program_size));

  if (verification == Verification::Full) {
    flatbuffers::Verifier verifier(static_cast<const uint8_t*>(data.data()), data.size(),
                                   /*max_depth=*/64, /*max_tables=*/10000000);
    TE_CHECK_OR_RETURN(fb::VerifyProgramBuffer(verifier), Error::InvalidProgram,
                       "flatbuffer verification failed: the program data (%zu bytes) is "
                       "corrupted or truncated",
                       data.size());
  }
  const fb::Program* program = fb::GetProgram(data.data());
  const size_t segment_bytes = layout.segment_base_offset == 0
                                   ? 0
                                   : file_size - layout.segment_base_offset;
  if (verification == Verification::Full) {
    TE_RETURN_IF_ERROR(verify_program(program, segment_bytes));
  }

  // The constant segment is loaded once and shared by every method.
  FreeableBuffer constants;
  const fb::SubsegmentOffsets* cs = program->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    TE_CHECK_OR_RETURN(program->segments() != nullptr &&
                           cs->segment_index() < program->segments()->size(),
                       Error::InvalidProgram, "constant segment index %u out of range",
                       cs->segment_index());
    const fb::DataSegment* seg = program->segments()->Get(cs->segment_index());
    TE_CHECK_OR_RETURN(seg->offset() <= segment_bytes && seg->size() <= segment_bytes - seg->offset(),
                       Error::InvalidProgram, "constant segment outside the file");
    TE_ASSIGN_OR_RETURN(constants,
                        loader->load(layout.segment_base_offset + seg->offset(), seg->size()));
  }
  return Program(loader, static_cast<FreeableBuffer&&>(data),
                 static_cast<FreeableBuffer&&>(constants), program, layout.segment_base_offset);
}

size_t Program::num_methods() const {
  return program_->execution_plan() == nullptr ? 0 : program_->execution_plan()->size();
}

Result<const char*> Program::method_name(size_t index) const {
  TE_CHECK_OR_RETURN(index < num_methods(), Error::InvalidArgument,
                     "method index %zu out of range (%zu methods)", index, num_methods());
  const auto* name = program_->execution_plan()->Get(index)->name();
  TE_CHECK_OR_RETURN(name != nullptr, Error::InvalidProgram, "method %zu has no name", index);
  return name->c_str();
}

Result<const fb::ExecutionPlan*> Program::find_plan(const char* name) const {
  char available[256];
  size_t used = 0;
  available[0] = '\0';
  for (size_t i = 0; i < num_methods(); ++i) {
    const fb::ExecutionPlan* plan = program_->execution_plan()->Get(i);
    if (plan->name() != nullptr && strcmp(plan->name()->c_str(), name) == 0) return plan;
    if (plan->name() != nullptr && used < sizeof(available)) {
      int n = snprintf(available + used, sizeof(available) - used, "%s'%s'", i ? ", " : "",
                       plan->name()->c_str());
      if (n > 0) used += static_cast<size_t>(n);
    }
  }
  record_error_message("no method named '%s' (the program has: %s)", name, available);
  return Error::NotFound;
}

Result<MethodMeta> Program::method_meta(const char* name) const {
  TE_ASSIGN_OR_RETURN(const fb::ExecutionPlan* plan, find_plan(name));
  return MethodMeta(plan);
}

Result<Method> Program::load_method(const char* name, MemoryManager* memory,
                                    EventTracer* tracer, const NamedDataMap* named_data) const {
  TE_ASSIGN_OR_RETURN(const fb::ExecutionPlan* plan, find_plan(name));
  return Method::load(this, plan, memory, tracer, named_data);
}

Result<const void*> Program::constant_data(size_t buffer_index, size_t nbytes) const {
  const fb::SubsegmentOffsets* cs = program_->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 0) {
    TE_CHECK_OR_RETURN(buffer_index < cs->offsets()->size(), Error::InvalidProgram,
                       "constant %zu out of range (%u constants)", buffer_index,
                       cs->offsets()->size());
    const uint64_t offset = cs->offsets()->Get(buffer_index);
    const size_t size = constant_segment_.size();
    TE_CHECK_OR_RETURN(offset <= size && nbytes <= size - offset, Error::InvalidProgram,
                       "constant %zu (%zu bytes at offset %llu) runs past the %zu-byte constant "
                       "segment",
                       buffer_index, nbytes, static_cast<unsigned long long>(offset), size);
    return static_cast<const uint8_t*>(constant_segment_.data()) + offset;
  }
  // Legacy files keep constants inline in Program.constant_buffer.
  const auto* buffers = program_->constant_buffer();
  TE_CHECK_OR_RETURN(buffers != nullptr && buffer_index < buffers->size(), Error::InvalidProgram,
                     "constant %zu out of range", buffer_index);
  const auto* storage = buffers->Get(buffer_index)->storage();
  TE_CHECK_OR_RETURN(storage != nullptr && nbytes <= storage->size(), Error::InvalidProgram,
                     "constant %zu holds %u bytes, tensor needs %zu", buffer_index,
                     storage == nullptr ? 0u : storage->size(), nbytes);
  return static_cast<const void*>(storage->data());
}

Result<FreeableBuffer> Program::load_segment(size_t index) const {
  const auto* segments = program_->segments();
  TE_CHECK_OR_RETURN(segments != nullptr && index < segments->size(), Error::InvalidArgument,
                     "segment %zu out of range", index);
  TE_CHECK_OR_RETURN(segment_base_offset_ != 0, Error::InvalidProgram,
                     "program lists segments but the file has no segment data");
  const fb::DataSegment* seg = segments->Get(index);
  return loader_->load(segment_base_offset_ + seg->offset(), seg->size());
}

}  // namespace torchedge
