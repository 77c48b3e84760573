"""The repository states facts about the product, not the history of its work.

Docs and comments say what is true now (a measurement with its command and
host); when and in which work period something happened is what `git log` is
for. This test scans every tracked text file for references to work periods
("stop 14", "since stop", "session 3", "this session", dated progress notes)
and fails on the first one it finds, naming file, line and text. It also
fails if the work-log folder docs/notes comes back.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
THIS_FILE = Path(__file__).resolve().relative_to(REPO).as_posix()

# Each pattern names one way of pointing at a work period instead of a fact.
WORK_PERIOD_PATTERNS = {
    "a numbered work period": r"\b(?:stops?|sessions?)[ -]\d+",
    "a relative work period": r"\bthis session\b|\b(?:this|previous|earlier|last|next) stop"
                              r"(?:'s)?(?![ _-]*(?:tokens?|sequences?|strings?|words?|ids?|"
                              r"conditions?|criteri\w*|reasons?)\b)\b",
    "a time relative to a work period": r"\b(?:since|until) stop\b",
    "a progress or closing note": r"\b(?:progress|closing) notes?\b|\bwork ?logs?\b",
    "a dated progress reference": r"\b(?:as of|since|until|measured on|on) \d{4}-\d{2}-\d{2}\b"
                                  r"|\(\d{4}-\d{2}-\d{2},",
    "the work-log folder": r"\bdocs/notes\b",
}
_MATCHER = re.compile("|".join(f"(?P<p{i}>{p})" for i, p in enumerate(WORK_PERIOD_PATTERNS.values())),
                      re.IGNORECASE)
_REASONS = list(WORK_PERIOD_PATTERNS)
# Every pattern above needs one of these in its line (lower case) or a date:
# the full matcher runs only on such lines, which keeps the scan well under
# a second (Python's re takes ~1 s for all patterns over the whole tree).
_ANCHORS = ("stop", "session", "note", "log")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")

# Tolerated references, (path, text of the reference): none. The test fails
# when an entry no longer occurs, so the list can only shrink.
KNOWN_REFERENCES: set[tuple[str, str]] = set()


def work_period_references(text: str) -> list[tuple[int, str, str]]:
    """(line number, matched text, reason) for every reference in `text`."""
    lower = text.lower()
    line_starts = set()
    for anchor in _ANCHORS:
        at = lower.find(anchor)
        while at != -1:
            line_starts.add(lower.rfind("\n", 0, at) + 1)
            at = lower.find(anchor, at + len(anchor))
    for date in _DATE.finditer(lower):
        line_starts.add(lower.rfind("\n", 0, date.start()) + 1)
    found = []
    for start in sorted(line_starts):
        end = text.find("\n", start)
        line = text[start:] if end == -1 else text[start:end]
        for match in _MATCHER.finditer(line):
            number = text.count("\n", 0, start) + 1
            found.append((number, match.group(0), _REASONS[int(match.lastgroup[1:])]))
    return found


def _tracked_files() -> list[str]:
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in listing.decode().split("\0") if name]


def _text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None  # deleted in the working tree, or a submodule
    if b"\0" in data[:8192]:
        return None  # binary
    return data.decode("utf-8", errors="replace")


def test_no_work_period_references():
    problems = []
    seen_known = set()
    for name in _tracked_files():
        if name == THIS_FILE:
            continue
        text = _text(REPO / name)
        if text is None:
            continue
        for number, matched, reason in work_period_references(text):
            key = (name, matched.lower())
            if key in {(p, t.lower()) for p, t in KNOWN_REFERENCES}:
                seen_known.add(key)
                continue
            problems.append(f"{name}:{number}: '{matched}' ({reason})")
    assert not problems, ("state the fact instead of the work period it came from:\n"
                          + "\n".join(problems))
    stale = {(p, t) for p, t in KNOWN_REFERENCES if (p, t.lower()) not in seen_known}
    assert not stale, f"fixed, remove from KNOWN_REFERENCES: {sorted(stale)}"


def test_no_work_log_folder():
    assert not (REPO / "docs" / "notes").exists(), "docs/notes is a work log; move facts to docs/"
    tracked = [name for name in _tracked_files() if name.startswith("docs/notes/")]
    assert not tracked, f"tracked work-log files: {tracked}"


@pytest.mark.parametrize("planted", [
    "Measured on the Xeon of stop 14.",
    "## Stop 19 (this stop): the AMD host",
    "(Stops 18-20 quoted 0.82x)",
    "the layout is spelled out in the shape since stop 14",
    "at the stop-17 code",
    "as found in session 3",
    "benchmarks running alongside in this session",
    "a slower phase than the previous stop",
    "# Issue 4 - progress note",
    "Measured end to end (2026-11-30, `torchedge_run`)",
    "as of 2026-12-01 the kernels",
    "see docs/notes/2026-12-01-fast-cpu-progress.md",
])
def test_matcher_finds_planted_references(planted):
    text = f"A clean line.\n{planted}\nAnother clean line.\n"
    found = work_period_references(text)
    assert found and all(number == 2 for number, _, _ in found), found


@pytest.mark.parametrize("clean", [
    "Debian's XNNPACK snapshot of 2022-02-16",
    "this XNNPACK (2022-02-16) has no operator for it",
    "nullptr stops it; the loop stops at NaN",
    "stop timing after this long once --min-iterations ran",
    "generation stops at the first stop token",
    "this stop sequence ends the reply; the last stop token is dropped",
    "ran in 2 rounds; run B used the same command",
])
def test_matcher_leaves_facts_alone(clean):
    assert work_period_references(clean) == []


def test_scan_is_fast():
    import time

    start = time.perf_counter()
    test_no_work_period_references()
    assert time.perf_counter() - start < 1.0
