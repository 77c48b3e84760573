// torchedge/extension/llm/tokenizer/pre_tokenizer.h
//
// Pre-tokenization of byte-level BPE: the text is cut into words before BPE
// merges run inside each word. Implemented as hand-written scanners (no
// std::regex) that split exactly as the reference regexes do under
// Oniguruma / fancy-regex semantics (leftmost alternative, greedy with
// backtracking):
//
//   Gpt2   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   Gpt2IsolatedDigits
//          every \p{N} character is a word of its own; the GPT-2 pattern then
//          splits the text between them, each stretch on its own (so `\s+(?!\S)`
//          sees the end of a stretch as the end of the text). This is
//          Hugging Face's Sequence[Digits(individual_digits), ByteLevel] and
//          llama.cpp's {"\p{N}", gpt2} pair.
//
// \p{L}, \p{N} and \s are those of unicode_categories.h. Bytes that are not
// valid UTF-8 count as [^\s\p{L}\p{N}] (one character per maximal subpart).
#pragma once

#include <string_view>
#include <vector>

#include "runtime/core/result.h"

namespace torchedge {
namespace llm {

enum class PreTokenizerKind {
  Gpt2,
  Gpt2IsolatedDigits,
};

class PreTokenizer {
 public:
  explicit PreTokenizer(PreTokenizerKind kind) : kind_(kind) {}

  /// The pre-tokenizer a GGUF file names in tokenizer.ggml.pre: "gpt2" ->
  /// Gpt2, "smollm" -> Gpt2IsolatedDigits. Any other name is NotSupported,
  /// with a message listing the supported names.
  static Result<PreTokenizer> from_name(std::string_view name);

  PreTokenizerKind kind() const { return kind_; }

  /// The name from_name() maps to this kind ("gpt2", "smollm").
  const char* name() const;

  /// Appends the words of `text` to `words`: non-empty views into `text` that
  /// cover it exactly, in order. Never fails, never reads out of `text`.
  void split(std::string_view text, std::vector<std::string_view>& words) const;

 private:
  PreTokenizerKind kind_;
};

}  // namespace llm
}  // namespace torchedge
