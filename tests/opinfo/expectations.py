"""The checked-in list of every (op, dtype) of the sweep that does not pass.

tests/opinfo/expected_failures.json maps "op|dtype" to {"category",
"message"}: the outcome's category (tests/opinfo/sweep.py) and the start of
its message. Ops that pass are not listed. Outcomes that are not counted
(export-rejected, random-output, no-plain-sample) are listed too, so that a
change in what torch.export accepts is noticed. The test compares categories
only; messages are for the reader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from opinfo.sweep import Result

PATH = Path(__file__).resolve().parent / "expected_failures.json"
MESSAGE_CHARS = 240


def entry_key(op: str, dtype: str) -> str:
    return f"{op}|{dtype}"


def load(path: Path = PATH) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["entries"]


def write(results: Iterable[Result], path: Path = PATH) -> None:
    entries = {
        entry_key(r.op, r.dtype): {"category": r.category, "message": r.message[:MESSAGE_CHARS]}
        for r in results if not r.passed
    }
    text = json.dumps({
        "about": "Every OpInfo (op, dtype) of tests/test_opinfo.py that does not pass; "
                 "regenerate with scripts/opinfo_report.py --update-expectations",
        "entries": dict(sorted(entries.items())),
    }, indent=1, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")


def mismatches(op: str, results: Iterable[Result], entries: dict[str, dict[str, str]]) -> list[str]:
    """What differs between `op`'s Results and its listed entries."""
    problems = []
    seen = set()
    for r in results:
        key = entry_key(r.op, r.dtype)
        seen.add(key)
        listed = entries.get(key)
        if r.passed and listed:
            problems.append(f"{key}: now passes; remove it from {PATH.name} (listed as "
                            f"{listed['category']})")
        elif not r.passed and not listed:
            problems.append(f"{key}: {r.category}: {r.message} (not listed: a regression, or a new "
                            "op or dtype to list)")
        elif not r.passed and listed["category"] != r.category:
            problems.append(f"{key}: {r.category}: {r.message} (listed as {listed['category']}: "
                            f"{listed['message']})")
    prefix = entry_key(op, "")
    for key in entries:
        if key.startswith(prefix) and key not in seen:
            problems.append(f"{key}: listed but not swept any more")
    return problems
