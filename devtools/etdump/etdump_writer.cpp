// ETDumpTracer::serialize: the recorded events -> an ETDump FlatBuffer.
// Runs after execution, so it may allocate (FlatBufferBuilder, maps).
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "devtools/etdump/captured_tensor.h"
#include "devtools/etdump/etdump_generated.h"
#include "devtools/etdump/etdump_tracer.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/method.h"

namespace torchedge {

namespace fb = torchedge_etdump;

namespace {

constexpr uint32_t kETDumpVersion = 0;

using Builder = flatbuffers::FlatBufferBuilder;

flatbuffers::Offset<flatbuffers::String> optional_string(Builder& b, const char* s) {
  return s != nullptr ? b.CreateString(s) : flatbuffers::Offset<flatbuffers::String>();
}

flatbuffers::Offset<fb::Event> profile_event(Builder& b, const ETDumpTracer::Record& r) {
  const bool load = r.type == ETDumpTracer::Record::Type::Load;
  auto name = optional_string(b, r.name);
  auto debug_str = optional_string(b, load ? nullptr : r.delegate_debug_str);
  auto method = optional_string(b, load ? r.delegate_debug_str : nullptr);
  auto event = fb::CreateProfileEvent(b, name, 0, r.instruction, r.delegate_debug_int, debug_str,
                                      0, r.start_ns, r.end_ns, method);
  return fb::CreateEvent(b, event);
}

// One captured tensor's Tensor table (its data stays in the debug buffer).
flatbuffers::Offset<fb::Tensor> captured_tensor(Builder& b, Span<const uint8_t> debug,
                                                size_t offset, size_t* next) {
  using namespace etdump_internal;
  CapturedTensorHeader header;
  memcpy(&header, debug.data() + offset, sizeof(header));
  const int32_t* shape =
      reinterpret_cast<const int32_t*>(debug.data() + offset + sizeof(header));
  std::vector<int64_t> sizes(shape, shape + header.dim);
  std::vector<int64_t> strides(shape + header.dim, shape + 2 * header.dim);
  *next = align_up(header.data_offset + header.nbytes);
  return fb::CreateTensorDirect(b, static_cast<executorch_flatbuffer::ScalarType>(header.dtype),
                                &sizes, &strides, header.data_offset);
}

flatbuffers::Offset<fb::Event> debug_event(Builder& b, const ETDumpTracer::Record& r,
                                           Span<const uint8_t> debug) {
  size_t offset = r.debug_offset;
  flatbuffers::Offset<fb::Value> value;
  auto output = fb::CreateBool(b, true);
  if (r.count == 1) {
    auto tensor = captured_tensor(b, debug, offset, &offset);
    value = fb::CreateValue(b, fb::ValueType::Tensor, tensor, 0, 0, 0, 0, 0, output);
  } else {
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    for (size_t i = 0; i < r.count; ++i) tensors.push_back(captured_tensor(b, debug, offset, &offset));
    auto list = fb::CreateTensorListDirect(b, &tensors);
    value = fb::CreateValue(b, fb::ValueType::TensorList, 0, list, 0, 0, 0, 0, output);
  }
  auto name = optional_string(b, r.name);
  auto event = fb::CreateDebugEvent(b, 0, r.instruction, value, -1, 0, name);
  return fb::CreateEvent(b, 0, 0, event);
}

// Every tensor the instructions name, in first-use order.
struct Lifetime {
  const Tensor* tensor;
  int first;
  int last;
};

void note_use(const Tensor* t, int instruction, std::map<const Tensor*, size_t>* index,
              std::vector<Lifetime>* out) {
  auto it = index->find(t);
  if (it == index->end()) {
    index->emplace(t, out->size());
    out->push_back({t, instruction, instruction});
  } else {
    (*out)[it->second].last = instruction;
  }
}

flatbuffers::Offset<fb::MethodInfo> method_info(Builder& b, const Method& method) {
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  std::map<const Tensor*, size_t> index;
  std::vector<Lifetime> lifetimes;
  for (size_t i = 0; i < method.num_instructions(); ++i) {
    Result<Method::InstructionInfo> info = method.instruction_info(i);
    if (!info.ok()) break;
    std::string name = info->name;
    if (info->overload != nullptr && info->overload[0] != '\0') name += std::string(".") + info->overload;
    instructions.push_back(fb::CreateInstructionDirect(b, info->kind, name.c_str(), info->file,
                                                       info->line));
    for (EValue* arg : info->args) {
      if (arg->is_tensor()) note_use(&arg->to_tensor(), static_cast<int>(i), &index, &lifetimes);
      if (arg->tag() == Tag::TensorList || arg->tag() == Tag::OptionalTensorList) {
        for (Tensor* t : arg->to_tensor_list()) {
          if (t != nullptr) note_use(t, static_cast<int>(i), &index, &lifetimes);
        }
      }
    }
  }
  const MemoryManager* memory = method.memory_manager();
  const PlannedMemory* planned = memory != nullptr ? memory->planned_memory : nullptr;
  const size_t num_arenas = planned != nullptr ? planned->num_arenas() : 0;
  const MethodMeta meta = method.meta();
  std::vector<flatbuffers::Offset<fb::Arena>> arenas;
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    Result<size_t> size = meta.planned_buffer_size(i);
    arenas.push_back(fb::CreateArena(b, static_cast<int32_t>(i + 1), size.ok() ? size.get() : 0));
  }
  std::vector<flatbuffers::Offset<fb::TensorLifetime>> tensors;
  for (const Lifetime& l : lifetimes) {
    const uint8_t* data = static_cast<const uint8_t*>(l.tensor->data());
    int32_t mem_id = 0;
    uint64_t offset = 0;
    for (size_t a = 0; a < num_arenas && data != nullptr; ++a) {
      const Span<uint8_t> arena = planned->arena(a);
      if (data >= arena.data() && data < arena.data() + arena.size()) {
        mem_id = static_cast<int32_t>(a + 1);
        offset = static_cast<uint64_t>(data - arena.data());
      }
    }
    bool is_output = false;
    for (size_t o = 0; o < method.num_outputs(); ++o) {
      Result<const EValue*> out = method.output(o);
      is_output = is_output || (out.ok() && out.get()->is_tensor() &&
                                &out.get()->to_tensor() == l.tensor);
    }
    tensors.push_back(fb::CreateTensorLifetime(b, mem_id, offset, l.tensor->nbytes(), l.first,
                                               l.last, is_output));
  }
  const MemoryAllocator* allocator = memory != nullptr ? memory->method_allocator : nullptr;
  return fb::CreateMethodInfoDirect(b, method.name(), &instructions, &arenas, &tensors,
                                    allocator != nullptr ? allocator->used() : 0,
                                    allocator != nullptr ? allocator->capacity() : 0);
}

}  // namespace

