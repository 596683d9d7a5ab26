"""A progress bar with an ETA, on one terminal line (or one line per step when piped)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, stream=None, width: int = 24):
        self.total, self.done, self.width = total, 0, width
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()

    def step(self, running: int, last: str = "") -> None:
        self.done += 1
        self.show(running, last)

    def show(self, running: int, last: str = "") -> None:
        elapsed = time.monotonic() - self.started
        filled = int(self.width * self.done / self.total) if self.total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        eta = _clock(elapsed / self.done * (self.total - self.done)) if self.done else "?"
        line = (
            f"[{bar}] {self.done}/{self.total} graded, {running} running, "
            f"elapsed {_clock(elapsed)}, ETA {eta}"
        )
        if last:
            line += f"  ({last})"
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(160))
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"
