"""Generating text with an exported LLM: the C++ runner's loop, from Python.

    text = torchedge.llm.generate("smollm2.pte", "Hi!", max_new_tokens=64)
    for piece in torchedge.llm.stream("smollm2.pte", "Tell me a story.", temperature=0.7, seed=1):
        print(piece, end="")
    runner = torchedge.llm.Runner("smollm2.pte")      # keeps a conversation
    runner.chat("Hi!"); runner.chat("And then?")

Prompts are formatted as a chat turn with the model's chat template unless
`chat=False`. The tokenizer defaults to the file `export` wrote beside the
.pte (m.pte -> m.tokenizer.gguf). Sampling (greedy unless temperature > 0,
top-k, top-p, repetition penalty, seed) is extension/llm/sampler's.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from torchedge.llm.tokenizer_file import tokenizer_path_for


@dataclass
class Sampling:
    max_new_tokens: int = 256
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    seed: int = 0
    stop_at_end_of_turn: bool = True

    def arguments(self) -> dict:
        return dict(vars(self))


class Runner:
    """One loaded model + tokenizer and its conversation (the KV cache)."""

    def __init__(self, pte_path: Path | str, tokenizer: Optional[Path | str] = None,
                 threads: Optional[int] = None, kernels: str = "optimized") -> None:
        import torchedge
        from torchedge import _C

        if threads is not None:
            torchedge.runtime.set_num_threads(threads)
        pte_path = Path(pte_path)
        tokenizer = Path(tokenizer) if tokenizer is not None else tokenizer_path_for(pte_path)
        for path, what in ((pte_path, "model"), (tokenizer, "tokenizer")):
            if not path.is_file():
                raise FileNotFoundError(f"{what} file {path} does not exist")
        try:
            self._runner = _C.LlmRunner(str(pte_path), str(tokenizer), kernels)
        except _C.TorchEdgeError as error:
            raise torchedge.runtime.TorchEdgeRuntimeError(*error.args) from None
        self.last_stats: dict = {}

    def generate(self, prompt: str | Sequence[int], chat: bool = True, system: str = "",
                 on_text: Optional[Callable[[str], None]] = None, **sampling) -> str:
        """The reply to `prompt` (text, or token ids sent as they are),
        continuing the conversation; pieces also go to `on_text`."""
        import torchedge
        from torchedge import _C

        pieces: list[str] = []

        def collect(piece: str) -> None:
            pieces.append(piece)
            if on_text is not None:
                on_text(piece)

        arguments = Sampling(**sampling).arguments()
        try:
            if isinstance(prompt, str):
                text = self._runner.chat_prompt(prompt, system) if chat else prompt
                self.last_stats = self._runner.generate(text, on_text=collect, **arguments)
            else:
                self.last_stats = self._runner.generate_tokens([int(t) for t in prompt],
                                                               on_text=collect, **arguments)
        except _C.TorchEdgeError as error:
            raise torchedge.runtime.TorchEdgeRuntimeError(*error.args) from None
        return "".join(pieces)

    chat = generate

    def reset(self) -> None:
        """Forgets the conversation."""
        self._runner.reset()

    @property
    def position(self) -> int:
        return self._runner.position

    @property
    def max_context(self) -> int:
        return self._runner.max_context


def generate_text(pte_path: Path | str, prompt: str | Sequence[int], tokenizer=None, chat: bool = True,
                  threads: Optional[int] = None, on_text: Optional[Callable[[str], None]] = None,
                  **sampling) -> str:
    """One reply from a fresh runner (see the module docstring)."""
    return Runner(pte_path, tokenizer, threads).generate(prompt, chat=chat, on_text=on_text, **sampling)


def stream(pte_path: Path | str, prompt: str | Sequence[int], tokenizer=None, chat: bool = True,
           threads: Optional[int] = None, **sampling) -> Iterator[str]:
    """The reply piece by piece, as the runner produces it (a worker thread
    runs the loop with the GIL released)."""
    runner = Runner(pte_path, tokenizer, threads)
    pieces: "queue.Queue[object]" = queue.Queue()
    done = object()
    failure: list[BaseException] = []

    def work() -> None:
        try:
            runner.generate(prompt, chat=chat, on_text=pieces.put, **sampling)
        except BaseException as error:  # handed to the consumer below
            failure.append(error)
        finally:
            pieces.put(done)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    while True:
        piece = pieces.get()
        if piece is done:
            break
        yield piece  # type: ignore[misc]
    worker.join()
    if failure:
        raise failure[0]