std::vector<uint8_t> ETDumpTracer::serialize() const {
  Builder b(1 << 16);
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  std::vector<flatbuffers::Offset<fb::Event>> events;
  const char* run_name = nullptr;
  bool open = false;
  const Span<const uint8_t> debug(debug_.data(), debug_used_);
  auto close_run = [&]() {
    if (!open) return;
    runs.push_back(fb::CreateRunDataDirect(b, run_name, -1, nullptr, &events));
    events.clear();
    open = false;
  };
  for (size_t i = 0; i < num_records_; ++i) {
    const Record& r = records_[i];
    switch (r.type) {
      case Record::Type::LoadBlock:
      case Record::Type::RunBlock:
        close_run();
        run_name = r.name;
        open = true;
        break;
      case Record::Type::Profile:
      case Record::Type::Load:
        if (!open) {  // events before any block (a tracer attached mid-run)
          run_name = "events";
          open = true;
        }
        events.push_back(profile_event(b, r));
        break;
      case Record::Type::Debug:
        if (!open) {
          run_name = "events";
          open = true;
        }
        events.push_back(debug_event(b, r, debug));
        break;
    }
  }
  close_run();
  std::vector<flatbuffers::Offset<fb::MethodInfo>> methods;
  for (size_t i = 0; i < num_methods_; ++i) methods.push_back(method_info(b, *methods_[i]));
  b.ForceVectorAlignment(debug.size(), 1, etdump_internal::kCaptureAlignment);
  auto debug_bytes = b.CreateVector(debug.data(), debug.size());
  auto root = fb::CreateETDump(b, kETDumpVersion, b.CreateVector(runs), b.CreateVector(methods),
                               dropped_events_, dropped_debug_, debug_bytes, b.CreateString("ns"));
  fb::FinishSizePrefixedETDumpBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

Error ETDumpTracer::write_file(const char* path) const {
  const std::vector<uint8_t> bytes = serialize();
  FILE* f = fopen(path, "wb");
  TE_CHECK_OR_RETURN(f != nullptr, Error::InvalidArgument, "cannot open '%s' for writing", path);
  const size_t written = fwrite(bytes.data(), 1, bytes.size(), f);
  const bool closed = fclose(f) == 0;
  TE_CHECK_OR_RETURN(written == bytes.size() && closed, Error::InvalidArgument,
                     "cannot write the %zu-byte ETDump to '%s'", bytes.size(), path);
  return Error::Ok;
}

}  // namespace torchedge
