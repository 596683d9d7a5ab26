"""The capstone's training run, written once against PyTorch's API and run on any engine.

`train(T, ...)` takes the engine module (`torch` or `minigrad`) as its first argument, like the
course's scenarios. Data and initial weights are made here with NumPy, so both engines start
from the same numbers and see the same batches; only the arithmetic differs.
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


def init_weights(sizes=SIZES, seed=0):
    """[(weight, bias), ...] per layer, float32, weight shaped (out, in) as nn.Linear keeps it.

    Scaled by sqrt(2 / fan_in) (He initialisation), which suits the ReLU between the layers.
    """
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        weight = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_out, fan_in))
        layers.append((weight.astype(np.float32), np.zeros(fan_out, dtype=np.float32)))
    return layers


def build_mlp(T, weights):
    """Linear, ReLU, Linear, ..., on engine T, loaded with the given NumPy weights."""
    modules = []
    for weight, bias in weights:
        layer = T.nn.Linear(weight.shape[1], weight.shape[0])
        with T.no_grad():  # overwrite the engine's own random initialisation
            layer.weight.copy_(T.tensor(weight))
            layer.bias.copy_(T.tensor(bias))
        modules += [layer, T.nn.ReLU()]
    return T.nn.Sequential(*modules[:-1])  # no ReLU after the last layer: those are logits


def train(T, points, labels, weights, steps=STEPS, lr=LEARNING_RATE):
    """Full-batch SGD on cross-entropy. Returns (loss per step as float64 NumPy, model)."""
    model = build_mlp(T, weights)
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
