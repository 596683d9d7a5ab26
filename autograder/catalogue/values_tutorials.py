"""Scenarios: what PyTorch's beginner tutorials use (issue #16; rules N1, N2).

The "Learn the Basics" and polynomial-fitting tutorials build models of nn.Flatten, Linear,
ReLU, Tanh and Sigmoid, train them with MSELoss or CrossEntropyLoss and SGD (with momentum),
Adam or RMSprop, and on the way use softmax, norm, torch.add(..., alpha=, out=), new_ones,
rand_like, repeat, NumPy-style axis=/keepdims=, torch.max(a, b), narrow, chunk and argsort.
Random values are never observed (only shapes, dtypes and flags): engines differ there by
design.
"""

import numpy as np

from autograder.catalogue._data import floats
from autograder.scenarios import scenario

LECTURE = "course/07_capstone.ipynb"
CPU = ("cpu",)


def _distinct(rng, shape, low=-2.0, high=2.0):
    """Floats with no ties (sorting and max/min picks are then unambiguous)."""
    n = int(np.prod(shape))
    values = rng.permutation(np.linspace(low, high, n)) + rng.uniform(-0.01, 0.01, n)
    return values.reshape(shape).round(4).tolist()


@scenario(
    id="values.tutorial_layers_and_losses",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
    devices=CPU,
)
def tutorial_layers_and_losses(T, record, rng):
    nn = T.nn
    batch, n_in, n_out = 3, 4, 3
    x = T.tensor(floats(rng, (batch, 2, 2), -2, 2))
    lin = nn.Linear(n_in, n_out)
    with T.no_grad():
        lin.weight.copy_(T.tensor(floats(rng, (n_out, n_in), -1, 1)))
        lin.bias.copy_(T.tensor(floats(rng, n_out, -1, 1)))
    model = nn.Sequential(nn.Flatten(), lin, nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    record.value("repr(model)", repr(model))
    record.value("repr(Flatten(0, 1))", repr(nn.Flatten(0, 1)))
    logits = record.call("model(x)", lambda: model(x))
    record.call("Flatten()(x) of a leaf", lambda: nn.Flatten()(x))
    y = T.tensor(floats(rng, (2, 3, 2), -2, 2), requires_grad=True)
    record.call("Flatten(0, 1)(y)", lambda: nn.Flatten(0, 1)(y))
    record.call("Flatten()(y.transpose(1, 2))", lambda: nn.Flatten()(y.transpose(1, 2)))
    record.call("Flatten(1)(2-D)", lambda: nn.Flatten()(y[0]))
    record.call("Tanh()(y)", lambda: nn.Tanh()(y))
    record.call("Sigmoid()(y)", lambda: nn.Sigmoid()(y))
    target = T.tensor(floats(rng, (batch, n_out), 0, 1))
    for reduction in ["mean", "sum", "none"]:
        loss_fn = nn.MSELoss(reduction=reduction)
        record.value(f"MSELoss({reduction}).reduction", loss_fn.reduction)
        out = record.call(f"MSELoss({reduction})", lambda f=loss_fn: f(logits, target))
    record.value("repr(MSELoss())", repr(nn.MSELoss()))
    bad = nn.MSELoss(reduction="avg")
    record.call("MSELoss(reduction='avg')(...)", lambda: bad(logits, target))
    labels = T.tensor([int(i) for i in rng.integers(0, n_out, size=batch)])
    ce = nn.CrossEntropyLoss()
    record.value("repr(CrossEntropyLoss())", repr(ce))
    loss = record.call("CrossEntropyLoss()(logits, labels)", lambda: ce(model(x), labels))
    record.call("backward", lambda: loss.backward())
    record.grad("lin.weight.grad", lin.weight)
    record.grad("lin.bias.grad", lin.bias)
    for reduction in ["sum", "none"]:
        f = nn.CrossEntropyLoss(reduction=reduction)
        out = record.call(f"CrossEntropyLoss({reduction})", lambda f=f: f(y[0].t(), labels[:2]))
    z = T.tensor(floats(rng, (batch, n_out), -2, 2), requires_grad=True)
    out = nn.MSELoss(reduction="sum")(z, target)
    out.backward()
    record.grad("z.grad after MSELoss(sum)", z)
    w = T.tensor(floats(rng, (batch, n_out), -2, 2), requires_grad=True)
    nn.MSELoss(reduction="none")(w, target).sum().backward()
    record.grad("w.grad after MSELoss(none).sum()", w)
    record.call("Sequential([lin])", lambda: nn.Sequential([lin]))
    record.call("Sequential(lin, 3)", lambda: nn.Sequential(lin, 3))
    arr = np.ones((2, n_in), dtype=np.float32)
    record.call("lin(ndarray)", lambda: lin(arr))
    record.call("lin(list)", lambda: lin([1.0] * n_in))


@scenario(
    id="values.softmax_and_norm",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
    devices=CPU,
)
def softmax_and_norm(T, record, rng):
    F = T.nn.functional
    x = T.tensor(floats(rng, (2, 3), -3, 3), requires_grad=True)
    p = record.call("F.softmax(x, dim=1)", lambda: F.softmax(x, dim=1))
    record.call("T.softmax(x, 0)", lambda: T.softmax(x, 0))
    record.call("x.softmax(-1)", lambda: x.softmax(-1))
    record.call("F.softmax(x) (no dim)", lambda: F.softmax(x))
    record.call("F.softmax(1-D, 0)", lambda: F.softmax(x[0], 0))
    record.call("softmax of float64", lambda: T.softmax(x, 1, dtype=T.float64))
    record.call("softmax of int", lambda: T.softmax(T.tensor([1, 2]), 0))
    wts = T.tensor(floats(rng, (2, 3), -1, 1))
    (p * wts).sum().backward()
    record.grad("x.grad through softmax", x)
    v = T.tensor(floats(rng, (2, 3), -3, 3), requires_grad=True)
    record.call("v.norm()", lambda: v.norm())
    record.call("T.norm(v)", lambda: T.norm(v))
    record.call("v.norm(p=1)", lambda: v.norm(p=1))
    record.call("v.norm(2, 1)", lambda: v.norm(2, 1))
    record.call("v.norm(dim=0, keepdim=True)", lambda: v.norm(dim=0, keepdim=True))
    record.call("v.norm(p=inf)", lambda: v.norm(p=float("inf")))
    record.call("norm of int", lambda: T.tensor([3, 4]).norm())
    for label, make in [
        ("norm()", lambda: v.norm()),
        ("norm(p=1)", lambda: v.norm(p=1)),
        ("norm(dim=1)", lambda: v.norm(dim=1).sum()),
        ("norm(p=inf)", lambda: v.norm(p=float("inf"))),
    ]:
        v.grad = None
        make().backward()
        record.grad(f"v.grad through {label}", v)
    zero = T.zeros(3, requires_grad=True)
    zero.norm().backward()
    record.grad("grad of the norm at 0", zero)


def _fit(T, record, rng, make_opt, label, steps=4):
    # Inputs all positive and targets well above what the line can reach in four steps: every
    # gradient stays far from zero. Adam and RMSprop divide a gradient by its own size, so a
    # near-zero one (terms that cancel) would turn summation-order rounding into visible steps.
    xs = T.tensor(floats(rng, (5, 2), 0.5, 1.5))
    ys = T.tensor(floats(rng, (5, 1), 7, 9))
    lin = T.nn.Linear(2, 1)
    with T.no_grad():
        lin.weight.copy_(T.tensor(floats(rng, (1, 2), -1, 1)))
        lin.bias.copy_(T.tensor(floats(rng, 1, -1, 1)))
    opt = make_opt(lin.parameters())
    for key, value in sorted(opt.param_groups[0].items()):
        if key != "params":
            record.value(f"{label}: param_groups[0][{key!r}]", value)
    for step in range(steps):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(lin(xs), ys)
        loss.backward()
        opt.step()
        record.tensor(f"{label}: weight after step {step}", lin.weight)
        record.tensor(f"{label}: bias after step {step}", lin.bias)
    record.value(f"{label}: state keys", sorted(opt.state[lin.weight]))


@scenario(
    id="values.optimizers_sgd_adam_rmsprop",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
    devices=CPU,
)
def optimizers_sgd_adam_rmsprop(T, record, rng):
    optim = T.optim
    _fit(T, record, rng, lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), "SGD(momentum=0.9)")
    _fit(T, record, rng, lambda ps: optim.Adam(ps), "Adam()")
    _fit(T, record, rng, lambda ps: optim.Adam(ps, lr=0.05, weight_decay=0.1), "Adam(wd)")
    _fit(T, record, rng, lambda ps: optim.Adam(ps, lr=0.05, amsgrad=True), "Adam(amsgrad)")
    _fit(T, record, rng, lambda ps: optim.RMSprop(ps), "RMSprop()")
    _fit(
        T,
        record,
        rng,
        lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
        "RMSprop(momentum, centered)",
    )
    p = T.nn.Parameter(T.ones(2))
    record.call("Adam(lr=-1)", lambda: optim.Adam([p], lr=-1.0))
    record.call("Adam(betas=(1.0, 0.9))", lambda: optim.Adam([p], betas=(1.0, 0.9)))
    record.call("RMSprop(alpha=-0.1)", lambda: optim.RMSprop([p], alpha=-0.1))


