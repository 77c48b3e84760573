// Unicode categories (the generated table), UTF-8 reading and lossy repair,
// and the byte-level alphabet.
#include <gtest/gtest.h>

#include <string>

#include "extension/llm/tokenizer/byte_level.h"
#include "extension/llm/tokenizer/unicode_categories.h"
#include "extension/llm/tokenizer/utf8.h"

namespace torchedge {
namespace llm {
namespace {

TEST(UnicodeCategoriesTest, KnownCodePoints) {
  EXPECT_STREQ(unicode_version(), "14.0.0");
  EXPECT_EQ(general_category('A'), GeneralCategory::Lu);
  EXPECT_EQ(general_category('z'), GeneralCategory::Ll);
  EXPECT_EQ(general_category(0x01C5), GeneralCategory::Lt);  // Dž
  EXPECT_EQ(general_category(0x02B0), GeneralCategory::Lm);
  EXPECT_EQ(general_category(0x65E5), GeneralCategory::Lo);  // 日
  EXPECT_EQ(general_category(0x0301), GeneralCategory::Mn);
  EXPECT_EQ(general_category(0x0663), GeneralCategory::Nd);  // Arabic-Indic 3
  EXPECT_EQ(general_category(0x216B), GeneralCategory::Nl);  // Ⅻ
  EXPECT_EQ(general_category(0x00BD), GeneralCategory::No);  // ½
  EXPECT_EQ(general_category(0x1F600), GeneralCategory::So);  // 😀
  EXPECT_EQ(general_category(0x200D), GeneralCategory::Cf);  // ZWJ
  EXPECT_EQ(general_category(0xE000), GeneralCategory::Co);
  EXPECT_EQ(general_category(0xD800), GeneralCategory::Cs);
  EXPECT_EQ(general_category(0x0378), GeneralCategory::Cn);
  EXPECT_EQ(general_category(0x10FFFF), GeneralCategory::Cn);
  EXPECT_EQ(general_category(0x110000), GeneralCategory::Cn);
  EXPECT_EQ(general_category(0xFFFFFFFF), GeneralCategory::Cn);
}

TEST(UnicodeCategoriesTest, ClassesOfThePreTokenizer) {
  // ASCII: what pre_tokenizer.cpp hard-codes.
  for (uint32_t c = 0; c < 128; ++c) {
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    EXPECT_EQ(is_letter(c), letter) << c;
    EXPECT_EQ(is_number(c), c >= '0' && c <= '9') << c;
    EXPECT_EQ(is_whitespace(c), (c >= 9 && c <= 13) || c == ' ') << c;
  }
  for (uint32_t c : {0x85u, 0xA0u, 0x1680u, 0x2000u, 0x200Au, 0x2028u, 0x2029u, 0x202Fu, 0x205Fu,
                     0x3000u}) {
    EXPECT_TRUE(is_whitespace(c)) << c;
  }
  for (uint32_t c : {0x1Cu, 0x1Fu, 0x200Bu, 0xFEFFu, 0x180Eu}) EXPECT_FALSE(is_whitespace(c)) << c;
  EXPECT_TRUE(is_letter(0xE9));  // é
  EXPECT_FALSE(is_letter(0x0301));
  EXPECT_TRUE(is_number(0x00B2));  // ²
}

std::string lossy(const std::string& bytes) {
  std::string out;
  append_utf8_lossy(bytes, out);
  return out;
}

TEST(Utf8Test, ReadsStrictly) {
  const std::string euro = "\xe2\x82\xac";
  Utf8Char c = read_utf8(euro.data(), euro.size());
  EXPECT_EQ(c.code_point, 0x20ACu);
  EXPECT_EQ(c.length, 3u);
  c = read_utf8("\xc0\xaf", 2);  // overlong
  EXPECT_EQ(c.code_point, kInvalidCodePoint);
  EXPECT_EQ(c.length, 1u);
  c = read_utf8("\xed\xa0\x80", 3);  // surrogate
  EXPECT_EQ(c.code_point, kInvalidCodePoint);
  EXPECT_EQ(c.length, 1u);
  c = read_utf8("\xf4\x90\x80\x80", 4);  // above U+10FFFF
  EXPECT_EQ(c.code_point, kInvalidCodePoint);
  c = read_utf8("\xe2\x82", 2);  // cut short: the maximal subpart is both bytes
  EXPECT_EQ(c.code_point, kInvalidCodePoint);
  EXPECT_EQ(c.length, 2u);
  c = read_utf8("\xf0\x9f\x98\x80", 4);
  EXPECT_EQ(c.code_point, 0x1F600u);
}

TEST(Utf8Test, LossyRepairReplacesMaximalSubparts) {
  EXPECT_EQ(lossy("plain"), "plain");
  EXPECT_EQ(lossy("a\xffz"), "a\xef\xbf\xbdz");
  EXPECT_EQ(lossy("\xe2\x82"), "\xef\xbf\xbd");              // one U+FFFD for the subpart
  EXPECT_EQ(lossy("\xe2\x82z"), "\xef\xbf\xbdz");
  EXPECT_EQ(lossy("\xe2\xe2\x82\xac"), "\xef\xbf\xbd\xe2\x82\xac");
  EXPECT_EQ(lossy("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // as Python does
  EXPECT_EQ(lossy("\xf0\x9f\x98"), "\xef\xbf\xbd");
  std::string s;
  append_utf8(0x1F600, s);
  append_utf8(0xD800, s);
  EXPECT_EQ(s, "\xf0\x9f\x98\x80\xef\xbf\xbd");
}

TEST(Utf8Test, UnfinishedTail) {
  EXPECT_EQ(unfinished_utf8_tail(""), 0u);
  EXPECT_EQ(unfinished_utf8_tail("abc"), 0u);
  EXPECT_EQ(unfinished_utf8_tail("a\xe2"), 1u);
  EXPECT_EQ(unfinished_utf8_tail("a\xe2\x82"), 2u);
  EXPECT_EQ(unfinished_utf8_tail("a\xe2\x82\xac"), 0u);
  EXPECT_EQ(unfinished_utf8_tail("\xf0\x9f\x98"), 3u);
  EXPECT_EQ(unfinished_utf8_tail("\xe0\x80"), 0u);  // invalid already: nothing to wait for
  EXPECT_EQ(unfinished_utf8_tail("\x82"), 0u);
  EXPECT_EQ(unfinished_utf8_tail("\xff"), 0u);
}

TEST(ByteLevelTest, AlphabetIsABijection) {
  EXPECT_EQ(byte_to_code_point(' '), 0x120u);
  EXPECT_EQ(byte_to_code_point('\n'), 0x10Au);
  EXPECT_EQ(byte_to_code_point('A'), uint32_t{'A'});
  EXPECT_EQ(byte_to_code_point(0xAD), 0x143u);
  for (int b = 0; b < 256; ++b) {
    EXPECT_EQ(code_point_to_byte(byte_to_code_point(static_cast<uint8_t>(b))), b);
  }
  EXPECT_EQ(code_point_to_byte(0x20), -1);  // the space spells nothing
  EXPECT_EQ(byte_level_spelling(" the\n"), "\xc4\xa0the\xc4\x8a");  // "Ġthe Ċ"
  bool spelled = false;
  EXPECT_EQ(byte_level_bytes("\xc4\xa0the", &spelled), " the");
  EXPECT_TRUE(spelled);
  EXPECT_EQ(byte_level_bytes("two words", &spelled), "two words");  // space: outside
  EXPECT_FALSE(spelled);
}

}  // namespace
}  // namespace llm
}  // namespace torchedge
