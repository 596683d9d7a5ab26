"""Very deep graphs: chains of 10^3 to 10^6 multiplications of one value.

`run` (benchmark "deep_chain") times backward alone; building the chain is not timed. A walk
that is linear in the number of nodes shows a flat time per node (issue 2's target);
recursion, quadratic bookkeeping or cache-unfriendly growth show as a rising one.

`run_forward_backward` (benchmark "deep_chain_fb", issue 16) times building the chain and
its backward together, as a user meets them: there the graph grows while Python's cyclic
garbage collector runs, so an engine that leaves many tracked objects per node pays for
them again at every full collection. Its target: minigrad's time per node flat and at or
below PyTorch's at every size.

Time per node is taken from CPU time, since the long runs are too few for best-of-N to
filter out other work on the machine.
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


def engine_forward_backward(T, nodes: int):
    """Prepare function: a fresh leaf (untimed); the job builds the chain and runs backward."""

    def prepare():
        x = T.tensor(1.0, requires_grad=True)

        def job():
            y = x
            for _ in range(nodes):
                y = y * FACTOR
            y.backward()
            return y, x.grad

        return job

    return prepare


def exact(nodes: int) -> dict[str, np.ndarray]:
    """Both y and dy/dx are FACTOR multiplied `nodes` times in float32, in order, as the
    forward and the backward walks do: a sequential float32 accumulate rounds identically."""
    value = np.multiply.accumulate(np.full(nodes, FACTOR, dtype=np.float32))[-1]
    return {"y": np.array(value), "x.grad": np.array(value)}


def _time_sizes(benchmark, label, factory, minigrad: Minigrad, sizes, budget_s):
    """Rows for every size and engine, with ns/node from CPU time; and those figures."""
    import torch

    rows: list[Row] = []
    per_node: dict[str, dict[int, float]] = {"torch": {}, "minigrad": {}}
    for nodes in sizes:
        prepares = {
            "torch": factory(torch, nodes),
            "minigrad": factory(minigrad.module, nodes) if minigrad.module else minigrad.reason,
        }
        # Long chains take seconds to build: no warm-up from 10^5 (the per-node figure
        # averages over that many nodes anyway) and a single timed run at 10^6.
        size_rows = time_engines(
            benchmark,
            f"{label} {nodes:,} nodes",
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
                per_node[row.engine][nodes] = ns
                row.note = f"{ns:.0f} ns/node (CPU time)"
                row.extra["cpu_ns_per_node"] = ns
        rows.extend(size_rows)
    return rows, per_node


def _spread_rows(benchmark, per_node):
    rows = []
    for engine, by_size in per_node.items():
        values = list(by_size.values())
        spread = max(values) / min(values) if values else None
        row = Row(benchmark, "per-node spread", engine)
        row.note = f"slowest/fastest ns per node = {spread:.2f}" if spread else "not measured"
        if engine == "minigrad":
            set_target(row, f"flat (<={FLAT_SPREAD}x)", spread, FLAT_SPREAD)
        rows.append(row)
    return rows


def run(minigrad: Minigrad, *, sizes=SIZES, budget_s: float = 1.0) -> list[Row]:
    """Backward alone."""
    rows, per_node = _time_sizes("deep_chain", "backward", engine_chain, minigrad, sizes, budget_s)
    return rows + _spread_rows("deep_chain", per_node)


def run_forward_backward(minigrad: Minigrad, *, sizes=SIZES, budget_s: float = 1.0) -> list[Row]:
    """Building the chain and its backward, both timed (issue 16)."""
    benchmark = "deep_chain_fb"
    rows, per_node = _time_sizes(
        benchmark, "forward+backward", engine_forward_backward, minigrad, sizes, budget_s
    )
    rows += _spread_rows(benchmark, per_node)
    mine, theirs = per_node["minigrad"], per_node["torch"]
    row = Row(benchmark, "per-node vs torch", "minigrad")
    if mine and theirs and mine.keys() == theirs.keys():
        spread = max(mine.values()) / min(mine.values())
        worst = max(mine[n] / theirs[n] for n in mine)
        above = [f"{n:,}" for n in mine if mine[n] > theirs[n]]
        flat, below = spread <= FLAT_SPREAD, not above
        row.note = (
            f"per-node spread {spread:.2f} ({'flat' if flat else 'NOT flat'}); "
            f"worst minigrad/torch ns per node {worst:.2f} "
            + (
                "(at or below PyTorch at every size)"
                if below
                else f"(ABOVE PyTorch at {', '.join(above)} nodes)"
            )
        )
        # one number for the target: met when both hold
        set_target(
            row,
            f"flat (<={FLAT_SPREAD}x) and <=torch at every size",
            0.0 if flat and below else 1.0,
            0.0,
        )
    else:
        row.note = "not measured"
        set_target(row, f"flat (<={FLAT_SPREAD}x) and <=torch at every size", None, 0.0)
    rows.append(row)
    return rows
