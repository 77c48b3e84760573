"""Run one measured engine process and read its peak resident memory.

Each engine runs in a process of its own (shared/PEERS.md: engines sharing a
process steal each other's cores). Peak RSS comes from two places:
- VmHWM in /proc/<pid>/status, polled while the child lives: the high-water
  mark of the program's own address space after exec. It misses only growth
  in the last poll interval before exit; the engines peak while loading and
  computing, seconds before they exit.
- os.wait4's ru_maxrss, kept as a cross-check. On Linux it also counts the
  image the child was spawned from (this interpreter, torch included) before
  exec, so it is only an upper bound here.
stdout/stderr go to temporary files so a chatty child never blocks on a pipe.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

POLL_S = 0.01


@dataclass
class MeasuredRun:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    peak_rss_bytes: Optional[int]   # polled VmHWM; None when the child exited before a poll
    wait4_maxrss_bytes: int
    wall_s: float
    timed_out: bool

    def failure(self) -> Optional[str]:
        """None on success, else a one-paragraph reason (the tail of stderr)."""
        if self.timed_out:
            return f"timed out after {self.wall_s:.0f} s"
        if self.returncode != 0:
            tail = "\n".join((self.stderr or self.stdout).strip().splitlines()[-6:])
            return f"exit code {self.returncode}: {tail}"
        return None


def vm_hwm_bytes(pid: int) -> Optional[int]:
    """VmHWM of a live process, or None (gone, a zombie, or no /proc)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def run_measured(argv: Sequence[str], timeout_s: float, env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None) -> MeasuredRun:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(list(argv), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env=dict(env) if env is not None else None, cwd=cwd)
        peak: Optional[int] = None
        timed_out = False
        while True:
            hwm = vm_hwm_bytes(proc.pid)
            if hwm is not None:
                peak = hwm if peak is None else max(peak, hwm)
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout_s:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(POLL_S)
        wall_s = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait
        out.seek(0)
        err.seek(0)
        return MeasuredRun(list(argv), proc.returncode, out.read().decode(errors="replace"),
                           err.read().decode(errors="replace"), peak, usage.ru_maxrss * 1024,
                           wall_s, timed_out)
