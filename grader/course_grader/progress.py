"""The progress line on stderr while a class is graded: '[12/40] alice lab03: pass  elapsed 95 s, ETA 221 s'."""
from __future__ import annotations

import sys
import threading
import time


class Progress:
    def __init__(self, total: int, quiet: bool):
        self.total, self.done, self.quiet = total, 0, quiet
        self.start = time.monotonic()
        self.lock = threading.Lock()

    def step(self, what: str) -> None:
        with self.lock:
            self.done += 1
            if self.quiet:
                return
            elapsed = time.monotonic() - self.start
            eta = elapsed / self.done * (self.total - self.done)
            line = f"[{self.done}/{self.total}] {what}  elapsed {elapsed:.0f} s, ETA {eta:.0f} s"
            tty = sys.stderr.isatty()
            end = "\n" if not tty or self.done == self.total else ""
            sys.stderr.write(("\r\033[K" if tty else "") + line + end)
            sys.stderr.flush()
