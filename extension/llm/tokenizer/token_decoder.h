// torchedge/extension/llm/tokenizer/token_decoder.h
//
// Streaming detokenization: text for one generated token at a time, such
// that printed output never shows a broken character. A byte-level token can
// end in the middle of a UTF-8 character (an emoji is often 2-4 tokens); the
// decoder holds those bytes back until the character completes.
//
//   TokenDecoder decoder(tokenizer);
//   for each generated id:  decoder.push(id, piece); print(piece);
//   at the end:             decoder.finish(piece);   print(piece);
//
// The concatenation of every piece equals tokenizer.decode(all ids): invalid
// bytes become U+FFFD as soon as they are known to be invalid, and finish()
// turns an unfinished tail into one U+FFFD.
#pragma once

#include <string>

#include "extension/llm/tokenizer/tokenizer.h"

namespace torchedge {
namespace llm {

class TokenDecoder {
 public:
  /// `tokenizer` must outlive the decoder.
  explicit TokenDecoder(const Tokenizer& tokenizer, bool skip_special = false);

  /// Sets `text` to the characters `id` completes (possibly empty).
  /// InvalidArgument for an id out of range; the decoder is then unchanged.
  Error push(TokenId id, std::string& text);

  /// Sets `text` to what is still held back (U+FFFD or empty) and resets.
  void finish(std::string& text);

  /// Forgets held-back bytes (a new stream begins).
  void reset() { pending_.clear(); }

  /// Bytes held back so far (0..3).
  size_t pending_bytes() const { return pending_.size(); }

 private:
  const Tokenizer& tokenizer_;
  bool skip_special_;
  std::string pending_;  // an unfinished UTF-8 sequence, at most 3 bytes
  std::string bytes_;    // scratch: pending_ + the new token's bytes
};

}  // namespace llm
}  // namespace torchedge
