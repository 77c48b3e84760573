"""Errors torchedge raises for programs it cannot lower."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence


@dataclass(frozen=True)
class Problem:
    """One reason a program cannot be lowered.

    `operator` is the ATen operator involved (e.g. "aten.nonzero.default")
    and `location` the user's source line as "file:line in fn: code".
    """

    message: str
    operator: Optional[str] = None
    location: Optional[str] = None
    method: Optional[str] = None

    def __str__(self) -> str:
        text = self.message
        if self.operator:
            text = f"{self.operator}: {text}"
        if self.method:
            text = f"[{self.method}] {text}"
        if self.location:
            text = f"{text}\n      at {self.location}"
        return text


class ExportError(Exception):
    """The program uses something the torchedge runtime cannot run.

    `problems` lists every reason found (not just the first), each naming
    the operator and the user's source line.
    """

    def __init__(self, problems: Sequence[Problem]):
        self.problems: tuple[Problem, ...] = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        count = len(self.problems)
        super().__init__(
            f"torchedge cannot lower this program ({count} problem{'s' if count != 1 else ''}):\n{lines}"
        )


class CheckpointError(ExportError):
    """A model source that cannot be exported as it is: an unreadable or
    corrupt checkpoint file, or an architecture the exporter does not support.
    The message names the file or the unsupported feature."""

    def __init__(self, message: str):
        self.problems = (Problem(message),)
        Exception.__init__(self, message)
