"""Adam and AdamW update float32 parameters as PyTorch 2.13's CPU kernels do, bit for bit, once
the one kernel minigrad cannot reproduce is shared: PyTorch's float32 `sqrt` (MKL's vector
sqrt, off by one unit in the last place on some elements, where NumPy's is correctly
rounded). Gradients are fed from the same numbers on both sides, so only the optimizers'
arithmetic (lerp_ and addcmul_ as fused multiply-adds, addcdiv_'s order) is compared."""

import numpy as np
import pytest
import torch

import minigrad


def _run(T, name, steps=100, **settings):
    rng = np.random.default_rng(5)
    shapes = [(3, 4), (4,), (17,)]
    params = [
        T.tensor(rng.uniform(-1, 1, size=s).astype(np.float32), requires_grad=True) for s in shapes
    ]
    opt = getattr(T.optim, name)(params, **settings)
    for _ in range(steps):
        for p in params:
            p.grad = T.tensor(rng.normal(size=tuple(p.shape)).astype(np.float32))
        opt.step()
    return np.concatenate([p.detach().numpy().reshape(-1) for p in params])


@pytest.fixture
def pytorchs_sqrt(monkeypatch):
    def sqrt(self):
        return minigrad.from_numpy(torch.from_numpy(self._data).sqrt().numpy())

    monkeypatch.setattr(minigrad.Tensor, "sqrt", sqrt)


CASES = [
    ("AdamW", {}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.5, "amsgrad": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.9), "weight_decay": 0.1}),  # lerp's other form
]


@pytest.mark.parametrize(("name", "settings"), CASES)
def test_adam_updates_are_pytorchs_bit_for_bit(name, settings, pytorchs_sqrt):
    ours, theirs = _run(minigrad, name, **settings), _run(torch, name, **settings)
    assert ours.view(np.uint32).tolist() == theirs.view(np.uint32).tolist()


def test_without_pytorchs_sqrt_the_values_stay_within_float32_rounding():
    ours, theirs = _run(minigrad, "AdamW"), _run(torch, "AdamW")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