@scenario(
    id="values.add_mul_matmul_out",
    rules=["N1", "N2"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
    devices=CPU,
)
def add_mul_matmul_out(T, record, rng):
    a = T.tensor(floats(rng, (2, 3), -2, 2))
    b = T.tensor(floats(rng, (2, 3), -2, 2))
    record.call("T.add(a, b, alpha=2)", lambda: T.add(a, b, alpha=2))
    record.call("T.add(a, 1.5)", lambda: T.add(a, 1.5))
    record.call("T.add(2, a)", lambda: T.add(2, a))
    record.call("T.mul(a, b)", lambda: T.mul(a, b))
    record.call("T.mul(3, a)", lambda: T.mul(3, a))
    out = T.zeros(2, 3)
    r = record.call("T.add(a, b, out=out)", lambda: T.add(a, b, out=out))
    record.same("add's result is out", r, out)
    record.value("out._version", out._version)
    r = record.call("T.mul(a, b, out=out)", lambda: T.mul(a, b, out=out))
    record.value("out._version after mul", out._version)
    big = T.zeros(7)
    record.call("T.mul(a, b, out=<wrong shape>)", lambda: T.mul(a, b, out=big))
    record.tensor("the resized out", big)
    empty = T.zeros(0)
    record.call("T.add(a, b, out=<empty>)", lambda: T.add(a, b, out=empty))
    ints = T.zeros(2, 3, dtype=T.long)
    record.call("T.add(float, float, out=long)", lambda: T.add(a, b, out=ints))
    f64 = T.zeros(2, 3, dtype=T.float64)
    record.call("T.add(a, b, out=float64)", lambda: T.add(a, b, out=f64))
    g = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True)
    record.call("T.add(g, b, out=out) with grad", lambda: T.add(g, b, out=out))
    record.call("T.mul(a, b, out=<requires grad>)", lambda: T.mul(a, b, out=g))
    with T.no_grad():
        record.call("T.add(g, b, out=out) under no_grad", lambda: T.add(g, b, out=out))
    m = T.zeros(2, 2)
    c = T.tensor(floats(rng, (3, 2), -2, 2))
    r = record.call("T.matmul(a, c, out=m)", lambda: T.matmul(a, c, out=m))
    record.same("matmul's result is m", r, m)
    record.value("m._version", m._version)
    record.call("T.matmul(a, list)", lambda: T.matmul(a, [[1.0, 2.0]]))
    record.call("T.add(a, b, alpha=0.5)", lambda: T.add(a, b, alpha=0.5))


