"""Scenarios: scalars, dtypes and printing in the corners student code meets (SPEC.md N1-N3).

Formatting a loss in an f-string, NumPy scalars on either side of an operator, promotion in
`stack`/`cat`/`where`, exact `linspace`/`arange` values, and the errors PyTorch raises for
integer and bool tensors.
"""

import numpy as np

from autograder.catalogue._data import floats, ints, scalar
from autograder.scenarios import scenario

LECTURE = "course/01_tensors_memory.ipynb"


# -- N3: a 0-d tensor in an f-string prints as its number ---------------------------------------


@scenario(
    id="values.format_of_a_zero_dim_tensor",
    rules=["N3"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def format_of_a_zero_dim_tensor(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    loss = (a * 2).sum()
    k = T.tensor(int(rng.integers(-50, 50)), device=dev)
    record.value("f'{loss}' (requires grad: no warning)", f"{loss}")
    record.value("f'{loss:.3f}'", f"{loss:.3f}")
    record.value("f'{loss:>10.2e}'", f"{loss:>10.2e}")
    record.value("format(loss, '')", format(loss, ""))
    record.value("f'{k}' (int64)", f"{k}")
    record.value("f'{k:+05d}'", f"{k:+05d}")
    record.value("f'{a[0] > 1}' (bool)", f"{a[0] > 1}")
    record.value("f'{x}' of a float64 0-d", f"{T.tensor(scalar(rng), dtype=T.float64, device=dev)}")
    record.value("f'{a}' (1-D: the repr)", f"{a}")
    record.call("f'{a:.3f}' (1-D: refused)", lambda: f"{a:.3f}")
    record.call("f'{a[:1]:.2f}' (one element, 1-D: refused)", lambda: f"{a[:1]:.2f}")
    record.value("format(loss.detach(), '.4f')", format(loss.detach(), ".4f"))


# -- N1/N2: NumPy scalars behave as Python numbers, on either side ------------------------------


@scenario(
    id="values.numpy_scalars_on_either_side",
    rules=["N1", "N2"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def numpy_scalars_on_either_side(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=dev)
    s64 = np.float64(scalar(rng))
    s32 = np.float32(scalar(rng))
    k = np.int64(rng.integers(2, 5))
    cases = [
        ("np.float64 * a", lambda: s64 * a),
        ("a * np.float64", lambda: a * s64),
        ("np.float64 + a", lambda: s64 + a),
        ("np.float32 - a", lambda: s32 - a),
        ("np.float64 / a", lambda: s64 / a),
        ("np.float64 ** a", lambda: s64**a),
        ("a ** np.float64", lambda: a**s64),
        ("np.int64 * a", lambda: k * a),
        ("np.int64 - a", lambda: k - a),
        ("np.sqrt(np.float64) * a", lambda: np.sqrt(s64) * a),
    ]
    w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    for label, make in cases:
        y = record.call(label, make)
        record.call(f"backward of {label}", lambda y=y: (y * w).sum().backward())
        record.grad(f"a.grad of {label}", a)
        a.grad = None
    x = T.tensor(floats(rng, 3, -2, 2), device=dev)
    i = T.tensor(ints(rng, 3), device=dev)
    b = x > 0
    z = T.tensor(scalar(rng), device=dev)
    record.call("np.float64 < x", lambda: s64 < x)
    record.call("np.float64 == x", lambda: s64 == x)
    record.call("np.int64 >= i", lambda: k >= i)
    record.call("np.float64 * i (int64 tensor)", lambda: s64 * i)
    record.call("np.int64 * i", lambda: k * i)
    record.call("np.int32 - i", lambda: np.int32(k) - i)
    record.call("np.float32 * b (bool tensor)", lambda: s32 * b)
    record.call("np.bool_ * i (a float to PyTorch)", lambda: np.bool_(k > 2) * i)
    record.call("np.float64 * 0-d tensor", lambda: s64 * z)
    record.call("0-d tensor * np.float64", lambda: z * s64)
    record.call("0-d tensor + np.int64", lambda: z + k)
    record.call("x.half() * np.float64", lambda: x.half() * s64)
    record.call("int 0-d tensor / np.int64", lambda: T.tensor(int(k) + 3, device=dev) / k)
    p = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    (p * w[0]).sum().backward()

    lr = np.float64(scalar(rng, 0.01, 0.1))

    def step(q=p):
        with T.no_grad():
            q -= lr * q.grad
        return q

    record.call("p -= np.float64 * p.grad under no_grad", step)
    record.call("i.mean(dtype=T.float32)", lambda: i.mean(dtype=T.float32))
    record.call("x.mean(dtype=T.float64)", lambda: x.mean(dtype=T.float64))
    record.call("i.mean(0, dtype=T.float64)", lambda: i.mean(0, dtype=T.float64))
    record.call("i.mean(dtype=T.int64) (refused)", lambda: i.mean(dtype=T.int64))
