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
    compared with `reference`, or with the first engine's snapshot when none is given,
    and a Mismatch stops the benchmark.
    """
    rows = []
    for engine, prepare in prepares.items():
        if isinstance(prepare, str):
            rows.append(Row(benchmark, case, engine, note=prepare))
            continue

        def check(result, engine=engine):
            nonlocal reference
            observed = snapshot(result)
            if reference is None:
                reference = observed
                return
            for name, expected in reference.items():
                assert_close(f"{benchmark} {case} {engine} {name}", expected, observed[name], rtol)

        rows.append(Row(benchmark, case, engine, measure(prepare, check, **measure_options)))
    add_ratios(rows)
    return rows
