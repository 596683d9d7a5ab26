"""Scenarios: tensor basics (creation and dtypes, in-place `_` forms, views and memory,
broadcasting, when an operation allocates), from the tensor-basics source document."""

import numpy as np

from autograder.catalogue._data import floats, ints, scalar
from autograder.catalogue._statements import iadd, setitem
from autograder.scenarios import scenario

LECTURE = "course/01_tensors_memory.ipynb"


@scenario(id="basics.creation_and_dtypes", rules=["N2", "L1"], topic="basics",
          lecture=f"{LECTURE}#dtypes-and-promotion")  # fmt: skip
def creation_and_dtypes(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    v = scalar(rng)
    record.call("tensor(floats)", lambda: T.tensor(floats(rng, n), device=dev))
    record.call("tensor(ints)", lambda: T.tensor(ints(rng, n), device=dev))
    record.call("tensor(bools)", lambda: T.tensor((rng.random(n) > 0.5).tolist(), device=dev))
    record.call("tensor(nested floats)", lambda: T.tensor(floats(rng, (2, n)), device=dev))
    record.call("tensor(python float)", lambda: T.tensor(v, device=dev))
    record.call("tensor(float64 array)", lambda: T.tensor(rng.uniform(-1, 1, n), device=dev))
    record.call("tensor(float32 array)",
                lambda: T.tensor(rng.uniform(-1, 1, n).astype(np.float32), device=dev))  # fmt: skip
    record.call("tensor(int array)", lambda: T.tensor(rng.integers(0, 9, n), device=dev))
    record.call("tensor(floats, dtype=float64)",
                lambda: T.tensor(floats(rng, n), dtype=T.float64, device=dev))  # fmt: skip
    record.call("zeros(2, n)", lambda: T.zeros(2, n, device=dev))
    record.call("ones(n, dtype=int32)", lambda: T.ones(n, dtype=T.int32, device=dev))
    record.call("full((2, n), v)", lambda: T.full((2, n), v, device=dev))
    record.call("full((n,), 7)", lambda: T.full((n,), 7, device=dev))
    record.call("arange(n)", lambda: T.arange(n, device=dev))
    record.call("arange(0., v, 0.25)", lambda: T.arange(0.0, v, 0.25, device=dev))
    record.call("linspace(0, v, n)", lambda: T.linspace(0, v, n, device=dev))
    record.call("eye(n)", lambda: T.eye(n, device=dev))
    x = T.tensor(floats(rng, (n, 2)), dtype=T.float64, device=dev)
    record.call("zeros_like(float64 x)", lambda: T.zeros_like(x))
    record.call("ones_like(float64 x)", lambda: T.ones_like(x))
    e = T.empty(2, n, device=dev)  # its values are whatever memory held: only the layout counts
    record.value("empty(2, n): shape, dtype", (list(e.shape), str(e.dtype).rsplit(".")[-1]))


@scenario(id="basics.tensor_class_and_typed_constructors", rules=["N2"], topic="basics",
          lecture=f"{LECTURE}#creating-tensors", devices=("cpu",))  # fmt: skip
def tensor_class_and_typed_constructors(T, record, rng):
    # Source document 001: T.Tensor is a class (float32 by default), T.tensor a function that
    # infers the dtype from the data.
    n = int(rng.integers(2, 5))
    values = ints(rng, n)
    record.call("Tensor(ints)", lambda: T.Tensor(values))
    record.call("tensor(ints)", lambda: T.tensor(values))
    record.call("Tensor(float64 array)", lambda: T.Tensor(rng.uniform(-1, 1, n)))
    record.call("FloatTensor(ints)", lambda: T.FloatTensor(values))
    record.call("DoubleTensor(floats)", lambda: T.DoubleTensor(floats(rng, n)))
    record.call("LongTensor(ints)", lambda: T.LongTensor(values))
    record.call("isinstance(tensor(x), Tensor)",
                lambda: isinstance(T.tensor(floats(rng, n)), T.Tensor))  # fmt: skip


@scenario(id="basics.inplace_underscore_forms", rules=["I1", "N1"], topic="basics",
          lecture=f"{LECTURE}#operations-and-in-place")  # fmt: skip
def inplace_underscore_forms(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, (2, 3)), device=dev)
    y = T.tensor(floats(rng, (2, 3)), device=dev)
    s = scalar(rng)
    record.call("x.add(y) (out of place)", lambda: x.add(y))
    record.tensor("x after x.add(y)", x)
    for label, op in [
        ("x.add_(y)", lambda: x.add_(y)),
        ("x.mul_(s)", lambda: x.mul_(s)),
        ("x.sub_(y)", lambda: x.sub_(y)),
        ("x.div_(s)", lambda: x.div_(s)),
        ("x.clamp_(0.2, 1.5)", lambda: x.clamp_(0.2, 1.5)),
        ("x.fill_(s)", lambda: x.fill_(s)),
        ("x.zero_()", lambda: x.zero_()),
    ]:
        ret = record.call(label, op)
        record.same(f"{label} returns x", ret, x)


