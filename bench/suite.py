"""The benchmarks by name, and running a selection of them so one failure hides no other."""

import sys
import traceback

from bench import (
    catalogue,
    chain,
    cluster,
    deep_chain,
    diagnoses,
    gradebook,
    mlp,
    notebooks,
    pipeline,
)
from bench.engines import Minigrad
from bench.results import Row
from bench.verify import Mismatch

BENCHMARKS = {
    "chain": chain.run,
    "mlp": mlp.run,
    "deep_chain": deep_chain.run,
    "deep_chain_fb": deep_chain.run_forward_backward,
    "catalogue": catalogue.run,
    "notebooks": lambda minigrad: notebooks.run(),
    "pipeline": lambda minigrad: pipeline.run(),
    "gradebook": lambda minigrad: gradebook.run(),
    "cluster": lambda minigrad: cluster.run(),
    "diagnoses": lambda minigrad: diagnoses.run(),
}


def run_all(names, minigrad: Minigrad, benchmarks=BENCHMARKS) -> tuple[list[Row], bool]:
    """All rows, and whether any benchmark failed (a wrong result or an error)."""
    rows: list[Row] = []
    failed = False
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(benchmarks[name](minigrad))
        except Mismatch as error:
            failed = True
            rows.append(Row(name, "-", "-", note=f"WRONG RESULT: {error}"))
        except Exception as error:
            failed = True
            traceback.print_exc()
            rows.append(Row(name, "-", "-", note=f"ERROR: {type(error).__name__}: {error}"))
    return rows, failed
