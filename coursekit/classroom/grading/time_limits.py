"""The time limits `grade` gives student code in the sealed run, light to import (the CLI's
--help shows them without loading nbgrader or the sandbox)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SealedTimes:
    """Seconds; the defaults are the sealed run's own (coursekit/sealed/sandbox.py Limits)."""

    cell_s: float = 10.0  # one answer or given cell
    scenario_s: float = 5.0  # one scenario of a test cell
    run_s: float = 60.0  # one sealed run: the cells and scenarios together
