"""Run one measured child process; also read its rusage from the kernel.

Every configuration runs in a process of its own so that its memory is its
own. `os.wait4` returns the resource usage of exactly that child (unlike
RUSAGE_CHILDREN, the maximum over all children reaped so far), but on Linux
its ru_maxrss also counts the memory image the child was forked from (this
parent, torch included) before it exec'd, so the children report their own
peak (VmHWM) and wait4's figure is only a fallback.
stdout/stderr go to temporary files, not pipes, so a chatty child can never
block on a full pipe while we poll.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence


@dataclass
class ChildRun:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    peak_rss_bytes: int
    wall_s: float
    timed_out: bool

    def failure(self) -> Optional[str]:
        """None on success, else a one-paragraph reason (the tail of stderr)."""
        if self.timed_out:
            return f"timed out after {self.wall_s:.0f} s"
        if self.returncode != 0:
            tail = "\n".join(self.stderr.strip().splitlines()[-6:])
            return f"exit code {self.returncode}: {tail}"
        return None


def thread_environment(threads: int) -> dict[str, str]:
    """The environment for a child limited to `threads` compute threads."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(threads)
    return env


def run_child(argv: Sequence[str], timeout_s: float, env: Optional[Mapping[str, str]] = None,
              cwd: Optional[str] = None) -> ChildRun:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(list(argv), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env=dict(env) if env is not None else None, cwd=cwd)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout_s:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.05)
        wall_s = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait
        out.seek(0)
        err.seek(0)
        return ChildRun(list(argv), proc.returncode, out.read().decode(errors="replace"),
                        err.read().decode(errors="replace"), usage.ru_maxrss * 1024, wall_s,
                        timed_out)
