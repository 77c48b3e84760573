// BpeTokenizer on tiny vocabularies: merges by rank (leftmost among equal
// ranks), special and added tokens matched first (leftmost-longest), bos /
// eos, lossy decode, streaming decode, the word cache, threads, and the
// configuration errors.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "extension/llm/tokenizer/bpe_tokenizer.h"
#include "extension/llm/tokenizer/byte_level.h"
#include "extension/llm/tokenizer/token_decoder.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

using Ids = std::vector<TokenId>;

// Ids 0..255: the single bytes (spelled in the byte-level alphabet), then
// `extra` spellings; `merges` as "left right" spellings.
BpeTokenizerConfig tiny_config(const std::vector<std::string>& extra,
                               const std::vector<std::string>& merges) {
  BpeTokenizerConfig c;
  for (int b = 0; b < 256; ++b) c.tokens.push_back(byte_level_spelling(std::string(1, char(b))));
  for (const std::string& t : extra) c.tokens.push_back(t);
  c.merges = merges;
  return c;
}

std::unique_ptr<BpeTokenizer> make(BpeTokenizerConfig c) {
  Result<std::unique_ptr<BpeTokenizer>> t = BpeTokenizer::create(std::move(c));
  EXPECT_TRUE(t.ok()) << last_error_message();
  return t.ok() ? std::move(t.get()) : nullptr;
}

Ids encode(const Tokenizer& t, const std::string& text, EncodeOptions o = {}) {
  Result<Ids> ids = t.encode(text, o);
  EXPECT_TRUE(ids.ok()) << last_error_message();
  return ids.ok() ? ids.get() : Ids{};
}

std::string decode(const Tokenizer& t, const Ids& ids) {
  Result<std::string> s = t.decode(ids);
  EXPECT_TRUE(s.ok()) << last_error_message();
  return s.ok() ? s.get() : "";
}

TEST(BpeTokenizerTest, MergesApplyByRank) {
  // 256 ab, 257 bc, 258 abc; "b c" ranks before "a b".
  auto t = make(tiny_config({"ab", "bc", "abc"}, {"b c", "a b", "a bc"}));
  ASSERT_TRUE(t);
  EXPECT_EQ(encode(*t, "abc"), (Ids{258}));  // bc first, then a+bc
  EXPECT_EQ(encode(*t, "ab"), (Ids{256}));
  EXPECT_EQ(encode(*t, "abab"), (Ids{256, 256}));
  EXPECT_EQ(encode(*t, "cab"), (Ids{'c', 256}));

  auto u = make(tiny_config({"ab", "bc", "abc"}, {"a b", "b c", "ab c"}));
  EXPECT_EQ(encode(*u, "abc"), (Ids{258}));  // ab first, then ab+c
  auto v = make(tiny_config({"ab", "bc"}, {"a b", "b c"}));
  EXPECT_EQ(encode(*v, "abc"), (Ids{256, 'c'}));
  auto w = make(tiny_config({"ab", "bc"}, {"b c", "a b"}));
  EXPECT_EQ(encode(*w, "abc"), (Ids{'a', 257}));
}

TEST(BpeTokenizerTest, EqualRanksMergeLeftmostFirst) {
  auto t = make(tiny_config({"aa", "aaaa"}, {"a a", "aa aa"}));
  EXPECT_EQ(encode(*t, "aaa"), (Ids{256, 'a'}));
  EXPECT_EQ(encode(*t, "aaaaa"), (Ids{257, 'a'}));
  EXPECT_EQ(encode(*t, "aaaaaa"), (Ids{257, 256}));
}

TEST(BpeTokenizerTest, WordsComeFromThePreTokenizer) {
  // "Ġ a" merges a space into the following word only: words never merge
  // across a pre-tokenizer boundary.
  auto t = make(tiny_config({"\xc4\xa0" "a", "a\xc4\xa0"}, {"\xc4\xa0 a", "a \xc4\xa0"}));
  EXPECT_EQ(encode(*t, "a a"), (Ids{'a', 256}));
  EXPECT_EQ(decode(*t, encode(*t, "a a  a\n")), "a a  a\n");
}

