"""nbgrader's own log, shown only with --verbose: a collect from an LMS printed ~250 lines of
it, and the instructor needs the few problems the pipeline reports itself, one line each."""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager


@contextmanager
def nbgrader_log(log: logging.Logger, verbose: bool):
    """Within the block, `log` (an nbgrader app's or exchange's) writes its INFO and above to
    stderr if verbose, else nothing at all (its own console handlers silenced, and no
    fallback to Python's last-resort handler)."""
    shown = logging.StreamHandler(sys.stderr) if verbose else logging.NullHandler()
    silenced = [(h, h.level) for h in log.handlers if isinstance(h, logging.StreamHandler)]
    level = log.level
    for handler, _ in silenced:
        handler.setLevel(logging.CRITICAL + 1)
    if verbose:
        log.setLevel(logging.INFO)
    log.addHandler(shown)
    try:
        yield
    finally:
        log.removeHandler(shown)
        log.setLevel(level)
        for handler, was in silenced:
            handler.setLevel(was)