@scenario(
    id="values.new_like_and_factory_keywords",
    rules=["N2"],
    topic="values",
    lecture=f"{LECTURE}#data-and-weights",
    devices=CPU,
)
def new_like_and_factory_keywords(T, record, rng):
    x = T.tensor(floats(rng, (2, 3), -2, 2), dtype=T.float64, requires_grad=True)
    n = T.tensor([1, 2])

    def shape_and_dtype(t):
        return (tuple(t.shape), str(t.dtype).split(".")[-1], t.requires_grad, t.is_leaf)

    record.call("x.new_ones(2, 3)", lambda: x.new_ones(2, 3))
    record.call("x.new_ones((2,))", lambda: x.new_ones((2,)))
    record.call("x.new_zeros(2, dtype=long)", lambda: x.new_zeros(2, dtype=T.long))
    record.call("n.new_ones(3)", lambda: n.new_ones(3))
    record.call("x.new_tensor([1, 2])", lambda: x.new_tensor([1, 2]))
    record.call("n.new_tensor([1.5])", lambda: n.new_tensor([1.5]))
    record.call("x.new_tensor(x)", lambda: x.new_tensor(x))
    record.call(
        "x.new_tensor([1.], requires_grad=True)", lambda: x.new_tensor([1.0], requires_grad=True)
    )
    record.call("x.new_zeros(size=(1, 2))", lambda: x.new_zeros(size=(1, 2)))
    for name in ["rand_like", "randn_like"]:
        fn = getattr(T, name)
        record.value(f"{name}(x)", shape_and_dtype(fn(x)))
        record.value(f"{name}(x, dtype=float32)", shape_and_dtype(fn(x, dtype=T.float32)))
        record.value(f"{name}(x, requires_grad=True)", shape_and_dtype(fn(x, requires_grad=True)))
        record.call(f"{name}(int tensor)", lambda fn=fn: fn(n))
    for name in ["zeros", "ones"]:
        fn = getattr(T, name)
        record.call(f"{name}(size=(2, 1))", lambda fn=fn: fn(size=(2, 1)))
        record.call(f"{name}(size=[3], dtype=long)", lambda fn=fn: fn(size=[3], dtype=T.long))
    record.value("empty(size=(2,))", shape_and_dtype(T.empty(size=(2,))))
    record.value("rand(size=(2, 2))", shape_and_dtype(T.rand(size=(2, 2))))
    record.value("randn(size=(3,))", shape_and_dtype(T.randn(size=(3,))))
    record.value("randint(0, 10, (3,))", shape_and_dtype(T.randint(0, 10, (3,))))
    record.value("randint(5, (2, 2))", shape_and_dtype(T.randint(5, (2, 2))))
    record.value("randint(5, size=(4,))", shape_and_dtype(T.randint(5, size=(4,))))
    record.value(
        "randint(3, (2,), dtype=float32)", shape_and_dtype(T.randint(3, (2,), dtype=T.float32))
    )
    r = T.randint(2, 6, (50,))
    record.value("randint's values in [low, high)", 2 <= r.min().item() and r.max().item() < 6)
    record.call("randint(5, 5, (3,))", lambda: T.randint(5, 5, (3,)))
    record.value("accelerator.is_available()", T.accelerator.is_available())
    record.value("accelerator.current_accelerator()", T.accelerator.current_accelerator())
    record.call("set_default_device('cpu')", lambda: T.set_default_device("cpu"))
    record.call("zeros after set_default_device", lambda: T.zeros(2))
    record.call("set_default_device(None)", lambda: T.set_default_device(None))


