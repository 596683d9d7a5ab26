"""The capstone's training run, written once against PyTorch's API and run on any engine.

`train(T, ...)` takes the engine module (`torch` or `minigrad`) as its first argument, like the
course's scenarios. The data is made here once with NumPy; each engine draws its own initial
weights after `T.manual_seed(seed)`, and minigrad's generator is PyTorch's, bit for bit, so
both start from the same numbers and see the same batches: only the arithmetic differs.
"""

from __future__ import annotations

import numpy as np

SIZES = (2, 32, 2)  # inputs, hidden units, classes
STEPS = 300
LEARNING_RATE = 0.5


def make_moons(n=256, noise=0.15, seed=0):
    """Two interleaving half circles in the plane: float32 points (n, 2), int64 labels (n,)."""
    rng = np.random.default_rng(seed)
    half = n // 2
    angle = rng.uniform(0.0, np.pi, size=n)
    upper = np.stack([np.cos(angle[:half]), np.sin(angle[:half])], axis=1)
    lower = np.stack([1.0 - np.cos(angle[half:]), 0.5 - np.sin(angle[half:])], axis=1)
    points = np.concatenate([upper, lower]) + rng.normal(0.0, noise, size=(n, 2))
    points = (points - points.mean(axis=0)) / points.std(axis=0)  # standardised inputs
    labels = np.concatenate([np.zeros(half), np.ones(n - half)]).astype(np.int64)
    return points.astype(np.float32), labels


def build_mlp(T, sizes=SIZES, seed=0):
    """Linear, ReLU, Linear, ..., on engine T, with nn.Linear's own initialisation drawn after
    T.manual_seed(seed): the same weights on either engine."""
    T.manual_seed(seed)
    modules = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        modules += [T.nn.Linear(fan_in, fan_out), T.nn.ReLU()]
    return T.nn.Sequential(*modules[:-1])  # no ReLU after the last layer: those are logits


def train(T, points, labels, sizes=SIZES, seed=0, steps=STEPS, lr=LEARNING_RATE):
    """Full-batch SGD on cross-entropy. Returns (loss per step as float64 NumPy, model)."""
    model = build_mlp(T, sizes, seed)
    optimizer = T.optim.SGD(model.parameters(), lr=lr)
    x, y = T.tensor(points), T.tensor(labels)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses), model


def accuracy(T, model, points, labels):
    """Fraction of points whose largest logit is their label."""
    with T.no_grad():
        predicted = model(T.tensor(points)).argmax(dim=1).numpy()
    return float((predicted == labels).mean())