@scenario(id="basics.views_share_memory", rules=["I5"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def views_share_memory(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, (3, 4)), device=dev)
    views = {
        "x[1]": x[1],
        "x[:, 2]": x[:, 2],
        "x[1:]": x[1:],
        "x.view(12)": x.view(12),
        "x.t()": x.t(),
        "x.T": x.T,
        "x.transpose(0, 1)": x.transpose(0, 1),
        "x.unsqueeze(0)": x.unsqueeze(0),
        "x.reshape(2, 6) (contiguous)": x.reshape(2, 6),
        "x.flatten()": x.flatten(),
    }
    for label, v in views.items():
        record.shares(f"{label} shares memory with x", v, x)
    copies = {
        "x.clone()": x.clone(),
        "x.t().reshape(12)": x.t().reshape(12),
        "x.t().contiguous()": x.t().contiguous(),
        "x[[0, 2]] (index list)": x[[0, 2]],
        "x[x > 1] (mask)": x[x > 1],
    }
    for label, c in copies.items():
        record.shares(f"{label} shares memory with x", c, x)
    row = views["x[1]"]
    s = scalar(rng, 5, 9)
    record.call("x[1][0] = s", lambda: setitem(row, 0, s))
    record.tensor("x after writing through x[1]", x)
    record.tensor("x.clone() after the write", copies["x.clone()"])
    record.call("x.contiguous() is x", lambda: x.contiguous() is x)


@scenario(id="basics.indexing_results", rules=["N1", "L2"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def indexing_results(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (3, 4), -2, 2), requires_grad=True, device=dev)
    idx = T.tensor(rng.integers(0, 3, size=2).tolist(), device=dev)
    t = scalar(rng, -0.5, 0.5)
    record.call("a[1]", lambda: a[1])
    record.call("a[1, 2]", lambda: a[1, 2])
    record.call("a[:, 1:3]", lambda: a[:, 1:3])
    record.call("a[None]", lambda: a[None])
    record.call("a[..., 0]", lambda: a[..., 0])
    record.call("a[idx] (index tensor)", lambda: a[idx])
    record.call("a[a > t] (mask)", lambda: a[a > t])
    loss = (a[idx] * 2).sum() + a[a > t].sum() + a[0, 1:].sum()
    record.call("backward through indexing", lambda: loss.backward())
    record.grad("a.grad", a)


@scenario(id="basics.broadcasting", rules=["N1"], topic="basics",
          lecture=f"{LECTURE}#broadcasting")  # fmt: skip
def broadcasting(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (3, 1), -2, 2), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=dev)
    c = T.tensor(floats(rng, (1, 4), 0.5, 2), requires_grad=True, device=dev)
    s = T.tensor(scalar(rng), requires_grad=True, device=dev)
    record.call("a + b", lambda: a + b)
    record.call("a * b", lambda: a * b)
    record.call("a - c", lambda: a - c)
    record.call("b / c", lambda: b / c)
    record.call("a * s (0-d)", lambda: a * s)
    record.call("(2, 3) + (3, 2)", lambda: T.ones(2, 3, device=dev) + T.ones(3, 2, device=dev))
    loss = ((a + b) * c / s).sum() + (a * b).mean()
    record.call("loss.backward()", lambda: loss.backward())
    for name, leaf in (("a", a), ("b", b), ("c", c), ("s", s)):
        record.grad(f"{name}.grad", leaf)


@scenario(id="basics.when_an_operation_allocates", rules=["I1"], topic="basics",
          lecture=f"{LECTURE}#when-memory-is-allocated")  # fmt: skip
def when_an_operation_allocates(T, record, rng):
    # Source document 004: `y = y + x` binds a new tensor, `y += x` and `y[:] = ...` write
    # into the existing one.
    dev = record.device
    x = T.tensor(floats(rng, 3), device=dev)
    y = T.tensor(floats(rng, 3), device=dev)
    before = y
    record.same("y = y + x gives a new object", y + x, before)
    z = record.call("y += x", lambda: iadd(y, x))
    record.same("y += x keeps the object", z, before)
    record.call("y[:] = x + y", lambda: setitem(y, slice(None), x + y))
    record.tensor("y after both writes", y)
    alias = y
    record.same("alias = y is the same object", alias, y)


@scenario(id="basics.python_numbers_and_sizes", rules=["N1"], topic="basics",
          lecture=f"{LECTURE}#creating-tensors")  # fmt: skip
def python_numbers_and_sizes(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, (2, 3)), device=dev)
    one = T.tensor([scalar(rng)], device=dev)
    i = T.tensor(int(rng.integers(-9, 9)), device=dev)
    record.call("one.item()", lambda: one.item())
    record.call("i.item() (int64)", lambda: i.item())
    record.call("x.item() (6 elements)", lambda: x.item())
    record.call("x.tolist()", lambda: x.tolist())
    record.call("float(one)", lambda: float(one))
    record.call("int(i)", lambda: int(i))
    record.call("bool(one > 0)", lambda: bool(one > 0))
    record.call("bool(x) (6 elements)", lambda: bool(x))
    record.call("len(x)", lambda: len(x))
    record.call("list(x)", lambda: list(x))
    record.call("x.shape", lambda: tuple(x.shape))
    record.call("x.size()", lambda: tuple(x.size()))
    record.call("x.size(1)", lambda: x.size(1))
    record.call("x.dim(), x.ndim, x.numel()", lambda: (x.dim(), x.ndim, x.numel()))
    record.call("x.dtype", lambda: x.dtype)
    record.call("x.device.type", lambda: x.device.type)
