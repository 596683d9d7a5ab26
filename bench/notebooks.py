"""How long each lecture notebook takes to run headless, top to bottom, and the whole course.

Each notebook runs once in a fresh kernel (its start-up included), executed exactly as the
notebook tests execute it. Target (issue 4): the whole course under 3 minutes on this
2-core machine.
"""

import re
import time
from pathlib import Path

from bench.results import Row, set_target
from bench.timing import Timing
from tools.notebooks import execute  # the same headless run as the notebook tests

COURSE = Path(__file__).resolve().parent.parent / "course"
TARGET_S = 180.0
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # tracebacks from the kernel come coloured


def timed_execute(path: Path) -> tuple[float, str]:
    """Seconds to run the notebook, and "" or the error that stopped it."""
    started = time.perf_counter()
    try:
        execute(path)
        error = ""
    except Exception as failure:  # a broken notebook is reported, the others still run
        last_line = ANSI_COLOUR.sub("", str(failure)).strip().splitlines()[-1]
        error = f"{type(failure).__name__}: {last_line}"
    return time.perf_counter() - started, error


def run(course: Path = COURSE) -> list[Row]:
    paths = sorted(course.glob("*.ipynb"))
    if not paths:
        return [Row("notebooks", "-", "-", note=f"skipped: no notebooks in {course}")]
    rows, total = [], 0.0
    for path in paths:
        seconds, error = timed_execute(path)
        total += seconds
        rows.append(
            Row(
                "notebooks",
                path.name,
                "nbclient",
                Timing([seconds]),
                note=f"FAILED: {error}" if error else "ran clean",
            )
        )
    row = Row("notebooks", f"total ({len(paths)} notebooks)", "nbclient", Timing([total]))
    failed = sum(r.note.startswith("FAILED") for r in rows)
    row.note = f"{failed} failed" if failed else "all ran clean"
    # A course that does not run through has no meaningful total: the target stays open.
    set_target(row, f"<{TARGET_S:.0f} s", None if failed else total, TARGET_S)
    return [*rows, row]
