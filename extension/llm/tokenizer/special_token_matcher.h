// torchedge/extension/llm/tokenizer/special_token_matcher.h
//
// Finds special and added tokens ("<|im_start|>", "<think>") written in the
// text, before pre-tokenization: leftmost match first, and the longest of the
// tokens matching there (the reference's leftmost-longest Aho-Corasick
// semantics). Matching is on the raw text, byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "extension/llm/tokenizer/tokenizer.h"

namespace torchedge {
namespace llm {

class SpecialTokenMatcher {
 public:
  struct Match {
    size_t begin;  // offset in the searched text; text.size() if none
    size_t length;
    TokenId id;
  };

  SpecialTokenMatcher() = default;

  /// Adds a token to look for; empty texts are ignored. Several ids with the
  /// same text: the last one added wins.
  void add(std::string_view text, TokenId id);

  size_t size() const { return tokens_.size(); }

  /// The first match in text[from, end), or {text.size(), 0, kNoToken}.
  Match find(std::string_view text, size_t from) const;

 private:
  struct Entry {
    std::string text;
    TokenId id;
  };
  std::vector<Entry> tokens_;
  // For each first byte: indices into tokens_, longest text first.
  std::vector<std::vector<uint32_t>> by_first_byte_ = std::vector<std::vector<uint32_t>>(256);
};

}  // namespace llm
}  // namespace torchedge
