#include "extension/llm/tokenizer/bpe_tokenizer.h"

#include <algorithm>

#include "extension/llm/tokenizer/byte_level.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// Control-token spellings that end a turn or the text in common chat models.
constexpr const char* kEndOfTurnTexts[] = {
    "<|im_end|>",   "<|endoftext|>", "<|eot_id|>", "<|eom_id|>",   "<|end|>",
    "<|end_of_text|>", "<end_of_turn>", "<EOT>",    "<|return|>", "<end_of_utterance>",
};

bool is_end_of_turn_text(std::string_view text) {
  for (const char* t : kEndOfTurnTexts) {
    if (text == t) return true;
  }
  return false;
}

Error check_config_id(TokenId id, size_t vocab_size, const char* what) {
  TE_CHECK_OR_RETURN(id == kNoToken || (id >= 0 && static_cast<size_t>(id) < vocab_size),
                     Error::InvalidProgram, "%s id %d is outside the vocabulary of %zu tokens",
                     what, id, vocab_size);
  return Error::Ok;
}

// "left right" -> the two parts' bytes.
Error parse_merge(const std::string& merge, size_t rank,
                  std::pair<std::string, std::string>& out) {
  const size_t space = merge.size() > 1 ? merge.find(' ', 1) : std::string::npos;
  TE_CHECK_OR_RETURN(space != std::string::npos && space + 1 < merge.size() &&
                         merge.find(' ', space + 1) == std::string::npos,
                     Error::InvalidProgram, "BPE merge %zu ('%.64s') is not 'left right'", rank,
                     merge.c_str());
  out.first = byte_level_bytes(std::string_view(merge).substr(0, space));
  out.second = byte_level_bytes(std::string_view(merge).substr(space + 1));
  return Error::Ok;
}

}  // namespace

Result<std::unique_ptr<BpeTokenizer>> BpeTokenizer::create(BpeTokenizerConfig config) {
  const size_t n = config.tokens.size();
  TE_CHECK_OR_RETURN(n > 0, Error::InvalidProgram, "BPE tokenizer: the vocabulary is empty");
  TE_CHECK_OR_RETURN(config.token_types.empty() || config.token_types.size() == n,
                     Error::InvalidProgram, "BPE tokenizer: %zu token types for %zu tokens",
                     config.token_types.size(), n);
  TE_RETURN_IF_ERROR(check_config_id(config.bos, n, "bos"));
  TE_RETURN_IF_ERROR(check_config_id(config.eos, n, "eos"));
  TE_RETURN_IF_ERROR(check_config_id(config.pad, n, "padding"));
  TE_RETURN_IF_ERROR(check_config_id(config.unk, n, "unknown"));
  TE_RETURN_IF_ERROR(check_config_id(config.eot, n, "end-of-turn"));
  TE_RETURN_IF_ERROR(check_config_id(config.eom, n, "end-of-message"));
  TE_ASSIGN_OR_RETURN(PreTokenizer pre, PreTokenizer::from_name(config.pre_tokenizer));

  std::vector<std::string> bytes(n);
  std::vector<uint8_t> spelled(n);
  for (size_t id = 0; id < n; ++id) {
    bool in_alphabet = false;
    bytes[id] = byte_level_bytes(config.tokens[id], &in_alphabet);
    spelled[id] = in_alphabet;
  }
  std::vector<std::pair<std::string, std::string>> merges(config.merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    TE_RETURN_IF_ERROR(parse_merge(config.merges[rank], rank, merges[rank]));
  }
  TE_ASSIGN_OR_RETURN(BpeModel model, BpeModel::create(std::move(bytes), merges));

  std::unique_ptr<BpeTokenizer> t(new BpeTokenizer(std::move(model), pre));
  t->special_.assign(n, 0);
  std::vector<TokenId> ends;
  auto type_of = [&](size_t id) {
    return config.token_types.empty() ? TokenType::Normal
                                      : static_cast<TokenType>(config.token_types[id]);
  };
  for (size_t id = 0; id < n; ++id) {
    const TokenType type = type_of(id);
    const auto tid = static_cast<TokenId>(id);
    if (type == TokenType::Control) {
      t->special_[id] = 1;
      if (is_end_of_turn_text(config.tokens[id])) ends.push_back(tid);
    }
    if ((type == TokenType::Control || type == TokenType::UserDefined) && spelled[id]) {
      t->matcher_.add(config.tokens[id], tid);
    }
  }
  for (TokenId id : {config.bos, config.eos, config.unk, config.pad}) {
    if (id == kNoToken) continue;
    t->special_[static_cast<size_t>(id)] = 1;
    t->matcher_.add(config.tokens[static_cast<size_t>(id)], id);
  }
  for (TokenId id : {config.eos, config.eot, config.eom}) {
    if (id != kNoToken) ends.push_back(id);
  }
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());

  t->special_ids_.bos = config.bos;
  t->special_ids_.eos = config.eos;
  t->special_ids_.pad = config.pad;
  t->special_ids_.unk = config.unk;
  t->special_ids_.end_of_turn = std::move(ends);
  t->add_bos_by_default_ = config.add_bos;
  t->chat_template_ = std::move(config.chat_template);
  t->texts_ = std::move(config.tokens);
  return t;
}

Error BpeTokenizer::check_id(TokenId id) const {
  TE_CHECK_OR_RETURN(id >= 0 && static_cast<size_t>(id) < vocab_size(), Error::InvalidArgument,
                     "token id %d is outside the vocabulary [0, %zu)", id, vocab_size());
  return Error::Ok;
}

Result<std::string_view> BpeTokenizer::token_bytes(TokenId id) const {
  TE_RETURN_IF_ERROR(check_id(id));
  return model_.bytes(id);
}

Result<std::string_view> BpeTokenizer::token_text(TokenId id) const {
  TE_RETURN_IF_ERROR(check_id(id));
  return std::string_view(texts_[static_cast<size_t>(id)]);
}

TokenId BpeTokenizer::token_to_id(std::string_view text) const {
  return model_.find(byte_level_bytes(text));
}

bool BpeTokenizer::is_special(TokenId id) const {
  return id >= 0 && static_cast<size_t>(id) < special_.size() && special_[static_cast<size_t>(id)];
}

Error BpeTokenizer::encode_text(std::string_view text, bool parse_special,
                                std::vector<TokenId>& out) const {
  thread_local std::vector<std::string_view> words;
  size_t pos = 0;
  while (true) {
    const SpecialTokenMatcher::Match m =
        parse_special ? matcher_.find(text, pos)
                      : SpecialTokenMatcher::Match{text.size(), 0, kNoToken};
    words.clear();
    pre_tokenizer_.split(text.substr(pos, m.begin - pos), words);
    for (std::string_view word : words) model_.encode_word(word, out);
    if (m.id == kNoToken) break;
    out.push_back(m.id);
    pos = m.begin + m.length;
  }
  return Error::Ok;
}

}  // namespace llm
}  // namespace torchedge
