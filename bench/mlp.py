"""Training throughput: five SGD steps of a 784-512-256-10 ReLU MLP, batch 256, float32.

On a GPU (device="cuda", `python -m bench.gpu`): minigrad on CuPy against PyTorch CUDA, at
batch 4096, synchronised after each run; no NumPy bound there.

The matrix products dominate, so an engine's own overhead shows as the gap to the NumPy
bound. Target (issue 2): minigrad within 1.10x of the NumPy bound. Every engine starts
from the same NumPy weights and data and takes the same steps, so losses, gradients and
final weights must agree.
"""

from typing import NamedTuple

import numpy as np

from bench.compare import time_engines
from bench.engines import Minigrad
from bench.results import set_target
from bench.verify import to_numpy

LAYERS = (784, 512, 256, 10)
LEARNING_RATE = 0.1
TARGET_VS_NUMPY = 1.10


class Problem(NamedTuple):
    x: np.ndarray  # (batch, 784) float32
    labels: np.ndarray  # (batch,) int64
    params: list[np.ndarray]  # w1, b1, w2, b2, w3, b3; w is (fan_in, fan_out)


def make_problem(batch: int, layers=LAYERS, seed: int = 0) -> Problem:
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(layers, layers[1:], strict=False):
        params.append(
            (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2 / fan_in)).astype(np.float32)
        )
        params.append(np.zeros(fan_out, dtype=np.float32))
    x = rng.standard_normal((batch, layers[0])).astype(np.float32)
    labels = rng.integers(0, layers[-1], batch)
    return Problem(x, labels, params)


def engine_training(T, problem: Problem, steps: int, device: str = "cpu"):
    """Prepare function for torch or minigrad. The gradients are cleared at the start of a
    step, so after the job they hold the last step's, for the cross-check."""
    F = T.nn.functional

    def prepare():
        x, labels = T.tensor(problem.x, device=device), T.tensor(problem.labels, device=device)
        params = [T.tensor(p, requires_grad=True, device=device) for p in problem.params]

        def job():
            losses = []
            for _ in range(steps):
                for p in params:
                    p.grad = None
                w1, b1, w2, b2, w3, b3 = params
                hidden = F.relu(F.relu(x @ w1 + b1) @ w2 + b2)
                loss = F.cross_entropy(hidden @ w3 + b3, labels)
                loss.backward()
                with T.no_grad():
                    for p in params:
                        p -= LEARNING_RATE * p.grad
                losses.append(loss.item())
            return losses, params, [p.grad for p in params]

        return job

    return prepare


def numpy_training(problem: Problem, steps: int):
    """The lower bound: forward and backward written out by hand."""

    def prepare():
        params = [p.copy() for p in problem.params]
        x, labels = problem.x, problem.labels
        rows = np.arange(len(labels))

        def job():
            losses = []
            for _ in range(steps):
                w1, b1, w2, b2, w3, b3 = params
                h1 = x @ w1 + b1
                r1 = np.maximum(h1, 0)
                h2 = r1 @ w2 + b2
                r2 = np.maximum(h2, 0)
                logits = r2 @ w3 + b3
                shifted = logits - logits.max(axis=1, keepdims=True)
                exp = np.exp(shifted)
                total = exp.sum(axis=1, keepdims=True)
                losses.append(float(np.log(total[:, 0]).mean() - shifted[rows, labels].mean()))
                # d loss / d logits = (softmax - one_hot) / batch
                d_logits = exp / total
                d_logits[rows, labels] -= 1
                d_logits /= len(labels)
                d_r2 = d_logits @ w3.T
                d_h2 = d_r2 * (h2 > 0)
                d_r1 = d_h2 @ w2.T
                d_h1 = d_r1 * (h1 > 0)
                grads = [
                    x.T @ d_h1,
                    d_h1.sum(0),
                    r1.T @ d_h2,
                    d_h2.sum(0),
                    r2.T @ d_logits,
                    d_logits.sum(0),
                ]
                for p, g in zip(params, grads, strict=True):
                    p -= LEARNING_RATE * g
            return losses, params, grads

        return job

    return prepare


def snapshot(result) -> dict[str, np.ndarray]:
    losses, params, grads = result
    names = ("w1", "b1", "w2", "b2", "w3", "b3")
    return {
        "losses": np.array(losses),
        **{f"{n} after": to_numpy(p) for n, p in zip(names, params, strict=True)},
        **{
            f"{n}.grad": to_numpy(g) if g is not None else None
            for n, g in zip(names, grads, strict=True)
        },
    }


def run(
    minigrad: Minigrad,
    *,
    steps: int = 5,
    batch: int = 256,
    layers=LAYERS,
    budget_s: float = 2.0,
    device: str = "cpu",
    sync=None,
):
    """Rows for torch, minigrad and (on the CPU) the NumPy bound; `sync` is called on the
    clock after each run (a GPU's synchronise, see timing.measure)."""
    import torch

    problem = make_problem(batch, layers)
    prepares = {
        "torch": engine_training(torch, problem, steps, device),
        "minigrad": engine_training(minigrad.module, problem, steps, device)
        if minigrad.module
        else minigrad.reason,
    }
    if device == "cpu":
        prepares["numpy"] = numpy_training(problem, steps)
    case = f"{steps} steps {'-'.join(map(str, layers))} b{batch}"
    case += "" if device == "cpu" else f" {device}"
    rows = time_engines("mlp", case, prepares, snapshot, rtol=1e-4, budget_s=budget_s, sync=sync)
    if device == "cpu":
        mg = next(r for r in rows if r.engine == "minigrad")
        set_target(mg, f"<={TARGET_VS_NUMPY:.2f}x numpy", mg.vs_numpy, TARGET_VS_NUMPY)
    return rows
