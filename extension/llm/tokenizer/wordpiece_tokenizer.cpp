#include "extension/llm/tokenizer/wordpiece_tokenizer.h"

#include "extension/llm/tokenizer/bpe_tokenizer.h"  // TokenType
#include "extension/llm/tokenizer/utf8.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

Error check_config_id(TokenId id, size_t vocab_size, const char* what) {
  TE_CHECK_OR_RETURN(id == kNoToken || (id >= 0 && static_cast<size_t>(id) < vocab_size),
                     Error::InvalidProgram,
                     "WordPiece tokenizer: %s id %d is outside the vocabulary of %zu tokens", what,
                     id, vocab_size);
  return Error::Ok;
}

// The reference decoder's cleanup glues these to the word before them.
bool joins_previous(std::string_view text) {
  return text == "." || text == "?" || text == "!" || text == ",";
}

}  // namespace

Result<std::unique_ptr<WordPieceTokenizer>> WordPieceTokenizer::create(
    WordPieceTokenizerConfig config) {
  const size_t n = config.tokens.size();
  TE_CHECK_OR_RETURN(n > 0, Error::InvalidProgram, "WordPiece tokenizer: the vocabulary is empty");
  TE_CHECK_OR_RETURN(n < static_cast<size_t>(INT32_MAX), Error::InvalidProgram,
                     "WordPiece tokenizer: %zu tokens do not fit int32 ids", n);
  TE_CHECK_OR_RETURN(config.token_types.empty() || config.token_types.size() == n,
                     Error::InvalidProgram, "WordPiece tokenizer: %zu token types for %zu tokens",
                     config.token_types.size(), n);
  TE_CHECK_OR_RETURN(config.unk != kNoToken, Error::InvalidProgram,
                     "WordPiece tokenizer: no unknown token ([UNK]) id");
  TE_CHECK_OR_RETURN(config.max_input_chars_per_word > 0, Error::InvalidProgram,
                     "WordPiece tokenizer: max_input_chars_per_word is 0");
  TE_RETURN_IF_ERROR(check_config_id(config.unk, n, "unknown"));
  TE_RETURN_IF_ERROR(check_config_id(config.cls, n, "cls"));
  TE_RETURN_IF_ERROR(check_config_id(config.sep, n, "separator"));
  TE_RETURN_IF_ERROR(check_config_id(config.pad, n, "padding"));
  TE_RETURN_IF_ERROR(check_config_id(config.mask, n, "mask"));

  std::unique_ptr<WordPieceTokenizer> t(new WordPieceTokenizer());
  t->prefix_ = std::move(config.continuing_subword_prefix);
  t->special_.assign(n, 0);
  t->bytes_.resize(n);
  t->ids_.reserve(n);
  for (size_t id = 0; id < n; ++id) {
    const std::string& text = config.tokens[id];
    const auto tid = static_cast<TokenId>(id);
    TE_CHECK_OR_RETURN(t->ids_.emplace(text, tid).second, Error::InvalidProgram,
                       "WordPiece tokenizer: token %zu ('%.64s') repeats an earlier spelling", id,
                       text.c_str());
    const auto type = config.token_types.empty() ? TokenType::Normal
                                                 : static_cast<TokenType>(config.token_types[id]);
    if (type == TokenType::Control || type == TokenType::UserDefined) {
      t->special_[id] = type == TokenType::Control;
      t->matcher_.add(text, tid);
    }
    const bool continuation = !t->prefix_.empty() && text.size() > t->prefix_.size() &&
                              text.compare(0, t->prefix_.size(), t->prefix_) == 0;
    if (continuation) {
      t->bytes_[id] = text.substr(t->prefix_.size());
    } else if (joins_previous(text)) {
      t->bytes_[id] = text;
    } else {
      t->bytes_[id] = " " + text;
    }
  }
  for (TokenId id : {config.unk, config.cls, config.sep, config.pad, config.mask}) {
    if (id == kNoToken) continue;
    t->special_[static_cast<size_t>(id)] = 1;
    t->matcher_.add(config.tokens[static_cast<size_t>(id)], id);
  }
  t->special_ids_.bos = config.cls;
  t->special_ids_.eos = config.sep;
  t->special_ids_.pad = config.pad;
  t->special_ids_.unk = config.unk;
  if (config.sep != kNoToken) t->special_ids_.end_of_turn = {config.sep};
  t->add_bos_by_default_ = config.add_cls && config.cls != kNoToken;
  t->add_eos_by_default_ = config.add_sep && config.sep != kNoToken;
  t->normalizer_ = config.normalizer;
  t->max_word_chars_ = config.max_input_chars_per_word;
  t->mask_ = config.mask;
  t->texts_ = std::move(config.tokens);
  return t;
}

