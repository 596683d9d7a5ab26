"""Scenarios: variations of the code students run in the course's notebooks (rules N1, L5, L6,
L10), found by a second parity audit from a student's side.

The mistakes a student makes around a training loop: a list or a number as backward's
`gradient`, `requires_grad = 1` (or `tensor(..., requires_grad=1)`), `.data = ndarray`, a
module whose `__init__` forgot `super().__init__()`, indexing or slicing an `nn.Sequential`,
`normal_`/`uniform_` on an integer tensor or with reversed bounds, `clamp_` of an integer tensor
to float bounds, `clamp` with tensor bounds, factory sizes given as floats or negatives,
`full` with a non-number, typed constructors of a tensor of another dtype, assigning to a
read-only attribute, `x.device == "cpu"`, and the objects a notebook cell ending in
`manual_seed(...)` or `register_hook(...)` shows.
"""

import re

import numpy as np

from autograder.catalogue._data import floats, scalar
from autograder.scenarios import scenario

LECTURE = "course/02_leaf_nodes.ipynb"
CAPSTONE = "course/07_capstone.ipynb"


# -- L6: what backward accepts as its gradient --------------------------------------------------


@scenario(
    id="values.backward_gradient_must_be_tensors",
    rules=["L6"],
    topic="values",
    lecture=f"{LECTURE}#backward-errors",
)
def backward_gradient_must_be_tensors(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    values = floats(rng, n)
    weights = floats(rng, n)
    k = scalar(rng)

    def run(gradient, *, total=False):
        a = T.tensor(values, requires_grad=True, device=dev)
        y = (a * k).sum() if total else a * k
        y.backward(gradient)
        return a.grad

    ones = weights  # a list of numbers: refused, PyTorch takes no list as a gradient
    record.call("y.backward(list of floats)", lambda: run(ones))
    record.call("y.backward(ndarray)", lambda: run(np.array(weights)))
    record.call("y.sum().backward(float)", lambda: run(k, total=True))
    record.call("y.sum().backward(int)", lambda: run(int(k) + 1, total=True))
    record.call("y.sum().backward(np.float32)", lambda: run(np.float32(k), total=True))
    # a sequence of Tensors (or None), one per output, is what PyTorch accepts
    record.call("y.backward([tensor])", lambda: run([T.tensor(weights, device=dev)]))
    record.call("y.backward((tensor,))", lambda: run((T.tensor(weights, device=dev),)))
    record.call("y.sum().backward([None])", lambda: run([None], total=True))
    record.call("y.sum().backward([])", lambda: run([], total=True))

    def grad_of(outputs):
        a = T.tensor(values, requires_grad=True, device=dev)
        return T.autograd.grad((a * k).sum(), a, grad_outputs=outputs)

    record.call("autograd.grad(grad_outputs=[float])", lambda: grad_of([k]))
    record.call("autograd.grad(grad_outputs=[tensor])", lambda: grad_of([T.tensor(k, device=dev)]))


# -- L5/L10: requires_grad takes a bool, .data and .grad take tensors -------------------------


@scenario(
    id="values.requires_grad_and_data_take_their_types",
    rules=["L5", "L10"],
    topic="values",
    lecture=f"{LECTURE}#dot-data",
)
def requires_grad_and_data_take_their_types(T, record, rng):
    dev = record.device
    values = floats(rng, (2, 3))

    def fresh():
        return T.tensor(values, device=dev)

    def set_flag(flag):
        t = fresh()
        t.requires_grad = flag
        return t

    for label, flag in [
        ("1", 1),
        ("0", 0),
        ("'yes'", "yes"),
        ("None", None),
        ("np.True_", np.True_),
        ("True", True),
    ]:
        record.call(f"t.requires_grad = {label}", lambda flag=flag: set_flag(flag))
        record.call(f"t.requires_grad_({label})", lambda flag=flag: fresh().requires_grad_(flag))
    record.call(
        "t.requires_grad_(requires_grad=1)", lambda: fresh().requires_grad_(requires_grad=1)
    )
    record.call("t.requires_grad_()", lambda: fresh().requires_grad_())
    record.call("tensor(values, requires_grad=1)", lambda: T.tensor(values, requires_grad=1))
    record.call("zeros(2, 3, requires_grad=1)", lambda: T.zeros(2, 3, requires_grad=1))
    record.call(
        "full((2,), v, requires_grad=0)", lambda: T.full((2,), values[0][0], requires_grad=0)
    )
    record.call(
        "ones_like(t, requires_grad=None)", lambda: T.ones_like(fresh(), requires_grad=None)
    )
    nonleaf = T.tensor(values, requires_grad=True, device=dev) * scalar(rng)
    record.call("nonleaf.requires_grad = 1", lambda: setattr(nonleaf, "requires_grad", 1))

    def set_data(value):
        t = T.tensor(values, requires_grad=True, device=dev)
        t.data = value
        return t

    new = floats(rng, (2, 3))
    record.call(".data = list", lambda: set_data(new))
    record.call(".data = ndarray", lambda: set_data(np.array(new)))
    record.call(".data = float", lambda: set_data(scalar(rng)))
    record.call(".data = tensor", lambda: set_data(T.tensor(new, device=dev)))

    def set_grad(value):
        t = T.tensor(values, requires_grad=True, device=dev)
        t.grad = value
        return t.grad

    record.call(".grad = ndarray", lambda: set_grad(np.array(new, dtype=np.float32)))
    record.call(".grad = list", lambda: set_grad(new))


# -- N1: random fills refuse integer tensors and reversed bounds ---------------------------------


@scenario(
    id="values.random_fills_check_dtype_and_bounds",
    rules=["N1"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#creating-tensors",
)
def random_fills_check_dtype_and_bounds(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    lo = round(scalar(rng, -2, 0), 2)
    hi = round(scalar(rng, 0.5, 3), 2)
    for name in ("int64", "int32", "bool"):
        dtype = getattr(T, name)
        record.call(
            f"zeros({name}).uniform_()", lambda d=dtype: T.zeros(n, dtype=d, device=dev).uniform_()
        )
        record.call(f"rand(dtype={name})", lambda d=dtype: T.rand(n, dtype=d, device=dev))
        if dev == "cpu":  # the text names the CPU kernel
            record.call(f"zeros({name}).normal_()", lambda d=dtype: T.zeros(n, dtype=d).normal_())
            record.call(f"randn(dtype={name})", lambda d=dtype: T.randn(n, dtype=d))
    t = T.zeros(n, device=dev)
    record.call(f"uniform_({hi}, {lo})", lambda: t.uniform_(hi, lo))
    record.call(f"normal_(0, {lo})", lambda: t.normal_(0.0, lo))
    record.call("normal_(0, nan)", lambda: t.normal_(0.0, float("nan")))
    record.value("t._version after refused fills", t._version)
    with T.no_grad():
        w = T.zeros(n, requires_grad=True, device=dev)
        record.call(
            f"uniform_({lo}, {hi}) inside no_grad: shape", lambda: tuple(w.uniform_(lo, hi).shape)
        )
    w = T.zeros(n, requires_grad=True, device=dev)
    record.call(f"leaf.uniform_({hi}, {lo}): the leaf check first", lambda: w.uniform_(hi, lo))

    # clamp_ keeps an integer tensor's dtype, and names it as C++ does
    i = T.tensor([int(v) for v in rng.integers(-5, 6, size=n)], device=dev)
    record.call("int64.clamp_(float bounds)", lambda: i.clamp_(lo, hi))
    record.call(
        "int32.clamp_(min=float)", lambda: T.zeros(n, dtype=T.int32, device=dev).clamp_(min=lo)
    )
    record.call("int64.clamp_(int bounds)", lambda: i.clamp_(int(lo), int(hi) + 1))


# -- N1: modules that forgot super().__init__(), Sequential indexing, manual_seed ------------------


@scenario(
    id="values.module_mistakes_and_seed",
    rules=["N1"],
    topic="values",
    lecture=f"{CAPSTONE}#training-loop",
)
def module_mistakes_and_seed(T, record, rng):
    dev = record.device
    n_in, n_out = (int(v) for v in rng.integers(2, 5, size=2))
    nn = T.nn

    class ForgotInitLayer(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(n_in, n_out)

    class ForgotInitParameter(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(T.ones(n_in, device=dev))

    class ForgotInitPlain(nn.Module):
        def __init__(self):
            self.scale = n_in  # plain attributes are fine

        def forward(self, x):
            return x * self.scale

    record.call("Net() assigning a Linear", lambda: ForgotInitLayer())
    record.call("Net() assigning a Parameter", lambda: ForgotInitParameter())
    plain = ForgotInitPlain()
    record.value("plain attribute kept", plain.scale)
    x = T.tensor(floats(rng, n_in), device=dev)
    record.call("calling it", lambda: plain(x))
    record.call("its parameters()", lambda: list(plain.parameters()))

    model = nn.Sequential(nn.Linear(n_in, n_out), nn.ReLU())
    if dev != "cpu":
        model.to(dev)
    size = len(model)
    record.call("model[-1]", lambda: type(model[-1]).__name__)
    record.call(f"model[{size + n_in}]", lambda: model[size + n_in])
    record.call(f"model[{-size - n_out}]", lambda: model[-size - n_out])
    record.call("model['0']", lambda: model["0"])

    # the indexed layer is the model's own: two backward passes accumulate into its .grad
    with T.no_grad():
        model[0].weight.copy_(T.tensor(floats(rng, (n_out, n_in), -1, 1), device=dev))
        model[0].bias.copy_(T.tensor(floats(rng, n_out, -1, 1), device=dev))
    batch = T.tensor(floats(rng, (3, n_in), -2, 2), device=dev)
    record.call("model(batch).sum().backward()", lambda: model(batch).sum().backward())
    record.call(
        "(model(batch) * n_in).sum().backward()", lambda: (model(batch) * n_in).sum().backward()
    )
    record.grad("model[0].weight.grad", model[0].weight)
    record.grad("model[0].bias.grad", model[0].bias)

    seed = int(rng.integers(0, 1000))
    generator = T.manual_seed(seed)
    record.value("repr(manual_seed(seed))", re.sub(r" at 0x[0-9a-fA-F]+", "", repr(generator)))
    record.value("manual_seed(seed).initial_seed()", generator.initial_seed())


# -- N1: factories read their sizes as PyTorch's argument parser does ----------------------------


@scenario(
    id="values.factory_sizes_are_ints",
    rules=["N1"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#creating-tensors",
)
def factory_sizes_are_ints(T, record, rng):
    dev = record.device
    rows, cols = (int(v) for v in rng.integers(1, 4, size=2))
    width = float(cols) + 0.5
    # PyTorch's argument parser words its refusals after the arguments given: the refused
    # calls pass no device= (they fail before any tensor exists, on every device).
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        make = getattr(T, name)
        record.call(
            f"{name}({rows}, {cols}).shape",
            lambda m=make: tuple(m(rows, cols, device=dev).shape),
        )
        record.call(f"{name}({rows}, {width})", lambda m=make: m(rows, width))
        record.call(f"{name}(({rows}, {width}))", lambda m=make: m((rows, width)))
        record.call(f"{name}([{width}, {rows}])", lambda m=make: m([width, rows]))
        record.call(f"{name}({width})", lambda m=make: m(width))
        record.call(f"{name}()", lambda m=make: m())
        record.call(f"{name}({rows}, {-cols})", lambda m=make: m(rows, -cols))
        record.call(
            f"{name}(np.int64({rows})).shape",
            lambda m=make: tuple(m(np.int64(rows), device=dev).shape),
        )
    record.call(
        f"zeros({rows}, {cols}, dtype=int64)",
        lambda: T.zeros(rows, cols, dtype=T.int64, device=dev),
    )
    record.call(
        f"ones(({rows},), dtype=float64, requires_grad=True)",
        lambda: T.ones((rows,), dtype=T.float64, requires_grad=True, device=dev),
    )
    fill = scalar(rng)
    record.call(f"full({rows}, {fill})", lambda: T.full(rows, fill))
    record.call(f"full(({rows}, {width}), {fill})", lambda: T.full((rows, width), fill))
    record.call(f"full(({-rows},), {fill})", lambda: T.full((-rows,), fill))
    record.call(f"full(({rows},), {fill})", lambda: T.full((rows,), fill, device=dev))
    record.call(f"eye({-rows})", lambda: T.eye(-rows))
    record.call(f"eye({rows}, {-cols})", lambda: T.eye(rows, -cols))
    record.call(f"eye({width})", lambda: T.eye(width))
    record.call(f"eye({rows}, {cols})", lambda: T.eye(rows, cols, device=dev))
    record.call(f"linspace(0, {fill}, {width})", lambda: T.linspace(0, fill, width))
    record.call(f"linspace(0, {fill})", lambda: T.linspace(0, fill))
    record.call(f"linspace(0, {fill}, {-rows})", lambda: T.linspace(0, fill, -rows))
    record.call(
        f"linspace(0, {fill}, {rows + 1})", lambda: T.linspace(0, fill, rows + 1, device=dev)
    )


# -- N1: integer softplus, reshaping an empty tensor, comparing a device with a string ------------


@scenario(
    id="values.softplus_empty_reshape_and_device_strings",
    rules=["N1"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#clone-and-reshape",
)
def softplus_empty_reshape_and_device_strings(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    i = T.tensor([int(v) for v in rng.integers(-5, 6, size=n)], device=dev)
    f = T.tensor(floats(rng, n, -3, 3), requires_grad=True, device=dev)
    if dev == "cpu":  # the text names the CPU kernel
        record.call("F.softplus(int64)", lambda: T.nn.functional.softplus(i))
        record.call("F.softplus(bool)", lambda: T.nn.functional.softplus(i > 0))
    record.call("F.softplus(float)", lambda: T.nn.functional.softplus(f))
    record.call("F.softplus(int64.float())", lambda: T.nn.functional.softplus(i.float()))

    empty = T.zeros(n, 0, device=dev)
    record.call(f"zeros({n}, 0).view(-1, 0)", lambda: empty.view(-1, 0))
    record.call(f"zeros({n}, 0).reshape(0, -1)", lambda: empty.reshape(0, -1))
    record.call(f"zeros({n}, 0).view(-1, {n})", lambda: empty.view(-1, n))
    record.call(f"zeros({n}, 0).view(-1)", lambda: empty.view(-1))

    x = T.tensor(floats(rng, n), device=dev)
    where = str(x.device)
    record.value("x.device == str(x.device)", x.device == where)
    record.value("x.device != str(x.device)", x.device != where)
    record.value("str(x.device) == x.device", where == x.device)
    record.value("x.device == T.device(str(x.device))", x.device == T.device(where))
    record.value("x.device in [str(x.device)]", x.device in [where])
    record.value("x.device.type", x.device.type)


# -- N1: clamp with tensor bounds ------------------------------------------------------------------


@scenario(
    id="values.clamp_with_tensor_bounds",
    rules=["N1"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#broadcasting",
)
def clamp_with_tensor_bounds(T, record, rng):
    dev = record.device
    rows, cols = (int(v) for v in rng.integers(2, 4, size=2))
    x = T.tensor(floats(rng, (rows, cols), -3, 3), requires_grad=True, device=dev)
    lo = T.tensor(floats(rng, cols, -2, 0), requires_grad=True, device=dev)
    hi = T.tensor(floats(rng, (rows, 1), -1, 2), requires_grad=True, device=dev)
    y = record.call("x.clamp(lo, hi) (broadcast)", lambda: x.clamp(lo, hi))
    weights = T.tensor(floats(rng, (rows, cols)), device=dev)
    record.call("backward", lambda: y.backward(weights))
    record.grad("x.grad", x)
    record.grad("lo.grad (where x < lo < hi)", lo)
    record.grad("hi.grad (where x > hi or hi < lo)", hi)

    limit = T.tensor(scalar(rng), device=dev)
    record.call("x.clamp(min=0-d tensor)", lambda: x.clamp(min=limit))
    record.call("T.clamp(x, max=0-d float64)", lambda: T.clamp(x, max=limit.double()))
    record.call("x.clamp(min=0-d tensor, max=number)", lambda: x.clamp(min=-limit, max=3.0))
    record.call("x.clamp(min=lo, max=number)", lambda: x.clamp(min=lo, max=3.0))
    i = T.tensor([int(v) for v in rng.integers(-5, 6, size=cols)], device=dev)
    record.call("int.clamp(float tensor)", lambda: i.clamp(lo.detach()))
    record.call("int.clamp(int tensor)", lambda: i.clamp(-i))
    record.call("x.clamp(wrong width)", lambda: x.clamp(T.zeros(cols + 1, device=dev)))

    z = x.detach().clone()
    record.call("z.clamp_(lo.detach())", lambda: z.clamp_(lo.detach()))
    record.call(
        "z.clamp_(a bound that widens z)", lambda: z.clamp_(T.zeros(2, rows, cols, device=dev))
    )
    record.call("int.clamp_(float tensor)", lambda: i.clamp_(lo.detach()))
    h = x * 1
    record.call("h.clamp_(max=hi) (non-leaf)", lambda: h.clamp_(max=hi))
    record.call("h.sum().backward()", lambda: h.sum().backward())
    record.grad("hi.grad after in-place clamp", hi)


# -- N1: typed constructors, *_like of a non-tensor, overflowing ints, read-only attributes ------


@scenario(
    id="values.constructors_and_read_only_attributes",
    rules=["N1"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#creating-tensors",
)
def constructors_and_read_only_attributes(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    ints = [int(v) for v in rng.integers(-5, 6, size=n)]
    values = floats(rng, n)
    i = T.tensor(ints)
    f = T.tensor(values, requires_grad=True)
    record.call("FloatTensor(int64 tensor)", lambda: T.FloatTensor(i))
    record.call("LongTensor(float tensor)", lambda: T.LongTensor(f.detach()))
    record.call("DoubleTensor(float tensor)", lambda: T.DoubleTensor(f.detach()))
    record.call("FloatTensor(float tensor that requires grad)", lambda: T.FloatTensor(f))
    record.call("Tensor(int64 tensor)", lambda: T.Tensor(i))
    record.call(f"Tensor({values[0]})", lambda: T.Tensor(values[0]))
    record.call("FloatTensor(True)", lambda: T.FloatTensor(True))
    record.call("zeros_like(list)", lambda: T.zeros_like(values))
    record.call("ones_like(ndarray)", lambda: T.ones_like(np.array(values)))

    record.call("full((n,), 0-d tensor)", lambda: T.full((n,), T.tensor(values[1]), device=dev))
    record.call("full((n,), 0-d int tensor)", lambda: T.full((n,), T.tensor(ints[1]), device=dev))
    record.call("full((n,), f[0]) (requires grad)", lambda: T.full((n,), f[0]))
    record.call("full((n,), 1-D tensor)", lambda: T.full((n,), f.detach()[:1]))
    record.call("full((n,), ndarray)", lambda: T.full((n,), np.array(values[0])))
    record.call("full((n,), None)", lambda: T.full((n,), None))
    handle = f.register_hook(lambda g: g * ints[0])
    record.value("repr(register_hook(...))", re.sub(r" at 0x[0-9a-fA-F]+", "", repr(handle)))
    handle.remove()

    big = 2**63 + int(rng.integers(0, 100))
    record.call("tensor([2**63 + k])", lambda: T.tensor([ints[0], big]))
    record.call("tensor(-(2**63) - k)", lambda: T.tensor(-big))
    record.call(
        "tensor([2**40 + k], dtype=int32)", lambda: T.tensor([2**40 + ints[0]], dtype=T.int32)
    )
    record.call("tensor([2**63 + k, 1.5]) (float)", lambda: T.tensor([big, values[0]], device=dev))

    t = T.tensor(values, device=dev)
    for name in ("is_leaf", "grad_fn", "_version", "shape", "dtype", "device", "ndim", "T"):
        record.call(f"t.{name} = ...", lambda name=name: setattr(t, name, ints[0]))
    record.call("t.retains_grad = True", lambda: setattr(t, "retains_grad", True))
    record.tensor("t after the refused assignments", t)

    model = T.nn.Sequential(T.nn.Linear(n, 2), T.nn.ReLU(), T.nn.Linear(2, 1))
    record.call("model[1:] (a Sequential)", lambda: repr(model[1:]))
    record.call("model[::-1]", lambda: repr(model[::-1]))
    record.call("names in model[1:]", lambda: [k for k, _ in model[1:].named_parameters()])
    record.call(f"len(model[{n}:])", lambda: len(model[n:]))
