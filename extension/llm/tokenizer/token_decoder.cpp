#include "extension/llm/tokenizer/token_decoder.h"

#include "extension/llm/tokenizer/utf8.h"

namespace torchedge {
namespace llm {

TokenDecoder::TokenDecoder(const Tokenizer& tokenizer, bool skip_special)
    : tokenizer_(tokenizer), skip_special_(skip_special) {}

Error TokenDecoder::push(TokenId id, std::string& text) {
  text.clear();
  Result<std::string_view> piece = tokenizer_.token_bytes(id);
  if (!piece.ok()) return piece.error();
  if (skip_special_ && tokenizer_.is_special(id)) return Error::Ok;
  bytes_.assign(pending_);
  bytes_.append(piece->data(), piece->size());
  // The held-back tail starts with a lead byte, so the bytes before it end on
  // a boundary the whole-text decode also has: repairing them now gives the
  // same characters decode() would.
  const size_t tail = unfinished_utf8_tail(bytes_);
  append_utf8_lossy(std::string_view(bytes_.data(), bytes_.size() - tail), text);
  pending_.assign(bytes_, bytes_.size() - tail, tail);
  return Error::Ok;
}

void TokenDecoder::finish(std::string& text) {
  text.clear();
  append_utf8_lossy(pending_, text);
  pending_.clear();
}

}  // namespace llm
}  // namespace torchedge
