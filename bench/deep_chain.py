"""Backward through very deep graphs: chains of 10^3 to 10^6 multiplications of one value.

Only backward is timed; building the chain is not. A walk that is linear in the number of
nodes shows a flat time per node (issue 2's target); recursion, quadratic bookkeeping or
cache-unfriendly growth show as a rising one. Time per node is taken from CPU time, since
the long runs are too few for best-of-N to filter out other work on the machine.
"""

import numpy as np

from bench.compare import time_engines
from bench.engines import Minigrad
from bench.results import Row, set_target
from bench.verify import output_and_grad

SIZES = (10**3, 10**4, 10**5, 10**6)
# Not 1.0, so a walk that skips nodes gives a wrong gradient: float32(1.0000001) = 1 + 2**-23.
FACTOR = 1.0000001
# Every engine does the same float32 multiplications in the same order, so results agree to
# the bit; the tolerance is below one factor's effect, so even one skipped node is caught.
EXACT = 1e-7
FLAT_SPREAD = 1.5  # slowest per-node time at most this many times the fastest


def engine_chain(T, nodes: int):
    """Prepare function: builds x * FACTOR * FACTOR ... (untimed); the job is its backward."""

    def prepare():
        x = T.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(nodes):
            y = y * FACTOR

        def job():
            y.backward()
            return y, x.grad

        return job

    return prepare


def exact(nodes: int) -> dict[str, np.ndarray]:
    """Both y and dy/dx are FACTOR multiplied `nodes` times in float32, in order, as the
    forward and the backward walks do: a sequential float32 accumulate rounds identically."""
    value = np.multiply.accumulate(np.full(nodes, FACTOR, dtype=np.float32))[-1]
    return {"y": np.array(value), "x.grad": np.array(value)}


def run(minigrad: Minigrad, *, sizes=SIZES, budget_s: float = 1.0) -> list[Row]:
    import torch

    rows: list[Row] = []
    per_node: dict[str, list[float]] = {"torch": [], "minigrad": []}
    for nodes in sizes:
        prepares = {
            "torch": engine_chain(torch, nodes),
            "minigrad": engine_chain(minigrad.module, nodes)
            if minigrad.module
            else minigrad.reason,
        }
        # Long chains take seconds to build: no warm-up from 10^5 (the per-node figure
        # averages over that many nodes anyway) and a single timed run at 10^6.
        size_rows = time_engines(
            "deep_chain",
            f"backward {nodes:,} nodes",
            prepares,
            output_and_grad,
            rtol=EXACT,
            reference=exact(nodes),
            budget_s=budget_s,
            min_runs=1 if nodes >= 10**6 else 3,
            warmup=nodes < 10**5,
        )
        for row in size_rows:
            if row.timing:
                # CPU time: a long single run must not look slow for sharing the machine.
                ns = row.timing.best_cpu_s / nodes * 1e9
                per_node[row.engine].append(ns)
                row.note = f"{ns:.0f} ns/node (CPU time)"
                row.extra["cpu_ns_per_node"] = ns
        rows.extend(size_rows)
    for engine, values in per_node.items():
        spread = max(values) / min(values) if values else None
        row = Row("deep_chain", "per-node spread", engine)
        row.note = f"slowest/fastest ns per node = {spread:.2f}" if spread else "not measured"
        if engine == "minigrad":
            set_target(row, f"flat (<={FLAT_SPREAD}x)", spread, FLAT_SPREAD)
        rows.append(row)
    return rows
