"""The capstone (course/07_capstone.ipynb): minigrad and PyTorch, each drawing its initial weights
after the same manual_seed, start from the same weights, give the same loss curve on the same
data, and the training actually learns."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

import minigrad

pytestmark = pytest.mark.xdist_group("capstone")  # one worker trains the module's runs

COURSE = Path(__file__).resolve().parent.parent / "course"


def _load_capstone():
    spec = importlib.util.spec_from_file_location("capstone_train", COURSE / "capstone_train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


capstone = _load_capstone()


@pytest.fixture(scope="module")
def data():
    return capstone.make_moons()


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """As in the notebook: tiny matrices on a shared 2-core machine run faster on one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def runs(data):
    """Loss curves of the notebook's run (default sizes, seed, steps, learning rate) per engine."""
    return {T.__name__: capstone.train(T, *data) for T in (torch, minigrad)}


def _max_relative_difference(a, b):
    return float(np.max(np.abs(a - b) / np.abs(b)))


def _numpy_loss(weights, points, labels):
    """Cross-entropy of the untrained MLP, computed by hand in float64 NumPy."""
    h = points.astype(np.float64)
    for i, (weight, bias) in enumerate(weights):
        h = h @ weight.T.astype(np.float64) + bias
        if i < len(weights) - 1:
            h = np.maximum(h, 0.0)
    shifted = h - h.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(len(labels)), labels].mean()


def test_the_loss_curves_coincide(runs):
    torch_losses, _ = runs["torch"]
    minigrad_losses, _ = runs["minigrad"]
    assert len(minigrad_losses) == len(torch_losses) == capstone.STEPS
    assert _max_relative_difference(minigrad_losses, torch_losses) < 1e-4


def _initial_weights(T, seed=0):
    """[(weight, bias), ...] of build_mlp's model on engine T, as NumPy arrays."""
    params = [p.detach().numpy().copy() for p in capstone.build_mlp(T, seed=seed).parameters()]
    return list(zip(params[::2], params[1::2], strict=True))


def test_both_engines_draw_the_same_initial_weights():
    for (tw, tb), (mw, mb) in zip(_initial_weights(torch), _initial_weights(minigrad)):
        assert np.array_equal(tw, mw) and np.array_equal(tb, mb)
    other = _initial_weights(torch, seed=1)
    assert not np.array_equal(other[0][0], _initial_weights(torch)[0][0])


@pytest.mark.parametrize("engine", ["torch", "minigrad"])
def test_both_start_from_the_seeded_weights(runs, data, engine):
    """The first loss is the one the seeded weights give, computed apart in NumPy."""
    expected = _numpy_loss(_initial_weights(torch), *data)
    assert runs[engine][0][0] == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("engine", ["torch", "minigrad"])
def test_training_learns(runs, data, engine):
    losses, model = runs[engine]
    T = torch if engine == "torch" else minigrad
    assert losses[-1] < 0.2 * losses[0]
    assert np.all(np.diff(losses[:50]) < 0)  # full-batch SGD at this rate descends steadily
    assert capstone.accuracy(T, model, *data) > 0.95


def test_the_bound_separates_different_runs(data, runs):
    """The 1e-4 bound is not vacuous: a run from other initial weights breaks it."""
    other, _ = capstone.train(torch, *data, seed=1)
    assert _max_relative_difference(other, runs["torch"][0]) > 1e-2
