"""Per-operation overhead: `y = y * 1.0001 + 0.5` repeated on 16 float32 values, then backward.

Tiny tensors make the arithmetic free, so this measures what an engine spends per operation
(dispatch, graph recording, the backward walk). Target (issue 2): minigrad at or below
PyTorch's time.
"""

import numpy as np

from bench.compare import time_engines
from bench.engines import Minigrad
from bench.results import Row, set_target
from bench.verify import output_and_grad

SCALE, SHIFT = 1.0001, 0.5
TARGET_VS_TORCH = 1.00


def engine_chain(T, x0: np.ndarray, steps: int, device: str = "cpu"):
    """Prepare function for torch or minigrad: a fresh leaf, then the timed forward+backward."""

    def prepare():
        x = T.tensor(x0, requires_grad=True, device=device)

        def job():
            y = x
            for _ in range(steps):
                y = y * SCALE + SHIFT
            y.sum().backward()
            return y, x.grad

        return job

    return prepare


def numpy_chain(x0: np.ndarray, steps: int):
    """The lower bound: the same arithmetic by hand, d(sum y)/dx = SCALE ** steps elementwise."""

    def prepare():
        def job():
            y = x0
            for _ in range(steps):
                y = y * SCALE + SHIFT
            grad = np.ones_like(y)
            for _ in range(steps):
                grad = grad * SCALE
            return y, grad

        return job

    return prepare


def run(
    minigrad: Minigrad,
    *,
    steps: int = 2000,
    size: int = 16,
    budget_s: float = 1.0,
    device: str = "cpu",
    sync=None,
):
    """Rows for torch, minigrad and (on the CPU) the NumPy bound; on a GPU every operation
    is a kernel launch, so this measures launches; `sync` as in mlp.run."""
    import torch

    x0 = np.random.default_rng(0).uniform(-1, 1, size).astype(np.float32)
    prepares = {
        "torch": engine_chain(torch, x0, steps, device),
        "minigrad": engine_chain(minigrad.module, x0, steps, device)
        if minigrad.module
        else minigrad.reason,
    }
    if device == "cpu":
        prepares["numpy"] = numpy_chain(x0, steps)
    case = f"{steps} steps x{size}" + ("" if device == "cpu" else f" {device}")
    rows: list[Row] = time_engines(
        "chain", case, prepares, output_and_grad, rtol=1e-5, budget_s=budget_s, sync=sync
    )
    if device == "cpu":
        mg = next(r for r in rows if r.engine == "minigrad")
        set_target(mg, f"<={TARGET_VS_TORCH:.2f}x torch", mg.vs_torch, TARGET_VS_TORCH)
    return rows