Error WordPieceTokenizer::check_id(TokenId id) const {
  TE_CHECK_OR_RETURN(id >= 0 && static_cast<size_t>(id) < vocab_size(), Error::InvalidArgument,
                     "token id %d is outside the vocabulary [0, %zu)", id, vocab_size());
  return Error::Ok;
}

Result<std::string_view> WordPieceTokenizer::token_bytes(TokenId id) const {
  TE_RETURN_IF_ERROR(check_id(id));
  return std::string_view(bytes_[static_cast<size_t>(id)]);
}

Result<std::string_view> WordPieceTokenizer::token_text(TokenId id) const {
  TE_RETURN_IF_ERROR(check_id(id));
  return std::string_view(texts_[static_cast<size_t>(id)]);
}

TokenId WordPieceTokenizer::token_to_id(std::string_view text) const {
  auto it = ids_.find(std::string(text));
  return it == ids_.end() ? kNoToken : it->second;
}

bool WordPieceTokenizer::is_special(TokenId id) const {
  return id >= 0 && static_cast<size_t>(id) < special_.size() && special_[static_cast<size_t>(id)];
}

void WordPieceTokenizer::finish_decode(std::string& text) const {
  if (!text.empty() && text[0] == ' ') text.erase(0, 1);
}

Error WordPieceTokenizer::encode_text(std::string_view text, bool parse_special,
                                      std::vector<TokenId>& out) const {
  size_t pos = 0;
  while (true) {
    const SpecialTokenMatcher::Match m =
        parse_special ? matcher_.find(text, pos)
                      : SpecialTokenMatcher::Match{text.size(), 0, kNoToken};
    encode_stretch(text.substr(pos, m.begin - pos), out);
    if (m.id == kNoToken) break;
    out.push_back(m.id);
    pos = m.begin + m.length;
  }
  return Error::Ok;
}

void WordPieceTokenizer::encode_stretch(std::string_view text, std::vector<TokenId>& out) const {
  if (text.empty()) return;
  thread_local std::u32string normalized;
  thread_local std::vector<std::u32string_view> words;
  normalized.clear();
  words.clear();
  bert_normalize(text, normalizer_, normalized);
  bert_pre_tokenize(normalized, words);
  for (std::u32string_view word : words) encode_word(word, out);
}

void WordPieceTokenizer::encode_word(std::u32string_view word, std::vector<TokenId>& out) const {
  if (word.size() > max_word_chars_) {
    out.push_back(special_ids_.unk);
    return;
  }
  // The word in UTF-8 and where each character starts in it.
  thread_local std::string utf8;
  thread_local std::vector<size_t> starts;
  utf8.clear();
  starts.clear();
  for (char32_t c : word) {
    starts.push_back(utf8.size());
    append_utf8(c, utf8);
  }
  starts.push_back(utf8.size());

  const size_t first_piece = out.size();
  thread_local std::string candidate;
  size_t start = 0;  // in characters
  while (start < word.size()) {
    TokenId found = kNoToken;
    size_t end = word.size();
    for (; end > start; --end) {
      candidate.clear();
      if (start > 0) candidate.append(prefix_);
      candidate.append(utf8, starts[start], starts[end] - starts[start]);
      auto it = ids_.find(candidate);
      if (it != ids_.end()) {
        found = it->second;
        break;
      }
    }
    if (found == kNoToken) {  // some rest matches no piece: the word is unknown
      out.resize(first_piece);
      out.push_back(special_ids_.unk);
      return;
    }
    out.push_back(found);
    start = end;
  }
}

}  // namespace llm
}  // namespace torchedge
