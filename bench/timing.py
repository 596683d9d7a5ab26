"""Best-of-N and median times of engines taking turns, each result checked off the clock."""

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Timing:
    times_s: list[float]  # wall clock
    cpu_s: list[float] = field(default_factory=list)  # this process's CPU time, same runs

    @property
    def best_s(self) -> float:
        return min(self.times_s)

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)

    @property
    def best_cpu_s(self) -> float:
        """Unlike wall time, not inflated while other work on the machine holds the CPU."""
        return min(self.cpu_s)


Prepare = Callable[[], Callable[[], object]]


def measure(
    prepares: dict[str, Prepare],
    check: Callable[[str, object], None],
    *,
    min_runs: int = 3,
    max_runs: int = 30,
    budget_s: float = 1.0,
    warmup: bool = True,
    sync: Callable[[], None] | None = None,
) -> dict[str, Timing]:
    """Times `prepares[name]()()` for every name; only the returned job is on the clock.

    The engines take turns, one run each per round, so a change in the load of this shared
    machine hits them all alike instead of skewing their ratios. `check(name, result)` sees
    each engine's first result (the warm-up's, or the first timed run's when a warm-up would
    cost too much) and raises if it is wrong, so a wrong engine cannot look fast. Rounds
    continue past `min_runs` until `budget_s` per engine of wall time or `max_runs`. The
    garbage collector stays on (an engine's cycles are part of its cost), but everything
    alive before a run is frozen out of its reach: otherwise the 10^5 objects of an imported
    torch would be rescanned inside every engine's timed runs. `sync` (a GPU's synchronise)
    runs on the clock after each job: a GPU job returns once its kernels are queued, not done.
    """
    unchecked = set(prepares)
    if warmup:
        for name, prepare in prepares.items():
            check(name, prepare()())
        unchecked.clear()
    times: dict[str, Timing] = {name: Timing([], []) for name in prepares}
    started, rounds = time.perf_counter(), 0
    try:
        while rounds < min_runs or (
            rounds < max_runs and time.perf_counter() - started < budget_s * len(prepares)
        ):
            for name, prepare in prepares.items():
                job = prepare()
                gc.collect()
                gc.freeze()
                wall, cpu = time.perf_counter(), time.process_time()
                result = job()
                if sync is not None:
                    sync()
                times[name].times_s.append(time.perf_counter() - wall)
                times[name].cpu_s.append(time.process_time() - cpu)
                if name in unchecked:
                    check(name, result)
                    unchecked.discard(name)
                del job, result
            rounds += 1
    finally:
        gc.unfreeze()
    return times
