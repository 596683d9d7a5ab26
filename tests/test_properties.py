"""Property tests: random graphs of operations on random broadcastable shapes, in float64.

A program is a few leaves (shapes that broadcast to one common shape) and a chain of steps, each
applying a unary or binary operation to earlier results. Its loss is the last result weighted
by random weights and summed. minigrad must give PyTorch's values and gradients, and both
engines' gradients must agree with central finite differences.

Every operation is smooth on the values it can see (divisors, bases of powers and arguments of
log/sqrt are kept away from zero by construction), so finite differences are meaningful.
"""

from dataclasses import dataclass

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad

# op name -> f(T, a) or f(T, a, b); every binary operator of the course subset appears, with
# Python scalars on either side, next to the elementwise functions, reductions and views.
UNARY = {
    "neg": lambda T, a: -a,
    "exp": lambda T, a: T.exp(a.tanh()),
    "log": lambda T, a: (a * a + 1).log(),
    "sqrt": lambda T, a: T.sqrt(a * a + 0.5),
    "sigmoid": lambda T, a: a.sigmoid(),
    "tanh": lambda T, a: T.tanh(a),
    "cube": lambda T, a: (a * 0.5) ** 3,
    "pow_method": lambda T, a: (a * a + 1).pow(0.5),
    "scalar_minus": lambda T, a: 1.5 - a,
    "scalar_over": lambda T, a: 2.0 / (a * a + 1),
    "scalar_to_the": lambda T, a: 1.5 ** a.tanh(),
    "scalar_add_mul": lambda T, a: 0.5 + 3 * a,
    "sum_all": lambda T, a: a.sum(),
    "mean_all": lambda T, a: T.mean(a),
    "flatten_view": lambda T, a: a.flatten().view(tuple(a.shape)),
    "unsqueeze_squeeze": lambda T, a: a.unsqueeze(0).squeeze(0),
}
REDUCE = {  # f(T, a, dim), keepdim so the result still broadcasts with the others
    "sum_dim": lambda T, a, d: a.sum(d, keepdim=True),
    "mean_dim": lambda T, a, d: a.mean(dim=d, keepdim=True),
    "sum_dim_function": lambda T, a, d: T.sum(a, d, keepdim=True),
}


def _rowdot(T, a, b):
    """Batched matmul: the dot product of a and b along the last axis, kept as a size-1 axis."""
    shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    if not shape:
        return a * b
    a, b = a.expand(*shape), b.expand(*shape)
    return (a.unsqueeze(-2) @ b.unsqueeze(-1)).squeeze(-1)


BINARY = {
    "add": lambda T, a, b: a + b,
    "sub": lambda T, a, b: a - b,
    "mul": lambda T, a, b: a * b,
    "div": lambda T, a, b: a / (b * b + 0.5),
    "pow": lambda T, a, b: (a * a + 0.5) ** b.tanh(),
    "rowdot": _rowdot,
}


@dataclass
class Program:
    full_shape: tuple
    inputs: list  # float64 arrays
    steps: list  # (kind, name, operand indices, dim)
    weights: np.ndarray


def _broadcastable_shape(draw, full):
    """A shape that broadcasts to `full`: some leading dims dropped, some dims set to 1."""
    kept = full[draw(st.integers(0, len(full))) :]
    return tuple(n if draw(st.booleans()) else 1 for n in kept)


def _values(shape):
    return hnp.arrays(np.float64, shape, elements=st.floats(-2, 2, allow_subnormal=False))


@st.composite
def programs(draw):
    full = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    shapes = [_broadcastable_shape(draw, full) for _ in range(draw(st.integers(1, 3)))]
    inputs = [draw(_values(s)) for s in shapes]
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["unary", "binary", "reduce"]))
        i = draw(st.integers(0, len(shapes) - 1))
        if kind == "reduce" and shapes[i]:
            dim = draw(st.integers(-len(shapes[i]), len(shapes[i]) - 1))
            name = draw(st.sampled_from(sorted(REDUCE)))
            shape = list(shapes[i])
            shape[dim] = 1
            steps.append(("reduce", name, (i,), dim))
            shapes.append(tuple(shape))
        elif kind == "binary":
            j = draw(st.integers(0, len(shapes) - 1))
            name = draw(st.sampled_from(sorted(BINARY)))
            shape = np.broadcast_shapes(shapes[i], shapes[j])
            steps.append(("binary", name, (i, j), None))
            shapes.append(shape[:-1] + (1,) if name == "rowdot" and shape else shape)
        else:
            name = draw(st.sampled_from(sorted(UNARY)))
            steps.append(("unary", name, (i,), None))
            shapes.append(() if name in ("sum_all", "mean_all") else shapes[i])
    return Program(full, inputs, steps, draw(_values(shapes[-1])))


def forward(T, program, inputs, requires_grad):
    leaves = [T.tensor(x.tolist(), dtype=T.float64, requires_grad=requires_grad) for x in inputs]
    pool = list(leaves)
    for kind, name, operands, dim in program.steps:
        args = [pool[k] for k in operands]
        if kind == "unary":
            pool.append(UNARY[name](T, *args))
        elif kind == "binary":
            pool.append(BINARY[name](T, *args))
        else:
            pool.append(REDUCE[name](T, *args, dim))
    out = pool[-1]
    loss = (out * T.tensor(program.weights.tolist(), dtype=T.float64)).sum()
    return leaves, out, loss


def values_and_grads(T, program):
    leaves, out, loss = forward(T, program, program.inputs, requires_grad=True)
    if loss.requires_grad:
        loss.backward()
    grads = [None if leaf.grad is None else np.array(leaf.grad.tolist()) for leaf in leaves]
    return np.array(out.tolist()), float(loss.item()), grads


def finite_difference_grads(T, program, eps=1e-6):
    grads = []
    for k, x in enumerate(program.inputs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            shifted = []
            for sign in (1, -1):
                moved = [y.copy() for y in program.inputs]
                moved[k][idx] += sign * eps
                shifted.append(forward(T, program, moved, requires_grad=False)[2].item())
            g[idx] = (shifted[0] - shifted[1]) / (2 * eps)
        grads.append(g)
    return grads


@settings(max_examples=50, deadline=None)
@given(programs())
def test_minigrad_matches_pytorch(program):
    ref_out, ref_loss, ref_grads = values_and_grads(torch, program)
    out, loss, grads = values_and_grads(minigrad, program)
    assert out.shape == ref_out.shape
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-10, atol=1e-12)
    for g, ref in zip(grads, ref_grads, strict=True):
        assert (g is None) == (ref is None)  # an unused input gets no gradient in both
        if ref is not None:
            assert g.shape == ref.shape  # broadcast gradients are reduced to the input's shape
            np.testing.assert_allclose(g, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("engine", [torch, minigrad], ids=["torch", "minigrad"])
@settings(max_examples=25, deadline=None)
@given(program=programs())
def test_gradients_match_finite_differences(engine, program):
    out, _, grads = values_and_grads(engine, program)
    # rounding in the loss, divided by the step, grows with the size of the loss's terms
    atol = 1e-6 + 1e-8 * np.abs(out * program.weights).sum()
    for g, fd in zip(grads, finite_difference_grads(engine, program), strict=True):
        g = np.zeros_like(fd) if g is None else g
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=atol)
