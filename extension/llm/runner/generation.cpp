#include "extension/llm/runner/generation.h"

#include <chrono>

#include "extension/llm/tokenizer/gguf_tokenizer.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::EndOfTurn: return "end of turn";
    case StopReason::MaxNewTokens: return "max new tokens";
    case StopReason::ContextFull: return "context full";
  }
  return "unknown";
}

LlmRunner::LlmRunner(std::string model_path, std::string tokenizer_path, ModuleOptions options)
    : decoder_(std::move(model_path), options), tokenizer_path_(std::move(tokenizer_path)) {}

Error LlmRunner::load() {
  if (loaded_) return Error::Ok;
  TE_RETURN_IF_ERROR(decoder_.load());
  TE_ASSIGN_OR_RETURN(tokenizer_, load_tokenizer(tokenizer_path_));
  const int64_t vocab = static_cast<int64_t>(tokenizer_->vocab_size());
  TE_CHECK_OR_RETURN(vocab <= decoder_.metadata().vocab_size, Error::InvalidArgument,
                     "tokenizer %s has %lld tokens but the model's logits cover %lld: they do not "
                     "belong together", tokenizer_path_.c_str(), static_cast<long long>(vocab),
                     static_cast<long long>(decoder_.metadata().vocab_size));
  history_.reserve(static_cast<size_t>(decoder_.metadata().max_context));
  loaded_ = true;
  return Error::Ok;
}

void LlmRunner::reset() {
  history_.clear();
  position_ = 0;
  pending_ = -1;
}

Result<std::string> LlmRunner::chat_prompt(const std::string& user_message,
                                           const std::string& system_prompt) const {
  TE_CHECK_OR_RETURN(loaded_, Error::InvalidState, "LlmRunner: load() first");
  TE_ASSIGN_OR_RETURN(ChatTemplate chat, ChatTemplate::from_jinja(tokenizer_->chat_template()));
  const bool first = position_ == 0 && pending_ < 0;
  const bool after_end = !history_.empty() && pending_ < 0 &&
                         tokenizer_->is_end_of_turn(static_cast<TokenId>(history_.back()));
  return chat.user_turn(user_message, system_prompt, first, after_end);
}

Result<Span<const float>> LlmRunner::prefill(const std::vector<int64_t>& tokens) {
  const int64_t chunk = decoder_.metadata().max_seq_len;
  Span<const float> logits;
  for (size_t begin = 0; begin < tokens.size(); begin += static_cast<size_t>(chunk)) {
    const size_t count = std::min(tokens.size() - begin, static_cast<size_t>(chunk));
    TE_ASSIGN_OR_RETURN(logits, decoder_.forward({tokens.data() + begin, count}, position_));
    history_.insert(history_.end(), tokens.begin() + static_cast<std::ptrdiff_t>(begin),
                    tokens.begin() + static_cast<std::ptrdiff_t>(begin + count));
    position_ += static_cast<int64_t>(count);
  }
  return logits;
}

Result<GenerationStats> LlmRunner::generate(const std::string& prompt,
                                            const GenerationConfig& config,
                                            const TextCallback& on_text) {
  TE_CHECK_OR_RETURN(loaded_, Error::InvalidState, "LlmRunner: load() first");
  EncodeOptions options;
  options.add_bos = position_ == 0 && tokenizer_->adds_bos_by_default();
  TE_ASSIGN_OR_RETURN(std::vector<TokenId> ids, tokenizer_->encode(prompt, options));
  return generate_tokens(std::vector<int64_t>(ids.begin(), ids.end()), config, on_text);
}

Result<GenerationStats> LlmRunner::generate_tokens(const std::vector<int64_t>& user_prompt,
                                                   const GenerationConfig& config,
                                                   const TextCallback& on_text) {
  TE_CHECK_OR_RETURN(loaded_, Error::InvalidState, "LlmRunner: load() first");
  TE_CHECK_OR_RETURN(!user_prompt.empty(), Error::InvalidArgument, "the prompt is empty");
  std::vector<int64_t> prompt;
  prompt.reserve(user_prompt.size() + 1);
  if (pending_ >= 0) prompt.push_back(pending_);
  prompt.insert(prompt.end(), user_prompt.begin(), user_prompt.end());
  const int64_t context = decoder_.metadata().max_context;
  const int64_t room = context - position_;
  TE_CHECK_OR_RETURN(static_cast<int64_t>(prompt.size()) < room, Error::InvalidArgument,
                     "the prompt has %zu tokens but only %lld of the context's %lld remain "
                     "(prompts are never truncated; reset() or export with a larger "
                     "max_context)", prompt.size(), static_cast<long long>(room),
                     static_cast<long long>(context));
  TE_CHECK_OR_RETURN(config.max_new_tokens >= 0, Error::InvalidArgument,
                     "max_new_tokens must be >= 0, got %lld",
                     static_cast<long long>(config.max_new_tokens));
  TE_ASSIGN_OR_RETURN(Sampler sampler,
                      Sampler::create(static_cast<size_t>(decoder_.metadata().vocab_size),
                                      config.sampling));
  TokenDecoder text(*tokenizer_);
  std::string piece;
  GenerationStats stats;
  stats.prompt_tokens = static_cast<int64_t>(prompt.size());
  const auto start = std::chrono::steady_clock::now();
  pending_ = -1;
  TE_ASSIGN_OR_RETURN(Span<const float> logits, prefill(prompt));
  stats.prefill_s = seconds_since(start);

  auto decode_start = std::chrono::steady_clock::now();
  while (stats.new_tokens < config.max_new_tokens) {
    TE_ASSIGN_OR_RETURN(const TokenId sampled,
                        sampler.sample(logits, Span<const int64_t>(history_.data(), history_.size())));
    const int64_t next = sampled;
    ++stats.new_tokens;
    const bool end = config.stop_at_end_of_turn && tokenizer_->is_end_of_turn(static_cast<TokenId>(next));
    if (!end && on_text) {
      TE_RETURN_IF_ERROR(text.push(static_cast<TokenId>(next), piece));
      if (!piece.empty()) on_text(piece);
    }
    if (stats.new_tokens == 1) {
      stats.first_token_s = seconds_since(start);
      decode_start = std::chrono::steady_clock::now();
    }
    if (end) {
      // The end-of-turn token joins the cache so a chat can continue after it.
      if (position_ < context) {
        const int64_t token = next;
        TE_RETURN_IF_ERROR(decoder_.forward({&token, 1}, position_).error());
        history_.push_back(next);
        ++position_;
      }
      stats.stop_reason = StopReason::EndOfTurn;
      break;
    }
    if (position_ >= context) {
      stats.stop_reason = StopReason::ContextFull;
      break;
    }
    if (stats.new_tokens == config.max_new_tokens) {
      // The last token is not run: it is the caller's to continue from.
      stats.stop_reason = StopReason::MaxNewTokens;
      pending_ = next;
      break;
    }
    const int64_t token = next;
    TE_ASSIGN_OR_RETURN(logits, decoder_.forward({&token, 1}, position_));
    history_.push_back(next);
    ++position_;
  }
  text.finish(piece);
  if (on_text && !piece.empty()) on_text(piece);
  if (stats.new_tokens > 1) stats.decode_s = seconds_since(decode_start);
  stats.position = position_;
  return stats;
}

}  // namespace llm
}  // namespace torchedge