@scenario(
    id="values.repeat_axis_and_elementwise_max",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
    devices=CPU,
)
def repeat_axis_and_elementwise_max(T, record, rng):
    x = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True)
    r = record.call("x.repeat(2, 1)", lambda: x.repeat(2, 1))
    record.call("x.repeat(2, 1, 2)", lambda: x.repeat(2, 1, 2))
    record.call("x[0].repeat((3,))", lambda: x[0].repeat((3,)))
    record.call("x.repeat(2)", lambda: x.repeat(2))
    record.call("int repeat", lambda: T.tensor([1, 2]).repeat(2, 2))
    w = T.tensor(floats(rng, (2, 4, 6), -1, 1))
    (x.repeat(2, 2, 2) * w).sum().backward()
    record.grad("x.grad through repeat", x)
    del r
    y = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True)
    record.call("y.sum(axis=1)", lambda: y.sum(axis=1))
    record.call("y.sum(axis=0, keepdims=True)", lambda: y.sum(axis=0, keepdims=True))
    record.call("T.mean(y, axis=1, keepdims=True)", lambda: T.mean(y, axis=1, keepdims=True))
    record.call("y.max(axis=1)", lambda: y.max(axis=1))
    record.call("y.min(axis=0, keepdims=True)", lambda: y.min(axis=0, keepdims=True))
    record.call("y.argmax(axis=1)", lambda: y.argmax(axis=1))
    record.call("y.argmin(axis=0, keepdims=True)", lambda: y.argmin(axis=0, keepdims=True))
    a = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True)
    b = T.tensor(floats(rng, (3,), -2, 2), requires_grad=True)
    with T.no_grad():
        b[1] = a[0, 1]  # a tie: PyTorch splits the gradient between the two
    record.call("T.max(a, b)", lambda: T.max(a, b))
    record.call("T.min(a, b)", lambda: T.min(a, b))
    record.call("T.maximum(a, 0.5) refused", lambda: T.maximum(a, 0.5))
    record.call("T.max(int, float)", lambda: T.max(T.tensor([1, 5]), T.tensor([2.0, 3.0])))
    record.call("T.max of unbroadcastable", lambda: T.max(a, T.ones(4)))
    for name in ["max", "min"]:
        a.grad = b.grad = None
        getattr(T, name)(a, b).sum().backward()
        record.grad(f"a.grad through T.{name}(a, b)", a)
        record.grad(f"b.grad through T.{name}(a, b)", b)