TEST(BpeTokenizerTest, SpecialTokensAreMatchedLeftmostLongest) {
  BpeTokenizerConfig c = tiny_config({"<|s|>", "<|s|>x", "<tool>", "ab"}, {"a b"});
  c.token_types.assign(c.tokens.size(), static_cast<int32_t>(TokenType::Normal));
  c.token_types[256] = static_cast<int32_t>(TokenType::Control);
  c.token_types[257] = static_cast<int32_t>(TokenType::Control);
  c.token_types[258] = static_cast<int32_t>(TokenType::UserDefined);
  c.bos = 256;
  c.eos = 257;
  auto t = make(std::move(c));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->num_matched_tokens(), 3u);
  EXPECT_EQ(encode(*t, "ab<|s|>ab"), (Ids{259, 256, 259}));
  EXPECT_EQ(encode(*t, "<|s|>x<|s|>"), (Ids{257, 256}));  // the longer one wins
  EXPECT_EQ(encode(*t, "<tool><|s"), (Ids{258, '<', '|', 's'}));
  EncodeOptions plain;
  plain.parse_special = false;
  EXPECT_EQ(encode(*t, "<tool>", plain), (Ids{'<', 't', 'o', 'o', 'l', '>'}));
  EXPECT_TRUE(t->is_special(256));
  EXPECT_FALSE(t->is_special(258));  // user-defined: matched, not special
  EXPECT_EQ(t->decode(Ids{259, 256, 258}, /*skip_special=*/true).get(), "ab<tool>");
  EXPECT_TRUE(t->is_end_of_turn(257));
  EXPECT_FALSE(t->is_end_of_turn(256));
}

TEST(BpeTokenizerTest, BosAndEos) {
  BpeTokenizerConfig c = tiny_config({"<s>", "</s>"}, {});
  c.bos = 256;
  c.eos = 257;
  c.add_bos = true;
  auto t = make(std::move(c));
  EncodeOptions o;
  o.add_bos = o.add_eos = true;
  EXPECT_EQ(encode(*t, "hi", o), (Ids{256, 'h', 'i', 257}));
  EXPECT_EQ(t->encode("hi", true).get(), (Ids{256, 'h', 'i'}));
  EXPECT_TRUE(t->adds_bos_by_default());

  auto none = make(tiny_config({}, {}));
  EXPECT_EQ(none->bos_id(), kNoToken);
  EXPECT_EQ(none->encode("hi", o).error(), Error::InvalidArgument);
  EXPECT_NE(std::strstr(last_error_message(), "no bos token"), nullptr);
}

TEST(BpeTokenizerTest, DecodeRepairsBrokenCharacters) {
  auto t = make(tiny_config({}, {}));
  const std::string euro = "\xe2\x82\xac";
  const Ids ids = encode(*t, "x" + euro);
  EXPECT_EQ(ids, (Ids{'x', 0xe2, 0x82, 0xac}));
  EXPECT_EQ(decode(*t, ids), "x" + euro);
  EXPECT_EQ(decode(*t, Ids{'x', 0xe2, 0x82}), "x\xef\xbf\xbd");
  EXPECT_EQ(decode(*t, encode(*t, "\xff ok")), "\xef\xbf\xbd ok");
  EXPECT_EQ(t->decode(Ids{1, 300}).error(), Error::InvalidArgument);
  EXPECT_NE(std::strstr(last_error_message(), "position 1"), nullptr);
  EXPECT_EQ(t->token_bytes(-1).error(), Error::InvalidArgument);
  EXPECT_EQ(t->token_text(256).error(), Error::InvalidArgument);
  EXPECT_EQ(t->token_text(' ').get(), "\xc4\xa0");
  EXPECT_EQ(t->token_to_id("\xc4\xa0"), ' ');
  EXPECT_EQ(t->token_to_id("nope"), kNoToken);
}

