// torchedge/extension/llm/runner/chat_template.h
//
// Chat formatting for the families whose templates the runner recognizes
// in the model's Jinja chat template (tokenizer.chat_template): a Jinja
// interpreter is not part of an on-device runtime, so the template text is
// matched to one of these and an unrecognized one is NotSupported (naming
// its start) rather than guessed.
//
//   ChatML (SmolLM2, Qwen2):  <|im_start|>{role}\n{content}<|im_end|>\n ... <|im_start|>assistant\n
//   Llama 3:                  <|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|> ...
//
// A default system message written in the template (SmolLM2's "You are a
// helpful AI assistant named SmolLM, ...", inserted when the conversation
// does not start with one) is found and used the same way.
#pragma once

#include <string>

#include "runtime/core/result.h"

namespace torchedge {
namespace llm {

enum class ChatFormat { ChatML, Llama3 };

class ChatTemplate final {
 public:
  /// Recognizes `jinja` (NotSupported when it is empty or unknown).
  static Result<ChatTemplate> from_jinja(const std::string& jinja);

  /// Text of one user turn and the assistant header after it. `first`: the
  /// conversation starts here (system message first: `system`, else the
  /// template's default, if any). `after_end_of_turn`: the previous reply
  /// ended with its end-of-turn token (else that token is written first).
  std::string user_turn(const std::string& message, const std::string& system, bool first,
                        bool after_end_of_turn) const;

  ChatFormat format() const { return format_; }
  const std::string& default_system() const { return default_system_; }

 private:
  ChatTemplate(ChatFormat format, std::string default_system)
      : format_(format), default_system_(std::move(default_system)) {}

  ChatFormat format_;
  std::string default_system_;
};

}  // namespace llm
}  // namespace torchedge
