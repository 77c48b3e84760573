#include "devtools/etdump/etdump_tracer.h"

#include <cstring>

#include "devtools/etdump/captured_tensor.h"
#include "runtime/executor/method.h"
#include "runtime/platform/platform.h"

namespace torchedge {

namespace {

using etdump_internal::CapturedTensorHeader;

// Event names shared with upstream's ETDump readers (etdump.fbs).
const char* instruction_event_name(InstructionEvent::Kind kind) {
  switch (kind) {
    case InstructionEvent::Kind::Kernel: return "OPERATOR_CALL";
    case InstructionEvent::Kind::Delegate: return "DELEGATE_CALL";
    case InstructionEvent::Kind::Move: return "MOVE_CALL";
    case InstructionEvent::Kind::JumpFalse: return "JUMP_FALSE_CALL";
    case InstructionEvent::Kind::Free: return "FREE_CALL";
  }
  return "INSTRUCTION";
}

}  // namespace

ETDumpTracer::ETDumpTracer(Span<uint8_t> events, Span<uint8_t> debug) : debug_(debug) {
  // Records need their natural alignment; skip to it inside the buffer.
  const uintptr_t base = reinterpret_cast<uintptr_t>(events.data());
  const uintptr_t aligned = (base + alignof(Record) - 1) & ~uintptr_t{alignof(Record) - 1};
  const size_t skipped = static_cast<size_t>(aligned - base);
  if (events.data() != nullptr && skipped <= events.size()) {
    records_ = reinterpret_cast<Record*>(aligned);
    capacity_ = (events.size() - skipped) / sizeof(Record);
  }
  capture_ = debug.size() > 0;
}

void ETDumpTracer::reset() {
  num_records_ = 0;
  debug_used_ = 0;
  dropped_events_ = 0;
  dropped_debug_ = 0;
  in_load_block_ = false;
  open_load_ = open_init_ = open_execute_ = SIZE_MAX;
  num_methods_ = 0;
}

ETDumpTracer::Record* ETDumpTracer::append(Record::Type type, const char* name) {
  if (num_records_ >= capacity_) {
    ++dropped_events_;
    return nullptr;
  }
  Record* r = &records_[num_records_++];
  *r = Record{0, 0, name, nullptr, -1, -1, 0, 0, type, 0};
  return r;
}

void ETDumpTracer::begin_method_load(const char* method) {
  if (!in_load_block_) {
    append(Record::Type::LoadBlock, "load");
    in_load_block_ = true;
  }
  Record* r = append(Record::Type::Load, "Program::load_method");
  open_load_ = r != nullptr ? static_cast<size_t>(r - records_) : SIZE_MAX;
  if (r != nullptr) {
    r->delegate_debug_str = method;  // which method (Program-owned string)
    r->start_ns = platform_now_ns();
  }
}

void ETDumpTracer::end_method_load(const char* method, Error status) {
  if (open_load_ == SIZE_MAX) return;
  records_[open_load_].end_ns = platform_now_ns();
  records_[open_load_].failed = status != Error::Ok;
  open_load_ = SIZE_MAX;
}

void ETDumpTracer::begin_delegate_init(size_t delegate_index, const char* backend_id) {
  Record* r = append(Record::Type::Profile, "DELEGATE_INIT");
  open_init_ = r != nullptr ? static_cast<size_t>(r - records_) : SIZE_MAX;
  if (r == nullptr) return;
  r->delegate_debug_str = backend_id;
  r->delegate_debug_int = static_cast<int32_t>(delegate_index);
  r->start_ns = platform_now_ns();
}

void ETDumpTracer::end_delegate_init(size_t, const char*, Error status) {
  if (open_init_ == SIZE_MAX) return;
  records_[open_init_].end_ns = platform_now_ns();
  records_[open_init_].failed = status != Error::Ok;
  open_init_ = SIZE_MAX;
}

int ETDumpTracer::method_slot(const Method& method) {
  for (size_t i = 0; i < num_methods_; ++i) {
    if (methods_[i] == &method) return static_cast<int>(i);
  }
  if (num_methods_ == kMaxMethods) return -1;
  methods_[num_methods_] = &method;
  return static_cast<int>(num_methods_++);
}

void ETDumpTracer::begin_execute(const Method& method) {
  in_load_block_ = false;
  const int slot = method_slot(method);
  Record* block =
      append(Record::Type::RunBlock, block_name_ != nullptr ? block_name_ : method.name());
  if (block != nullptr) block->count = static_cast<uint16_t>(slot < 0 ? 0xffff : slot);
  open_execute_ = SIZE_MAX;
  if (!profiling_) return;
  Record* r = append(Record::Type::Profile, "Method::execute");
  if (r == nullptr) return;
  open_execute_ = static_cast<size_t>(r - records_);
  r->start_ns = platform_now_ns();
}

void ETDumpTracer::end_execute(const Method&, Error status) {
  current_instruction_ = -1;
  if (open_execute_ == SIZE_MAX) return;
  records_[open_execute_].end_ns = platform_now_ns();
  records_[open_execute_].failed = status != Error::Ok;
  open_execute_ = SIZE_MAX;
}

void ETDumpTracer::begin_instruction(size_t index) {
  current_instruction_ = static_cast<int32_t>(index);
  if (profiling_) instruction_start_ = platform_now_ns();
}

void ETDumpTracer::end_instruction(const InstructionEvent& event) {
  if (profiling_) {
    const uint64_t end = platform_now_ns();
    Record* r = append(Record::Type::Profile, instruction_event_name(event.kind));
    if (r != nullptr) {
      r->start_ns = instruction_start_;
      r->end_ns = end;
      r->instruction = static_cast<int32_t>(event.index);
      r->failed = event.status != Error::Ok;
    }
  }
  if (capture_ && event.status == Error::Ok && event.output != nullptr) capture(event);
}

void ETDumpTracer::log_delegate_event(const char* name, int32_t debug_id_int,
                                      const char* debug_id_str, uint64_t start_ns,
                                      uint64_t end_ns) {
  if (!profiling_) return;
  Record* r = append(Record::Type::Profile, name != nullptr ? name : "DELEGATE_EVENT");
  if (r == nullptr) return;
  r->start_ns = start_ns;
  r->end_ns = end_ns;
  r->instruction = current_instruction_;
  r->delegate_debug_int = debug_id_int;
  r->delegate_debug_str = debug_id_str;
}

// Copies one tensor into the debug buffer (header, sizes, strides, data);
// false, with nothing written, when it does not fit.
bool ETDumpTracer::capture_tensor(const Tensor& t) {
  using namespace etdump_internal;
  const size_t dim = static_cast<size_t>(t.dim());
  const size_t start = align_up(debug_used_);
  const size_t data_offset = start + header_bytes(dim);
  const size_t nbytes = t.data() != nullptr ? t.nbytes() : 0;
  if (start > debug_.size() || data_offset > debug_.size() ||
      nbytes > debug_.size() - data_offset || data_offset > UINT32_MAX) {
    return false;
  }
  CapturedTensorHeader header{nbytes, static_cast<uint32_t>(data_offset),
                              static_cast<int8_t>(t.dtype()), static_cast<uint8_t>(dim), 0};
  uint8_t* base = debug_.data();
  memcpy(base + start, &header, sizeof(header));
  int32_t* shape = reinterpret_cast<int32_t*>(base + start + sizeof(header));
  for (size_t d = 0; d < dim; ++d) {
    shape[d] = t.sizes()[d];
    shape[dim + d] = t.strides()[d];
  }
  if (nbytes > 0) memcpy(base + data_offset, t.data(), nbytes);
  debug_used_ = data_offset + nbytes;
  return true;
}

void ETDumpTracer::capture(const InstructionEvent& event) {
  const EValue& out = *event.output;
  const size_t rollback = debug_used_;
  uint32_t first = 0;
  size_t count = 0;
  bool fits = true;
  if (out.is_tensor()) {
    first = static_cast<uint32_t>(etdump_internal::align_up(debug_used_));
    fits = capture_tensor(out.to_tensor());
    count = 1;
  } else if (out.tag() == Tag::TensorList) {
    first = static_cast<uint32_t>(etdump_internal::align_up(debug_used_));
    for (Tensor* t : out.to_tensor_list()) {
      if (!(fits = capture_tensor(*t))) break;
      ++count;
    }
  } else {
    return;  // an in-place op's non-tensor result, a scalar: nothing to keep
  }
  if (!fits || count > UINT16_MAX) {
    debug_used_ = rollback;
    ++dropped_debug_;
    return;
  }
  Record* r = append(Record::Type::Debug, instruction_event_name(event.kind));
  if (r == nullptr) {
    debug_used_ = rollback;
    return;
  }
  r->instruction = static_cast<int32_t>(event.index);
  r->debug_offset = first;
  r->count = static_cast<uint16_t>(count);
}

}  // namespace torchedge
