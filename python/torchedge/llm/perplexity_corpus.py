"""A fixed English text for perplexity, built offline from the docstrings of
a fixed list of Python standard-library modules.

    from torchedge.llm.perplexity_corpus import perplexity_corpus
    text = perplexity_corpus()          # about 24,000 characters

    python -m torchedge.llm.perplexity_corpus --out corpus.txt

Both engines of `make bench-llm` (llama-perplexity and torchedge.llm.perplexity)
read the same file. The text is the same on every run of the same Python
version: modules in the order of MODULES; in each, the module docstring, then
its public functions and classes by name (only those defined there), each
class followed by its public methods by name. Docstrings are split into
paragraphs at blank lines; a paragraph's whitespace is collapsed to single
spaces. Dropped: indented blocks (code), paragraphs that introduce one
('::'), doctests ('>>>'), paragraphs shorter than MIN_PARAGRAPH_CHARS or seen
before. Each module gives at most MAX_CHARS_PER_MODULE characters, so the text
spans many modules; paragraphs are joined with blank lines until the next one
would pass max_chars. With the SmolLM2
tokenizer the default is about 5,000-6,000 tokens: ten or more 512-token
chunks for llama-perplexity, which needs at least two.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterator

MODULES = (
    "json", "json.decoder", "json.encoder", "posixpath", "collections", "functools",
    "itertools", "textwrap", "argparse", "string", "heapq", "bisect", "shutil", "pathlib",
    "contextlib", "dataclasses", "enum", "abc", "copy", "csv", "difflib", "fractions",
    "tempfile", "zipfile", "tarfile", "logging", "subprocess", "threading", "queue",
    "sched", "calendar", "random", "statistics", "base64", "gzip", "hashlib", "hmac",
    "inspect", "ast", "tokenize", "pprint", "reprlib", "weakref", "types", "operator",
    "glob", "fnmatch", "linecache", "configparser", "email.message", "http.client",
    "urllib.parse", "html", "uuid", "socket", "selectors", "signal", "traceback", "warnings",
)
DEFAULT_MAX_CHARS = 24_000
MIN_PARAGRAPH_CHARS = 40
MAX_CHARS_PER_MODULE = 2_000


def perplexity_corpus(max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The corpus text (see the module docstring); at most `max_chars` characters."""
    seen: set[str] = set()
    kept: list[str] = []
    size = 0
    for paragraph in _paragraphs():
        if paragraph in seen:
            continue
        seen.add(paragraph)
        added = len(paragraph) + (2 if kept else 0)
        if size + added > max_chars:
            break
        kept.append(paragraph)
        size += added
    return "\n\n".join(kept) + "\n"


def _paragraphs() -> Iterator[str]:
    for name in MODULES:
        size = 0
        for paragraph in _prose(importlib.import_module(name)):
            if size + len(paragraph) > MAX_CHARS_PER_MODULE:
                break
            size += len(paragraph)
            yield paragraph


def _prose(module: ModuleType) -> Iterator[str]:
    """The module's docstring paragraphs that read as prose."""
    for doc in _docstrings(module):
        for block in re.split(r"\n\s*\n", inspect.cleandoc(doc)):
            paragraph = " ".join(block.split())
            if (len(paragraph) >= MIN_PARAGRAPH_CHARS and block[:1] not in (" ", "\t")
                    and ">>>" not in paragraph and not paragraph.endswith("::")):
                yield paragraph


def _docstrings(module: ModuleType) -> Iterator[str]:
    """The module's own docstring, then its public functions' and classes'
    (by name; only those whose __module__ is this module)."""
    if module.__doc__:
        yield module.__doc__
    for name, obj in sorted(vars(module).items()):
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            yield from _class_docstrings(obj)
        elif callable(obj) and obj.__doc__:
            yield obj.__doc__


def _class_docstrings(cls: type) -> Iterator[str]:
    # vars(cls), not dir(cls): inherited methods are documented where defined.
    if cls.__doc__:
        yield cls.__doc__
    for name, member in sorted(vars(cls).items()):
        if name.startswith("_"):
            continue
        function = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
        if callable(function) and getattr(function, "__doc__", None):
            yield function.__doc__


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchedge.llm.perplexity_corpus",
                                     description="Write the perplexity corpus to a file.")
    parser.add_argument("--out", required=True, help="file to write (UTF-8)")
    parser.add_argument("--max-chars", type=int, default=DEFAULT_MAX_CHARS)
    args = parser.parse_args(argv)
    text = perplexity_corpus(args.max_chars)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(text)} characters, {len(text.split())} words")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
