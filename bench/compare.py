"""Time several engines on one job; the first engine's result is the reference for the rest."""

from collections.abc import Callable

import numpy as np

from bench.results import Row, add_ratios
from bench.timing import measure
from bench.verify import assert_close


def time_engines(
    benchmark: str,
    case: str,
    prepares: dict[str, Callable | str],
    snapshot: Callable[[object], dict[str, np.ndarray]],
    rtol: float,
    reference: dict[str, np.ndarray] | None = None,
    **measure_options,
) -> list[Row]:
    """One row per engine, with ratios against "torch" and "numpy".

    `prepares` maps an engine name to its prepare function (see timing.measure) or to the
    reason it cannot run. `snapshot` turns a job's result into named NumPy arrays; each is
    compared with `reference`, or with the first engine's snapshot when none is given
    (the first engine runs first in every round), and a Mismatch stops the benchmark.
    """

    def check(engine, result):
        nonlocal reference
        observed = snapshot(result)
        if reference is None:
            reference = observed
            return
        for name, expected in reference.items():
            assert_close(f"{benchmark} {case} {engine} {name}", expected, observed[name], rtol)

    runnable = {engine: prepare for engine, prepare in prepares.items() if callable(prepare)}
    timings = measure(runnable, check, **measure_options)
    rows = [
        Row(benchmark, case, engine, timings.get(engine), note="" if callable(why) else why)
        for engine, why in prepares.items()
    ]
    add_ratios(rows)
    return rows