@scenario(
    id="values.narrow_chunk_argsort_del",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#data-and-weights",
    devices=CPU,
)
def narrow_chunk_argsort_del(T, record, rng):
    x = T.tensor(floats(rng, (4, 5), -2, 2), requires_grad=True)
    n = record.call("x.narrow(1, 1, 3)", lambda: x.narrow(1, 1, 3))
    record.call("T.narrow(x, 0, -2, 2)", lambda: T.narrow(x, 0, -2, 2))
    record.call("x.narrow(1, 3, 3)", lambda: x.narrow(1, 3, 3))
    record.call("x.narrow(2, 0, 1)", lambda: x.narrow(2, 0, 1))
    w = T.tensor(floats(rng, (4, 3), -1, 1))
    (n * w).sum().backward()
    record.grad("x.grad through narrow", x)
    for chunks, dim in [(2, 0), (3, 1), (2, 1), (1, 0)]:
        parts = record.call(f"x.chunk({chunks}, {dim})", lambda c=chunks, d=dim: x.chunk(c, d))
    record.call("T.chunk(x, 0)", lambda: T.chunk(x, 0))
    x.grad = None
    parts = x.chunk(3, 1)
    (parts[0] * 2).sum().backward()
    record.grad("x.grad through one chunk", x)
    v = T.tensor(_distinct(rng, (3, 4)))
    record.call("T.argsort(v)", lambda: T.argsort(v))
    record.call("v.argsort(dim=0)", lambda: v.argsort(dim=0))
    record.call("v.argsort(descending=True)", lambda: v.argsort(descending=True))
    record.call("argsort of ints", lambda: T.tensor([3, 1, 2]).argsort())
    t = T.tensor(floats(rng, 3, -2, 2), requires_grad=True)
    (t * 2).sum().backward()
    del t.grad
    record.grad("t.grad after del t.grad", t)

    def delete_data():
        del t.data

    record.call("del t.data", delete_data)


@scenario(
    id="values.shape_and_argument_errors",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#data-and-weights",
    devices=CPU,
)
def shape_and_argument_errors(T, record, rng):
    x = T.tensor(floats(rng, (2, 3), -2, 2))
    record.tensor("x", x)  # the values follow the seed; the errors below do not
    record.call("x.to(0)", lambda: x.to(0))
    record.call("x.view(4)", lambda: x.view(4))
    record.call("x.view(-1, 4)", lambda: x.view(-1, 4))
    record.call("x + ones(2)", lambda: x + T.ones(2))
    record.call("x @ x", lambda: x @ x)
    record.call("ones(3) @ ones(2)", lambda: T.ones(3) @ T.ones(2))
    record.call("ones(2, 2, 3) @ ones(2, 3)", lambda: T.ones(2, 2, 3) @ T.ones(2, 3))
    record.call("ones(2, 2, 3) @ ones(2, 2, 3)", lambda: T.ones(2, 2, 3) @ T.ones(2, 2, 3))
    record.call("ones(2, 3, 2) @ ones(2, 4, 3)", lambda: T.ones(2, 3, 2) @ T.ones(2, 4, 3))
    record.call("ones(2, 2, 3) @ ones(3, 3, 4)", lambda: T.ones(2, 2, 3) @ T.ones(3, 3, 4))
    record.call("ones(3) @ ones(2, 2, 4)", lambda: T.ones(3) @ T.ones(2, 2, 4))
    record.call("ones(2, 2, 3) @ ones(2, 3, 4)", lambda: T.ones(2, 2, 3) @ T.ones(2, 3, 4))
    record.call("T.stack([ndarray])", lambda: T.stack([np.ones(2)]))
    record.call("T.stack([x, list])", lambda: T.stack([x, [1.0, 2.0, 3.0]]))
    record.call("T.cat([ndarray])", lambda: T.cat([np.ones(2)]))
