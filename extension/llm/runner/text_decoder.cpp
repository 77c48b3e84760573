#include "extension/llm/runner/text_decoder.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {

TextDecoder::TextDecoder(std::string path, ModuleOptions options)
    : module_(std::move(path), options) {}

Result<int64_t> TextDecoder::read_constant(const char* method) {
  auto names = module_.method_names();
  if (!names.ok()) return names.error();
  bool found = false;
  for (const std::string& name : names.get()) found = found || name == method;
  TE_CHECK_OR_RETURN(found, Error::InvalidProgram,
                     "not an LLM program: it has no method '%s' (export it with "
                     "torchedge.llm.export)", method);
  auto outputs = module_.execute(method, {});
  if (!outputs.ok()) return outputs.error();
  TE_CHECK_OR_RETURN(outputs.get().size() == 1 && outputs.get()[0].is_int(), Error::InvalidProgram,
                     "LLM program: method '%s' must return one int", method);
  return outputs.get()[0].to_int();
}

Error TextDecoder::load() {
  if (loaded_) return Error::Ok;
  TE_RETURN_IF_ERROR(module_.load());
  TE_ASSIGN_OR_RETURN(metadata_.max_context, read_constant("get_max_context_len"));
  TE_ASSIGN_OR_RETURN(metadata_.max_seq_len, read_constant("get_max_seq_len"));
  TE_ASSIGN_OR_RETURN(metadata_.vocab_size, read_constant("get_vocab_size"));
  TE_ASSIGN_OR_RETURN(metadata_.n_layers, read_constant("get_n_layers"));
  TE_ASSIGN_OR_RETURN(const int64_t full, read_constant("get_full_logits"));
  TE_ASSIGN_OR_RETURN(const int64_t kv_cache, read_constant("use_kv_cache"));
  metadata_.full_logits = full != 0;
  TE_CHECK_OR_RETURN(kv_cache == 1, Error::NotSupported,
                     "LLM program without a KV cache (use_kv_cache = %lld) is not supported",
                     static_cast<long long>(kv_cache));
  TE_CHECK_OR_RETURN(metadata_.max_context > 0 && metadata_.max_seq_len > 0 &&
                         metadata_.max_seq_len <= metadata_.max_context && metadata_.vocab_size > 0,
                     Error::InvalidProgram,
                     "LLM program metadata is inconsistent: max_context %lld, max_seq_len %lld, "
                     "vocab_size %lld", static_cast<long long>(metadata_.max_context),
                     static_cast<long long>(metadata_.max_seq_len),
                     static_cast<long long>(metadata_.vocab_size));
  TE_ASSIGN_OR_RETURN(method_, module_.method("forward"));
  TE_CHECK_OR_RETURN(method_->num_inputs() == 2 && method_->num_outputs() == 1,
                     Error::InvalidProgram,
                     "LLM program: forward must take (tokens, start_pos) and return logits; it "
                     "takes %zu inputs and returns %zu outputs", method_->num_inputs(),
                     method_->num_outputs());
  tokens_.assign(static_cast<size_t>(metadata_.max_seq_len), 0);
  tokens_sizes_[1] = static_cast<Tensor::SizesType>(metadata_.max_seq_len);
  tokens_tensor_ = Tensor(ScalarType::Long, 2, tokens_sizes_, tokens_dim_order_, tokens_strides_,
                          tokens_.data(), TensorShapeDynamism::DynamicBound);
  pos_tensor_ = Tensor(ScalarType::Long, 1, pos_sizes_, pos_dim_order_, pos_strides_, &start_pos_);
  loaded_ = true;
  return Error::Ok;
}

Result<Span<const float>> TextDecoder::forward(Span<const int64_t> tokens, int64_t start_pos) {
  TE_CHECK_OR_RETURN(loaded_, Error::InvalidState, "TextDecoder: load() first");
  const int64_t count = static_cast<int64_t>(tokens.size());
  TE_CHECK_OR_RETURN(count > 0 && count <= metadata_.max_seq_len, Error::InvalidArgument,
                     "forward takes 1 to %lld tokens per call, got %lld",
                     static_cast<long long>(metadata_.max_seq_len), static_cast<long long>(count));
  TE_CHECK_OR_RETURN(start_pos >= 0 && start_pos <= metadata_.max_context - count,
                     Error::InvalidArgument,
                     "positions [%lld, %lld) run past the context of %lld tokens",
                     static_cast<long long>(start_pos), static_cast<long long>(start_pos + count),
                     static_cast<long long>(metadata_.max_context));
  for (int64_t i = 0; i < count; ++i) {
    TE_CHECK_OR_RETURN(tokens[i] >= 0 && tokens[i] < metadata_.vocab_size, Error::InvalidArgument,
                       "token %lld at position %lld is outside the vocabulary of %lld",
                       static_cast<long long>(tokens[i]), static_cast<long long>(start_pos + i),
                       static_cast<long long>(metadata_.vocab_size));
    tokens_[static_cast<size_t>(i)] = tokens[i];
  }
  const Tensor::SizesType sizes[2] = {1, static_cast<Tensor::SizesType>(count)};
  TE_RETURN_IF_ERROR(tokens_tensor_.resize({sizes, 2}));
  start_pos_ = start_pos;
  TE_RETURN_IF_ERROR(method_->set_input(0, EValue(&tokens_tensor_)));
  TE_RETURN_IF_ERROR(method_->set_input(1, EValue(&pos_tensor_)));
  TE_RETURN_IF_ERROR(method_->execute());
  TE_ASSIGN_OR_RETURN(const EValue* out, method_->output(0));
  TE_CHECK_OR_RETURN(out->is_tensor() && out->to_tensor().dtype() == ScalarType::Float,
                     Error::InvalidProgram, "LLM program: forward must return float32 logits");
  const Tensor& logits = out->to_tensor();
  const size_t vocab = static_cast<size_t>(metadata_.vocab_size);
  TE_CHECK_OR_RETURN(logits.numel() % vocab == 0 && logits.numel() > 0, Error::InvalidProgram,
                     "LLM program: logits of %zu elements are not rows of the vocabulary (%zu)",
                     logits.numel(), vocab);
  last_rows_ = logits.numel() / vocab;
  const float* data = logits.data_as<float>();
  return Span<const float>(data + (last_rows_ - 1) * vocab, vocab);
}

Result<Span<const float>> TextDecoder::all_logits() const {
  TE_CHECK_OR_RETURN(loaded_ && last_rows_ > 0, Error::InvalidState,
                     "TextDecoder: no forward() has run");
  TE_ASSIGN_OR_RETURN(const EValue* out, method_->output(0));
  const Tensor& logits = out->to_tensor();
  return Span<const float>(logits.data_as<float>(), logits.numel());
}

size_t TextDecoder::planned_bytes() const { return module_.planned_bytes("forward"); }

}  // namespace llm
}  // namespace torchedge
