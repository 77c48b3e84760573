// WordPieceTokenizer on a tiny vocabulary: the BERT normalizer (control
// characters, whitespace, accents, casing, CJK), punctuation splitting,
// greedy longest-first pieces with "##", [UNK] for unmatched and over-long
// words, special tokens, decode, and the configuration errors. The Unicode
// tables (NFD, combining classes, lower case) are checked on known values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "extension/llm/tokenizer/bert_normalizer.h"
#include "extension/llm/tokenizer/unicode_normalization.h"
#include "extension/llm/tokenizer/wordpiece_tokenizer.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

using Ids = std::vector<TokenId>;

// 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK], then the words below.
const std::vector<std::string> kWords = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff", "##able", "hello", "world",
    ",",     "!",     "cafe",  "北",    "京",     "a",  "##b",   "##c",    "abc",   "'",
    "t",     "don",   "i",     "##s",   "istanbul"};

WordPieceTokenizerConfig tiny_config() {
  WordPieceTokenizerConfig c;
  c.tokens = kWords;
  c.token_types.assign(c.tokens.size(), 1);
  for (int i = 0; i < 5; ++i) c.token_types[i] = 3;
  c.pad = 0, c.unk = 1, c.cls = 2, c.sep = 3, c.mask = 4;
  c.max_input_chars_per_word = 9;
  return c;
}

std::unique_ptr<WordPieceTokenizer> make(WordPieceTokenizerConfig c = tiny_config()) {
  Result<std::unique_ptr<WordPieceTokenizer>> t = WordPieceTokenizer::create(std::move(c));
  EXPECT_TRUE(t.ok()) << last_error_message();
  return t.ok() ? std::move(t.get()) : nullptr;
}

Ids encode(const Tokenizer& t, const std::string& text, bool cls_sep = false, bool special = true) {
  EncodeOptions o;
  o.add_bos = o.add_eos = cls_sep;
  o.parse_special = special;
  Result<Ids> ids = t.encode(text, o);
  EXPECT_TRUE(ids.ok()) << last_error_message();
  return ids.ok() ? ids.get() : Ids{};
}

TEST(WordPieceTokenizer, GreedyLongestPiecesWithContinuationPrefix) {
  auto t = make();
  EXPECT_EQ(encode(*t, "unaffable"), (Ids{5, 6, 7}));
  EXPECT_EQ(encode(*t, "abc"), (Ids{18}));       // the whole word beats a + ##b + ##c
  EXPECT_EQ(encode(*t, "acb"), (Ids{15, 17, 16}));
  EXPECT_EQ(encode(*t, "hello, world!", true), (Ids{2, 8, 10, 9, 11, 3}));
}

TEST(WordPieceTokenizer, UnmatchedAndOverlongWordsAreUnknown) {
  auto t = make();
  EXPECT_EQ(encode(*t, "unaffx hello"), (Ids{1, 8}));  // no piece for "x": the whole word
  EXPECT_EQ(encode(*t, "abbbbbbbb"), (Ids{15, 16, 16, 16, 16, 16, 16, 16, 16}));  // 9 chars: ok
  EXPECT_EQ(encode(*t, "abbbbbbbbb"), (Ids{1}));  // 10 > max_input_chars_per_word
}

TEST(WordPieceTokenizer, NormalizesCaseAccentsControlsAndWhitespace) {
  auto t = make();
  EXPECT_EQ(encode(*t, "HeLLo\tWORLD\n"), (Ids{8, 9}));
  EXPECT_EQ(encode(*t, "Café"), (Ids{12}));           // precomposed é
  EXPECT_EQ(encode(*t, "Cafe\xcc\x81"), (Ids{12}));   // e + U+0301
  EXPECT_EQ(encode(*t, "hel\x01lo\xe2\x80\x8b"), (Ids{8}));  // Cc and Cf (ZWSP) dropped
  EXPECT_EQ(encode(*t, "hello\xc2\xa0world"), (Ids{8, 9}));  // NBSP is whitespace
  EXPECT_EQ(encode(*t, "\xc4\xb0stanbul"), (Ids{24}));  // U+0130: I + dot, dot stripped
  EXPECT_EQ(encode(*t, std::string("hel\0lo", 6)), (Ids{8}));
  EXPECT_EQ(encode(*t, "hel\xfflo"), (Ids{8}));  // invalid UTF-8 -> U+FFFD -> dropped
}

TEST(WordPieceTokenizer, CjkIdeographsAndPunctuationAreWordsOfTheirOwn) {
  auto t = make();
  EXPECT_EQ(encode(*t, "北京"), (Ids{13, 14}));
  EXPECT_EQ(encode(*t, "don't"), (Ids{21, 19, 20}));
  EXPECT_EQ(encode(*t, "a$b"), (Ids{15, 1, 1}));  // '$' is ASCII punctuation: split, unknown
}

