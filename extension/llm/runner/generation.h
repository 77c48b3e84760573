// torchedge/extension/llm/runner/generation.h
//
// The generation loop: prompt text -> tokens -> prefill (chunks of at most
// max_seq_len tokens) -> decode one token at a time, sampling each next
// token and streaming its text to a callback, until an end-of-turn / EOS
// token, max_new_tokens, or the end of the context. A library over
// TextDecoder (so over Module), not a second executor.
//
//   LlmRunner runner("smollm2.pte", "smollm2.gguf");
//   runner.load();
//   GenerationConfig config;  // greedy unless temperature > 0
//   runner.generate(runner.chat_prompt("Hi!"), config,
//                   [](const std::string& piece) { fputs(piece.c_str(), stdout); });
//
// The runner keeps its position in the KV cache between calls, so a chat
// continues where the last reply ended; reset() starts again at 0.
// Policies: a prompt that does not fit the remaining context is an error
// (InvalidArgument naming both lengths), never truncated silently; reaching
// the end of the context stops generation with StopReason::ContextFull.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "extension/llm/runner/chat_template.h"
#include "extension/llm/runner/text_decoder.h"
#include "extension/llm/sampler/sampler.h"
#include "extension/llm/tokenizer/token_decoder.h"
#include "extension/llm/tokenizer/tokenizer.h"

namespace torchedge {
namespace llm {

struct GenerationConfig {
  int64_t max_new_tokens = 256;
  SamplerConfig sampling;       // greedy by default (temperature 0)
  bool stop_at_end_of_turn = true;
};

enum class StopReason { EndOfTurn, MaxNewTokens, ContextFull };
const char* stop_reason_name(StopReason reason);

struct GenerationStats {
  int64_t prompt_tokens = 0;
  int64_t new_tokens = 0;
  double prefill_s = 0;      // prompt forward calls
  double decode_s = 0;       // decode forward calls and sampling after the first token
  double first_token_s = 0;  // from generate() to the first token's text (prefill + sample)
  int64_t position = 0;      // KV-cache rows in use afterwards
  StopReason stop_reason = StopReason::MaxNewTokens;
  double prefill_tokens_per_s() const { return prefill_s > 0 ? prompt_tokens / prefill_s : 0; }
  double decode_tokens_per_s() const {
    return decode_s > 0 && new_tokens > 1 ? (new_tokens - 1) / decode_s : 0;
  }
};

using TextCallback = std::function<void(const std::string& piece)>;

class LlmRunner final {
 public:
  LlmRunner(std::string model_path, std::string tokenizer_path, ModuleOptions options = {});

  /// Loads the program and the tokenizer and checks they agree (the
  /// tokenizer's vocabulary must fit the model's logits: InvalidArgument
  /// naming both sizes otherwise). Idempotent.
  Error load();

  /// Encodes `prompt` (special tokens such as <|im_start|> recognized; BOS
  /// added when the tokenizer asks for it at the start of the context),
  /// runs it and generates. `on_text` receives the reply piece by piece
  /// (whole UTF-8 characters only); it may be empty.
  Result<GenerationStats> generate(const std::string& prompt, const GenerationConfig& config,
                                   const TextCallback& on_text);
  /// The same from token ids.
  Result<GenerationStats> generate_tokens(const std::vector<int64_t>& prompt,
                                          const GenerationConfig& config,
                                          const TextCallback& on_text);

  /// The chat-formatted text of one user turn, continuing the conversation
  /// (the tokenizer's chat template: ChatML for SmolLM2; the system prompt
  /// goes in front of the first turn when given).
  Result<std::string> chat_prompt(const std::string& user_message,
                                  const std::string& system_prompt = "") const;

  /// Forgets the conversation: the next prompt starts at position 0.
  void reset();

  int64_t position() const { return position_; }
  const DecoderMetadata& metadata() const { return decoder_.metadata(); }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  TextDecoder& decoder() { return decoder_; }

 private:
  Result<Span<const float>> prefill(const std::vector<int64_t>& tokens);

  TextDecoder decoder_;
  std::string tokenizer_path_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::vector<int64_t> history_;  // every token in the KV cache, in order
  int64_t position_ = 0;
  int64_t pending_ = -1;  // last token of a reply cut at max_new_tokens: not yet in the cache
  bool loaded_ = false;
};

}  // namespace llm
}  // namespace torchedge
