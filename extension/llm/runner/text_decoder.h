// torchedge/extension/llm/runner/text_decoder.h
//
// TextDecoder: a decoder-LLM program (.pte from torchedge.llm.export) as a
// function from tokens to next-token logits, over a Module:
//
//   forward(tokens int64 [1, T], start_pos int64 [1]) -> logits float32 [1, 1 or T, vocab]
//
// with the KV caches as the program's mutable state (planned memory,
// updated in place). T may be 1 .. max_seq_len() per call; start_pos + T
// must not exceed max_context(). The constant methods the exporter writes
// (get_max_context_len, get_max_seq_len, get_vocab_size, get_n_layers,
// use_kv_cache, get_full_logits) are read once at load; a program without
// them is not an LLM program (InvalidProgram naming the missing method).
//
// Memory: inputs and the Module's arenas are allocated at load();
// forward() performs no heap allocation. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/module/module.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace llm {

struct DecoderMetadata {
  int64_t max_context = 0;   // KV-cache rows: positions 0 .. max_context - 1
  int64_t max_seq_len = 0;   // tokens per forward() call
  int64_t vocab_size = 0;
  int64_t n_layers = 0;
  bool full_logits = false;  // forward returns every position's logits
};

class TextDecoder final {
 public:
  explicit TextDecoder(std::string path, ModuleOptions options = {});
  TextDecoder(const TextDecoder&) = delete;
  TextDecoder& operator=(const TextDecoder&) = delete;

  /// Loads the program, its metadata methods and `forward` (idempotent).
  Error load();
  /// Valid after load().
  const DecoderMetadata& metadata() const { return metadata_; }

  /// Runs tokens [start_pos, start_pos + tokens.size()) through the model.
  /// Returns the logits of the last token (vocab_size floats), valid until
  /// the next forward(). InvalidArgument when the tokens are empty, more
  /// than max_seq_len(), run past max_context(), or hold an id outside the
  /// vocabulary.
  Result<Span<const float>> forward(Span<const int64_t> tokens, int64_t start_pos);

  /// With full logits: all rows of the last forward() ([T, vocab]).
  Result<Span<const float>> all_logits() const;

  /// Planned arena bytes of forward (KV caches included).
  size_t planned_bytes() const;

  /// The loaded forward method (profiling: Method::set_event_tracer with an InstructionTimer);
  /// nullptr before load().
  Method* method() { return method_; }

 private:
  Result<int64_t> read_constant(const char* method);

  Module module_;
  Method* method_ = nullptr;
  DecoderMetadata metadata_;
  bool loaded_ = false;
  // Input tensors: tokens [1, T] (capacity max_seq_len) and start_pos [1].
  std::vector<int64_t> tokens_;
  int64_t start_pos_ = 0;
  Tensor::SizesType tokens_sizes_[2] = {1, 1};
  Tensor::SizesType tokens_strides_[2] = {1, 1};
  uint8_t tokens_dim_order_[2] = {0, 1};
  Tensor::SizesType pos_sizes_[1] = {1};
  Tensor::SizesType pos_strides_[1] = {1};
  uint8_t pos_dim_order_[1] = {0};
  Tensor tokens_tensor_;
  Tensor pos_tensor_;
  size_t last_rows_ = 0;
};

}  // namespace llm
}  // namespace torchedge