TEST(BpeTokenizerTest, TokenDecoderHoldsBackUnfinishedCharacters) {
  auto t = make(tiny_config({}, {}));
  const std::string text = "a\xf0\x9f\x98\x80 \xe2\x82\xac!";  // a😀 €!
  const Ids ids = encode(*t, text);
  TokenDecoder d(*t);
  std::string piece, joined;
  std::vector<std::string> pieces;
  for (TokenId id : ids) {
    ASSERT_EQ(d.push(id, piece), Error::Ok);
    pieces.push_back(piece);
    joined += piece;
  }
  d.finish(piece);
  joined += piece;
  EXPECT_EQ(joined, text);
  EXPECT_EQ(pieces[1], "");  // first byte of the emoji
  EXPECT_EQ(pieces[4], "\xf0\x9f\x98\x80");
  // Invalid bytes come out as soon as they are known to be invalid; a
  // dangling lead byte at the end on finish().
  for (const Ids& seq : {Ids{0xe2, 'x', 0xf0, 0x9f}, Ids{0x82, 0x82, 'a'}, Ids{0xed, 0xa0, 0x80}}) {
    std::string streamed;
    d.reset();
    for (TokenId id : seq) {
      ASSERT_EQ(d.push(id, piece), Error::Ok);
      streamed += piece;
    }
    d.finish(piece);
    streamed += piece;
    EXPECT_EQ(streamed, decode(*t, seq));
  }
  EXPECT_EQ(d.push(999, piece), Error::InvalidArgument);
}

TEST(BpeTokenizerTest, CacheAndThreadsGiveTheSameIds) {
  auto t = make(tiny_config({"ab", "abab"}, {"a b", "ab ab"}));
  std::string text;
  for (int i = 0; i < 300; ++i) text += "abab ab a" + std::to_string(i % 17) + " ";
  const Ids first = encode(*t, text);
  EXPECT_EQ(encode(*t, text), first);
  std::vector<Ids> results(4);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < results.size(); ++k) {
    threads.emplace_back([&, k] {
      for (int r = 0; r < 20; ++r) results[k] = t->encode(text).get();
    });
  }
  for (std::thread& th : threads) th.join();
  for (const Ids& r : results) EXPECT_EQ(r, first);
  EXPECT_EQ(decode(*t, first), text);
}

TEST(BpeTokenizerTest, ConfigurationErrors) {
  BpeTokenizerConfig missing = tiny_config({}, {"a b"});  // "ab" is not a token
  EXPECT_EQ(BpeTokenizer::create(std::move(missing)).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "the joined token"), nullptr) << last_error_message();

  EXPECT_EQ(BpeTokenizer::create(tiny_config({"ab"}, {"ab"})).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "is not 'left right'"), nullptr);
  EXPECT_EQ(BpeTokenizer::create(tiny_config({"ab"}, {"a b c"})).error(), Error::InvalidProgram);

  BpeTokenizerConfig types = tiny_config({}, {});
  types.token_types = {1, 1};
  EXPECT_EQ(BpeTokenizer::create(std::move(types)).error(), Error::InvalidProgram);

  BpeTokenizerConfig bos = tiny_config({}, {});
  bos.bos = 256;
  EXPECT_EQ(BpeTokenizer::create(std::move(bos)).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "bos id 256"), nullptr);

  BpeTokenizerConfig pre = tiny_config({}, {});
  pre.pre_tokenizer = "qwen2";
  EXPECT_EQ(BpeTokenizer::create(std::move(pre)).error(), Error::NotSupported);

  EXPECT_EQ(BpeTokenizer::create(BpeTokenizerConfig{}).error(), Error::InvalidProgram);
}

TEST(BpeTokenizerTest, BytesWithoutATokenAreDropped) {
  // A vocabulary without the byte 'z' skips it, as the reference does when
  // there is no unknown token.
  BpeTokenizerConfig c;
  c.tokens = {"a", "b"};
  auto t = make(std::move(c));
  EXPECT_EQ(encode(*t, "azb"), (Ids{0, 1}));
}

}  // namespace
}  // namespace llm
}  // namespace torchedge
