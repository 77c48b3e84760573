"""LLM tokenizers from model files, run by the C++ library (extension/llm/tokenizer).

    tok = Tokenizer.from_gguf("SmolLM2-135M-Instruct.Q4_1.gguf")
    ids = tok.encode("<|im_start|>user\\nHi!<|im_end|>\\n")   # special tokens matched
    text = tok.decode(ids)
    stream = tok.stream_decoder()                                # one token at a time,
    pieces = [stream.push(i) for i in ids] + [stream.finish()]   # whole characters only

A thin wrapper over torchedge._C.LlmTokenizer: the same code the C++ LLM
runner uses, so what Python validates is what runs on the device. Failures
raise torchedge.runtime.TorchEdgeRuntimeError (code, code_name, message).
"""

from __future__ import annotations

import os
from typing import Iterable, Optional, Sequence, Union

from torchedge import _C
from torchedge.runtime import TorchEdgeRuntimeError, _translate

Text = Union[str, bytes]


class TokenDecoder:
    """Streaming detokenizer: push(id) returns the characters that id
    completes (bytes of an unfinished UTF-8 character are held back), finish()
    what is left. The pieces joined equal Tokenizer.decode(ids)."""

    def __init__(self, native: _C.LlmTokenDecoder) -> None:
        self._native = native

    def push(self, token_id: int) -> str:
        try:
            return self._native.push(token_id)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def finish(self) -> str:
        return self._native.finish()

    def reset(self) -> None:
        self._native.reset()

    @property
    def pending_bytes(self) -> int:
        return self._native.pending_bytes


class Tokenizer:
    """A model's tokenizer (byte-level BPE today; one interface for all)."""

    def __init__(self, native: _C.LlmTokenizer) -> None:
        self._native = native

    @classmethod
    def from_gguf(cls, path: Union[str, os.PathLike]) -> "Tokenizer":
        """The tokenizer stored in a GGUF file's metadata (its tensors are not read).

        Raises TorchEdgeRuntimeError: NotFound for a missing file or a file
        without tokenizer keys, InvalidProgram for a corrupt one, NotSupported
        for a tokenizer model or pre-tokenizer this build does not implement.
        """
        try:
            return cls(_C.LlmTokenizer.from_gguf(os.fspath(path)))
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def encode(self, text: Text, *, add_bos: bool = False, add_eos: bool = False,
               parse_special: bool = True) -> list[int]:
        """Token ids of `text` (str, or bytes of any kind). With
        parse_special=False, "<|im_start|>" and the like are ordinary text."""
        try:
            return self._native.encode(text, add_bos, add_eos, parse_special)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def encode_batch(self, texts: Sequence[Text], *, add_bos: bool = False,
                     add_eos: bool = False, parse_special: bool = True) -> list[list[int]]:
        """encode() of each text, in one call that releases the GIL."""
        try:
            return self._native.encode_batch(list(texts), add_bos, add_eos, parse_special)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def decode(self, ids: Iterable[int], *, skip_special: bool = False) -> str:
        """Text of `ids`; bytes that are not valid UTF-8 become U+FFFD."""
        try:
            return self._native.decode(list(ids), skip_special)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def stream_decoder(self, *, skip_special: bool = False) -> TokenDecoder:
        return TokenDecoder(_C.LlmTokenDecoder(self._native, skip_special))

    def token_bytes(self, token_id: int) -> bytes:
        """The raw bytes of one token (may be part of a character)."""
        try:
            return self._native.token_bytes(token_id)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def token_text(self, token_id: int) -> str:
        """The token as the vocabulary spells it ("Ġthe" for " the")."""
        try:
            return self._native.token_text(token_id)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def token_to_id(self, text: str) -> Optional[int]:
        """The id of a vocabulary spelling, or None."""
        return self._native.token_to_id(text)

    def is_special(self, token_id: int) -> bool:
        return self._native.is_special(token_id)

    def is_end_of_turn(self, token_id: int) -> bool:
        """Whether generation stops after this token (eos, "<|im_end|>", ...)."""
        return self._native.is_end_of_turn(token_id)

    @property
    def vocab_size(self) -> int:
        return self._native.vocab_size

    def __len__(self) -> int:
        return self._native.vocab_size

    @property
    def bos_id(self) -> Optional[int]:
        return self._native.bos_id

    @property
    def eos_id(self) -> Optional[int]:
        return self._native.eos_id

    @property
    def pad_id(self) -> Optional[int]:
        return self._native.pad_id

    @property
    def unk_id(self) -> Optional[int]:
        return self._native.unk_id

    @property
    def end_of_turn_ids(self) -> list[int]:
        return self._native.end_of_turn_ids

    @property
    def adds_bos_by_default(self) -> bool:
        """Whether the file asks for bos before a prompt (encode adds it only when told)."""
        return self._native.adds_bos_by_default

    @property
    def chat_template(self) -> str:
        """The model's Jinja chat template ("" if the file has none)."""
        return self._native.chat_template

    @property
    def pre_tokenizer(self) -> str:
        """The pre-tokenizer name the file gives (tokenizer.ggml.pre)."""
        return self._native.pre_tokenizer


__all__ = ["TokenDecoder", "Tokenizer", "TorchEdgeRuntimeError"]