TEST(WordPieceTokenizer, SpecialTokensMatchInRawTextUnlessDisabled) {
  auto t = make();
  EXPECT_EQ(encode(*t, "hello [MASK]world"), (Ids{8, 4, 9}));
  EXPECT_EQ(encode(*t, "[mask]"), (Ids{1, 1, 1}));  // matched before lower-casing only
  EXPECT_EQ(encode(*t, "[MASK]", false, false), (Ids{1, 1, 1}));  // "[", "mask", "]"
  EXPECT_EQ(t->cls_id(), 2);
  EXPECT_EQ(t->sep_id(), 3);
  EXPECT_TRUE(t->adds_bos_by_default());
  EXPECT_TRUE(t->adds_eos_by_default());
  EXPECT_TRUE(t->is_special(4));
  EXPECT_FALSE(t->is_special(8));
  EXPECT_EQ(t->token_to_id("##aff"), 6);
  EXPECT_EQ(t->token_to_id("zzz"), kNoToken);
}

TEST(WordPieceTokenizer, DecodeJoinsPiecesAndPunctuation) {
  auto t = make();
  Result<std::string> text = t->decode(encode(*t, "Unaffable, hello world!", true));
  ASSERT_TRUE(text.ok()) << last_error_message();
  EXPECT_EQ(text.get(), "[CLS] unaffable, hello world! [SEP]");
  text = t->decode(encode(*t, "hello world", true), /*skip_special=*/true);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.get(), "hello world");
  EXPECT_FALSE(t->decode(Ids{99}).ok());
}

TEST(WordPieceTokenizer, ConfigurationErrors) {
  WordPieceTokenizerConfig c = tiny_config();
  c.unk = kNoToken;
  EXPECT_EQ(WordPieceTokenizer::create(c).error(), Error::InvalidProgram);
  c = tiny_config();
  c.tokens.push_back("hello");
  c.token_types.push_back(1);
  EXPECT_EQ(WordPieceTokenizer::create(c).error(), Error::InvalidProgram);
  EXPECT_NE(std::string(last_error_message()).find("repeats"), std::string::npos);
  c = tiny_config();
  c.sep = 1000;
  EXPECT_EQ(WordPieceTokenizer::create(c).error(), Error::InvalidProgram);
  c = tiny_config();
  c.token_types.pop_back();
  EXPECT_EQ(WordPieceTokenizer::create(c).error(), Error::InvalidProgram);
  c = tiny_config();
  c.tokens.clear();
  c.token_types.clear();
  EXPECT_EQ(WordPieceTokenizer::create(c).error(), Error::InvalidProgram);
}

TEST(UnicodeNormalization, CanonicalDecompositionOrderingAndLowerCase) {
  std::u32string out;
  append_nfd(U"\u00e9\u1e69\uac01", out);  // é, ṩ (s + dot below + dot above), 각
  EXPECT_EQ(out, (std::u32string{U'e', 0x301, U's', 0x323, 0x307, 0x1100, 0x1161, 0x11a8}));
  out.clear();
  append_nfd(U"a\u0307\u0323", out);  // dot above (230) after dot below (220) once ordered
  EXPECT_EQ(out, (std::u32string{U'a', 0x323, 0x307}));
  EXPECT_EQ(canonical_combining_class(0x301), 230);
  EXPECT_EQ(canonical_combining_class('a'), 0);
  out.clear();
  for (char32_t c : std::u32string(U"AΣÉ\u0130Ж")) append_lowercase(c, out);
  EXPECT_EQ(out, (std::u32string{U'a', 0x3c3, 0xe9, U'i', 0x307, 0x436}));
  EXPECT_STREQ(normalization_unicode_version(), "14.0.0");
}

TEST(BertNormalizer, OptionsTurnStepsOff) {
  BertNormalizerOptions keep;
  keep.lowercase = keep.strip_accents = false;
  std::u32string out;
  bert_normalize("Ça\t北", keep, out);
  EXPECT_EQ(out, (std::u32string{0xc7, U'a', U' ', U' ', 0x5317, U' '}));
  std::vector<std::u32string_view> words;
  bert_pre_tokenize(U"a,b  c", words);
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[1], U",");
  EXPECT_EQ(words[3], U"c");
  EXPECT_TRUE(is_cjk_ideograph(0x4e00));
  EXPECT_FALSE(is_cjk_ideograph(0x3042));  // hiragana is not split
  EXPECT_TRUE(is_bert_punctuation('~'));
  EXPECT_TRUE(is_bert_punctuation(0x3002));  // 。
}

}  // namespace
}  // namespace llm
}  // namespace torchedge
