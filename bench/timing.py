"""Best-of-N and median wall-clock times of a job, with its result checked outside the clock."""

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Timing:
    times_s: list[float]

    @property
    def best_s(self) -> float:
        return min(self.times_s)

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)


def measure(
    prepare: Callable[[], Callable[[], object]],
    check: Callable[[object], None],
    *,
    min_runs: int = 3,
    max_runs: int = 30,
    budget_s: float = 1.0,
    warmup: bool = True,
) -> Timing:
    """Times `prepare()()` repeatedly; only the returned job is on the clock.

    `check` sees the first result (the warm-up's, or the first timed run's when a warm-up
    would cost too much) and raises if it is wrong, so a wrong engine cannot look fast.
    Runs continue past `min_runs` until `budget_s` of wall time or `max_runs`. The garbage
    collector stays on (an engine's cycles are part of its cost), but everything alive before
    a run is frozen out of its reach: otherwise the 10^5 objects of an imported torch would
    be rescanned inside every engine's timed runs.
    """
    unchecked = True
    if warmup:
        check(prepare()())
        unchecked = False
    times: list[float] = []
    started = time.perf_counter()
    try:
        while len(times) < min_runs or (
            len(times) < max_runs and time.perf_counter() - started < budget_s
        ):
            job = prepare()
            gc.collect()
            gc.freeze()
            t0 = time.perf_counter()
            result = job()
            times.append(time.perf_counter() - t0)
            if unchecked:
                check(result)
                unchecked = False
            del job, result
    finally:
        gc.unfreeze()
    return Timing(times)
