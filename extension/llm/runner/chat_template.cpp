#include "extension/llm/runner/chat_template.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// The literal between `open` and `close` after the first `marker`, with the
// template's escaped newlines ("\n" inside a Jinja string) resolved.
std::string literal_after(const std::string& text, const std::string& marker,
                          const std::string& close) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size();
  const size_t end = text.find(close, begin);
  if (end == std::string::npos) return "";
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (text[i] == '\\' && i + 1 < end && text[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

Result<ChatTemplate> ChatTemplate::from_jinja(const std::string& jinja) {
  TE_CHECK_OR_RETURN(!jinja.empty(), Error::NotSupported,
                     "the tokenizer has no chat template (use a raw prompt)");
  if (jinja.find("<|im_start|>") != std::string::npos) {
    // A system turn written out literally is the default system message;
    // the newline after the role may be a real or an escaped one.
    std::string system = literal_after(jinja, "<|im_start|>system\n", "<|im_end|>");
    if (system.empty()) system = literal_after(jinja, "<|im_start|>system\\n", "<|im_end|>");
    return ChatTemplate(ChatFormat::ChatML, system);
  }
  if (jinja.find("<|start_header_id|>") != std::string::npos) {
    return ChatTemplate(ChatFormat::Llama3, "");
  }
  TE_CHECK_OR_RETURN(false, Error::NotSupported,
                     "unrecognized chat template (ChatML and Llama 3 are supported): %.60s",
                     jinja.c_str());
  return Error::NotSupported;
}

std::string ChatTemplate::user_turn(const std::string& message, const std::string& system,
                                    bool first, bool after_end_of_turn) const {
  const std::string& system_text = system.empty() ? default_system_ : system;
  std::string out;
  if (format_ == ChatFormat::ChatML) {
    if (!first) out += after_end_of_turn ? "\n" : "<|im_end|>\n";
    if (first && !system_text.empty()) out += "<|im_start|>system\n" + system_text + "<|im_end|>\n";
    out += "<|im_start|>user\n" + message + "<|im_end|>\n<|im_start|>assistant\n";
    return out;
  }
  if (!first && !after_end_of_turn) out += "<|eot_id|>";
  if (first) out += "<|begin_of_text|>";
  if (first && !system_text.empty()) {
    out += "<|start_header_id|>system<|end_header_id|>\n\n" + system_text + "<|eot_id|>";
  }
  out += "<|start_header_id|>user<|end_header_id|>\n\n" + message +
         "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
  return out;
}

}  // namespace llm
}  // namespace torchedge
