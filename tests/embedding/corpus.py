"""Test sentences for the WordPiece tokenizer and the MiniLM embeddings:
hand-written sentences covering accents, CJK, punctuation, unknown and long
words, casing, control characters and special-token texts, and derived
variants of them (upper case, decomposed accents, extra whitespace,
punctuation), about 270 in all, in a fixed order."""

from __future__ import annotations

import unicodedata

BASE = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A monkey is playing drums.",
    "A cheetah is running behind its prey.",
    "The quick brown fox jumps over the lazy dog.",
    "Hello, world! How are you today?",
    "I can't believe it's already 2026...",
    "She said: \"Don't worry, be happy!\"",
    "E-mail me at john.doe@example.com or call +1 (555) 123-4567.",
    "The price is $19.99 (20% off) — a bargain!",
    "C++ templates & Python's decorators; Rust's borrow-checker?",
    "Café au lait, crème brûlée, naïve résumé, façade, jalapeño.",
    "Ångström, Øresund, Straße, Æther, Œuvre, Łódź, Dvořák.",
    "Ελληνικά: Η γρήγορη καφέ αλεπού πηδά.",
    "ΟΔΟΣ ΣΟΦΟΚΛΕΟΥΣ and İstanbul, IJssel, ǅemal.",
    "Русский текст: Съешь же ещё этих мягких французских булок.",
    "日本語のテキストです。東京は日本の首都です。",
    "北京欢迎你！中华人民共和国成立于1949年。",
    "한국어 문장입니다. 서울은 대한민국의 수도입니다.",
    "Tiếng Việt có rất nhiều dấu: người, được, những.",
    "العربية: مرحبا بالعالم",
    "עברית: שלום עולם",
    "हिन्दी वाक्य: नमस्ते दुनिया",
    "ไทย: สวัสดีชาวโลก",
    "Emoji: 🙂👍🏽🎉 and symbols ™ © ® ° ± × ÷ € £ ¥.",
    "Mathematical: ∀x ∈ ℝ, x² ≥ 0; ∑ᵢ aᵢ = π ≈ 3.14159.",
    "Pneumonoultramicroscopicsilicovolcanoconiosis is a long word.",
    "Supercalifragilisticexpialidocious" * 5,
    "Antidisestablishmentarianism floccinaucinihilipilification.",
    "xqzvbnm qwrtypsdfghjkl zxcvbnmqwrt unknownwordsarehere",
    "The [MASK] sat on the mat.",
    "[CLS] already has [SEP] tokens [PAD] inside [UNK].",
    "lower [mask] case specials are ordinary text",
    "Tabs\tand\nnew lines\r\nand  multiple   spaces.",
    "Zero\u200bwidth\u200cjoiners\u200dand\ufeffBOM.",
    "Control\x01chars\x07here\x1bthere\x7f.",
    "Non-breaking\u00a0space, en\u2002space, ideographic\u3000space.",
    "Hyphen-ated, em—dash, en–dash, ellipsis… «guillemets» „quotes“.",
    "URLs: https://example.org/path?query=1&x=y#frag",
    "Numbers: 1,234,567.89 and 0xDEADBEEF and 3e-10 and 1/3.",
    "Dates: 2024-01-31, 31/01/2024, Jan. 31st, 2024 at 10:30 a.m.",
    "Code: def f(x): return x ** 2  # square",
    "JSON: {\"key\": [1, 2, 3], \"nested\": {\"a\": null}}",
    "ALL CAPS SENTENCE WITH SHOUTING!!!",
    "MiXeD CaSe WoRdS aNd CamelCaseIdentifiers.",
    "Stock markets fell sharply after the announcement.",
    "Quantum computers use qubits instead of bits.",
    "Photosynthesis converts light energy into chemical energy.",
    "The mitochondria is the powerhouse of the cell.",
    "A cat sleeps on the warm sofa.",
    "He bought three apples and two oranges.",
    "Where is the nearest train station?",
    "¿Dónde está la biblioteca? ¡Qué bien!",
    "Der Hund bellt laut. Über den Wolken muss die Freiheit grenzenlos sein.",
    "Le cœur a ses raisons que la raison ne connaît point.",
    "Ça va? Oui, très bien, merci.",
    "x",
    "",
    "   ",
    "...",
    "!!!???",
    "a" * 120,
    "word " * 300,
]


def _variants(text: str) -> list[str]:
    return [
        text.upper(),
        unicodedata.normalize("NFD", text),
        "  " + text.replace(" ", "   ") + "\n",
        text + " (" + text[:12] + ")!",
    ]


def corpus() -> list[str]:
    """BASE, then four variants of each, duplicates dropped, order kept."""
    texts = list(BASE)
    for text in BASE:
        texts.extend(_variants(text))
    return list(dict.fromkeys(texts))


# Sentences for the embedding checks: ordinary text of several kinds.
EMBEDDING_SENTENCES = [t for t in BASE[:31] + BASE[49:60]]
