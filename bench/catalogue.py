"""How long `autograder.check(engine)` takes on the whole CPU catalogue.

Target (issue 3): under 10 s for minigrad. The time includes observing PyTorch, as a
student's check() call does. PyTorch checked against itself is shown for scale.
"""

from bench.engines import Minigrad
from bench.results import Row, set_target
from bench.timing import measure

TARGET_S = 10.0


def run(minigrad: Minigrad, *, budget_s: float = 10.0) -> list[Row]:
    try:
        import autograder

        check = autograder.check
    except Exception as error:  # the autograder is another helper's work in progress
        reason = f"skipped: autograder not importable ({type(error).__name__}: {error})"
        return [Row("catalogue", "cpu", "-", note=reason)]
    import torch

    rows = []
    for name, engine in (("minigrad", minigrad.module), ("torch", torch)):
        row = Row("catalogue", "check(engine), cpu", name)
        if engine is None:
            row.note = minigrad.reason
        else:
            reports = []
            # The first call's imports are part of what a student waits for: no warm-up.
            row.timing = measure(
                lambda engine=engine: lambda: check(engine),
                reports.append,
                min_runs=1,
                max_runs=3,
                budget_s=budget_s,
                warmup=False,
            )
            report = reports[0]
            row.note = (
                f"{len(report.results)} scenarios, score {report.score:.3f}, "
                f"{'passed' if report.passed else f'{len(report.failures)} failed'}"
            )
        if name == "minigrad":
            set_target(row, f"<{TARGET_S:.0f} s", row.timing and row.timing.best_s, TARGET_S)
        rows.append(row)
    return rows
