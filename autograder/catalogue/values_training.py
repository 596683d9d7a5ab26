"""Scenarios: the pieces of a training loop (rule N1): nn.Linear, the losses and SGD.

Values, gradients and grad_fn names, and the errors and warnings PyTorch gives for the
mistakes students make there (a layer of the wrong width, a float64 batch, a class index out
of range, a target of the wrong shape, a negative learning rate).

Some texts are those of PyTorch's CPU kernels (its CUDA kernels word them differently, or
stop the process on a device-side assert for a class index out of range): those cases are
observed on the CPU only.
"""

import numpy as np

from autograder.catalogue._data import floats, scalar
from autograder.scenarios import scenario

LECTURE = "course/07_capstone.ipynb"


def _layer(T, rng, dev, n_in, n_out, bias=True):
    layer = T.nn.Linear(n_in, n_out, bias=bias)
    if dev != "cpu":
        layer.to(dev)
    with T.no_grad():  # engines initialise differently by design: set the values from rng
        layer.weight.copy_(T.tensor(floats(rng, (n_out, n_in), -1, 1), device=dev))
        if bias:
            layer.bias.copy_(T.tensor(floats(rng, n_out, -1, 1), device=dev))
    return layer


# -- nn.Linear ----------------------------------------------------------------------------------


@scenario(
    id="values.linear_refuses_wrong_width_and_dtype",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#data-and-weights",
)
def linear_refuses_wrong_width_and_dtype(T, record, rng):
    dev = record.device
    n_in, n_out = (int(n) for n in rng.integers(2, 5, size=2))
    wrong = n_in + int(rng.integers(1, 3))
    batch = int(rng.integers(2, 4))
    layer = _layer(T, rng, dev, n_in, n_out)
    plain = _layer(T, rng, dev, n_in, n_out, bias=False)
    x = T.tensor(floats(rng, (batch, n_in), -2, 2), requires_grad=True, device=dev)
    record.call("layer(x)", lambda: layer(x))
    # a non-contiguous batch: PyTorch takes matmul and an in-place add_ instead of addmm
    x3 = T.tensor(floats(rng, (batch, 2, n_in), -2, 2), requires_grad=True, device=dev)
    y = record.call("layer(x3.transpose(0, 1))", lambda: layer(x3.transpose(0, 1)))
    w = T.tensor(floats(rng, (2, batch, n_out), -2, 2), device=dev)
    record.call("backward of layer(x3.transpose(0, 1))", lambda: (y * w).sum().backward())
    record.grad("x3.grad", x3)
    record.grad("layer.bias.grad", layer.bias)
    record.call(f"T.nn.Linear(0, {n_out})", lambda: T.nn.Linear(0, n_out))
    record.call(f"T.nn.Linear({n_in}, 0)", lambda: T.nn.Linear(n_in, 0))
    for name, m in [("layer", layer), ("layer without bias", plain)]:
        for shape in [(batch, wrong), (wrong,), (2, batch, wrong)]:
            bad = T.tensor(floats(rng, shape, -2, 2), device=dev)
            record.call(f"{name} of a {list(shape)} input", lambda m=m, bad=bad: m(bad))
        for dtype in ["float64", "int64"]:
            for shape in [(batch, n_in), (n_in,), (2, batch, n_in)]:
                data = (
                    floats(rng, shape, -2, 2)
                    if dtype == "float64"
                    else rng.integers(-3, 4, size=shape).tolist()
                )
                t = T.tensor(data, dtype=getattr(T, dtype), device=dev)
                label = f"{name} of a {dtype} {list(shape)} input"
                if name == "layer" or dev == "cpu":  # mm's dtype text is the CPU kernel's
                    record.call(label, lambda m=m, t=t: m(t))
        wide64 = T.tensor(floats(rng, (batch, wrong), -2, 2), dtype=T.float64, device=dev)
        record.call(f"{name} of a float64 input of the wrong width", lambda m=m: m(wide64))
    bias64 = T.tensor(floats(rng, n_out, -1, 1), dtype=T.float64, device=dev)
    record.call(
        "F.linear(x, weight, float64 bias)",
        lambda: T.nn.functional.linear(x, layer.weight, bias64),
    )
    short_bias = T.tensor(floats(rng, n_out + 1, -1, 1), device=dev)
    record.call(
        "F.linear(x, weight, bias of the wrong size)",
        lambda: T.nn.functional.linear(x, layer.weight, short_bias),
    )
    a = T.tensor(floats(rng, (batch, wrong), -2, 2), device=dev)
    b = T.tensor(floats(rng, (n_in, n_out), -2, 2), device=dev)
    record.call("T.mm of mismatched inner sizes", lambda: T.mm(a, b))
    record.call("a @ b of mismatched inner sizes", lambda: a @ b)
    c = T.tensor(floats(rng, (2, batch, wrong), -2, 2), device=dev)
    record.call("(2, n, k) @ (j, m) of mismatched inner sizes", lambda: c @ b)


# -- cross_entropy ------------------------------------------------------------------------------


@scenario(
    id="values.cross_entropy_reductions_and_ignore_index",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
    weight=2,
)
def cross_entropy_reductions_and_ignore_index(T, record, rng):
    dev = record.device
    F = T.nn.functional
    n, c = int(rng.integers(3, 6)), int(rng.integers(3, 5))
    classes = rng.integers(0, c, size=n)
    ignored = classes.copy()
    ignored[rng.choice(n, size=2, replace=False)] = -100  # PyTorch's default ignore_index
    probs = rng.dirichlet(np.ones(c), size=n).tolist()
    own = int(rng.integers(0, c))  # a class given as ignore_index
    targets = [
        ("classes", lambda: T.tensor(classes.tolist(), device=dev), {}),
        ("classes with -100", lambda: T.tensor(ignored.tolist(), device=dev), {}),
        ("all -100", lambda: T.tensor([-100] * n, device=dev), {}),
        (
            f"ignore_index={own}",
            lambda: T.tensor(classes.tolist(), device=dev),
            {"ignore_index": own},
        ),
        ("probabilities", lambda: T.tensor(probs, device=dev), {}),
        # float64 throughout: float32 log_softmax differs in the last bit between libraries
        ("float64 probabilities", lambda: T.tensor(probs, dtype=T.float64, device=dev), {}),
        ("classes, float64 input", lambda: T.tensor(classes.tolist(), device=dev), {}),
    ]
    for reduction in ["mean", "sum", "none"]:
        for name, make, kw in targets:
            dtype = T.float64 if "float64" in name else T.float32
            x = T.tensor(floats(rng, (n, c), -3, 3), dtype=dtype, requires_grad=True, device=dev)
            target = make()
            case = f"cross_entropy(x, {name}, reduction={reduction!r})"
            y = record.call(
                case, lambda x=x, t=target, kw=kw: F.cross_entropy(x, t, reduction=reduction, **kw)
            )
            w = T.tensor(floats(rng, tuple(y.shape), -2, 2), dtype=y.dtype, device=dev)
            record.call(f"backward of {case}", lambda y=y, w=w: (y * w).sum().backward())
            record.grad(f"x.grad of {case}", x)
        # one sample: a 1-D input and a 0-d class index
        x = T.tensor(floats(rng, c, -3, 3), requires_grad=True, device=dev)
        k = T.tensor(int(rng.integers(0, c)), device=dev)
        y = record.call(
            f"1-D cross_entropy, {reduction}",
            lambda x=x, k=k: F.cross_entropy(x, k, reduction=reduction),
        )
        record.call(f"backward of 1-D cross_entropy, {reduction}", lambda y=y: y.backward())
        record.grad(f"x.grad of 1-D cross_entropy, {reduction}", x)


@scenario(
    id="values.cross_entropy_target_errors",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
)
def cross_entropy_target_errors(T, record, rng):
    dev = record.device
    F = T.nn.functional
    n, c = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n, c), -3, 3), requires_grad=True, device=dev)
    ok = rng.integers(0, c, size=n).tolist()
    record.call("cross_entropy(x, classes)", lambda: F.cross_entropy(x, T.tensor(ok, device=dev)))
    m = n + int(rng.choice([-1, 1]))
    short = T.tensor(rng.integers(0, c, size=m).tolist(), device=dev)
    for reduction in ["mean", "none"]:
        record.call(
            f"{m} targets for {n} rows, reduction={reduction!r}",
            lambda r=reduction: F.cross_entropy(x, short, reduction=r),
        )
    bad_name = str(rng.choice(["average", "avg", "total", "Mean"]))
    record.call(
        f"reduction={bad_name!r}",
        lambda: F.cross_entropy(x, T.tensor(ok, device=dev), reduction=bad_name),
    )
    record.call(
        f"reduction={bad_name!r} and a wrong batch",
        lambda: F.cross_entropy(x, short, reduction=bad_name),
    )
    record.call(
        "a 2-D target of class indices", lambda: F.cross_entropy(x, T.tensor([ok], device=dev))
    )
    if dev != "cpu":  # PyTorch's CUDA kernel asserts on the device; its dtype text differs
        return
    for bad in [c + int(rng.integers(0, 3)), -int(rng.integers(1, 4))]:
        targets = list(ok)
        targets[int(rng.integers(0, n))] = bad
        for reduction in ["mean", "sum", "none"]:
            record.call(
                f"target {bad} among {c} classes, reduction={reduction!r}",
                lambda t=targets, r=reduction: F.cross_entropy(x, T.tensor(t), reduction=r),
            )
    record.call("int32 targets", lambda: F.cross_entropy(x, T.tensor(ok, dtype=T.int32)))
    record.call("float targets", lambda: F.cross_entropy(x, T.tensor(ok, dtype=T.float32)))
    record.call(
        "int64 targets of the input's shape",
        lambda: F.cross_entropy(x, T.tensor(rng.integers(0, 2, size=(n, c)).tolist())),
    )
    record.call(
        "probabilities with ignore_index",
        lambda: F.cross_entropy(x, T.ones(n, c) / c, ignore_index=int(rng.integers(0, c))),
    )
    record.call(
        "1-D input, two targets",
        lambda: F.cross_entropy(x[0], T.tensor(rng.integers(0, c, size=2).tolist())),
    )


# -- mse_loss -----------------------------------------------------------------------------------


@scenario(
    id="values.mse_loss_reductions_broadcasting_and_dtypes",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
)
def mse_loss_reductions_broadcasting_and_dtypes(T, record, rng):
    dev = record.device
    F = T.nn.functional
    n = int(rng.integers(2, 5))
    cases = [
        ("same shape", (n, 3), (n, 3), "float32"),
        ("(n,) vs (n, 1)", (n,), (n, 1), "float32"),
        ("(n, 3) vs (3,)", (n, 3), (3,), "float32"),
        ("0-d vs (1,)", (), (1,), "float32"),
        ("float64 target", (n, 3), (n, 3), "float64"),
        ("int64 target", (n, 3), (n, 3), "int64"),
    ]
    for reduction in ["mean", "sum", "none"]:
        for name, shape_x, shape_t, dtype in cases:
            x = T.tensor(floats(rng, shape_x, -2, 2), requires_grad=True, device=dev)
            data = (
                rng.integers(-2, 3, size=shape_t).tolist()
                if dtype == "int64"
                else floats(rng, shape_t, -2, 2)
            )
            grad = dtype != "int64"
            t = T.tensor(data, dtype=getattr(T, dtype), requires_grad=grad, device=dev)
            case = f"mse_loss, {name}, reduction={reduction!r}"
            y = record.call(case, lambda x=x, t=t: F.mse_loss(x, t, reduction=reduction))
            w = T.tensor(floats(rng, tuple(y.shape), -2, 2), dtype=y.dtype, device=dev)
            record.call(f"backward of {case}", lambda y=y, w=w: (y * w).sum().backward())
            record.grad(f"x.grad of {case}", x)
            if grad:
                record.grad(f"target.grad of {case}", t)
    x = T.tensor(floats(rng, (n, 3), -2, 2), requires_grad=True, device=dev)
    bad_name = str(rng.choice(["average", "avg", "total", "Mean"]))
    record.call(
        f"reduction={bad_name!r}",
        lambda: F.mse_loss(x, T.zeros(n, 3, device=dev), reduction=bad_name),
    )
    record.call(
        f"reduction={bad_name!r}, broadcast target",
        lambda: F.mse_loss(x, T.zeros(3, device=dev), reduction=bad_name),
    )
    record.call(
        "a target that does not broadcast",
        lambda: F.mse_loss(x, T.zeros(n + 1, 3, device=dev)),
    )


# -- optim.SGD ----------------------------------------------------------------------------------


@scenario(
    id="values.sgd_param_groups_and_validation",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#training-loop",
)
def sgd_param_groups_and_validation(T, record, rng):
    dev = record.device
    p = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    q = T.tensor(floats(rng, 2, -2, 2), requires_grad=True, device=dev)
    w = T.tensor(floats(rng, 3, -2, 2), device=dev)

    def loss():
        return (p * w).sum() + (q**2).sum()

    lr, lr_q = scalar(rng, 0.05, 0.3), scalar(rng, 0.05, 0.3)
    decay = scalar(rng, 0.3, 0.9)
    momentum = scalar(rng, 0.5, 0.95)
    setups = [
        ("SGD([p, q])", lambda: T.optim.SGD([p, q], lr=lr)),
        ("SGD(groups)", lambda: T.optim.SGD([{"params": [p]}, {"params": q, "lr": lr_q}], lr=lr)),
        (
            "SGD(groups, momentum)",
            lambda: T.optim.SGD(
                [{"params": [p], "nesterov": True}, {"params": [q], "momentum": 0.0}],
                lr=lr,
                momentum=momentum,
            ),
        ),
    ]
    for name, make in setups:
        opt = record.call(name, make)
        record.value(
            f"{name}: param_groups",
            [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups],
        )
        record.value(f"{name}: repr", repr(opt))
        for step in range(3):
            opt.zero_grad()
            loss().backward()
            record.call(f"{name}: step {step}", lambda opt=opt: opt.step())
            record.tensor(f"{name}: p after step {step}", p)
            record.tensor(f"{name}: q after step {step}", q)
            for group in opt.param_groups:  # a hand-written decay of the learning rate
                group["lr"] *= decay
    bad = -scalar(rng, 0.1, 2.0)
    record.call("lr < 0", lambda: T.optim.SGD([p], lr=bad))
    record.call("momentum < 0", lambda: T.optim.SGD([p], lr=lr, momentum=bad))
    record.call("weight_decay < 0", lambda: T.optim.SGD([p], lr=lr, weight_decay=bad))
    record.call("nesterov without momentum", lambda: T.optim.SGD([p], lr=lr, nesterov=True))
    record.call(
        "nesterov with dampening",
        lambda: T.optim.SGD([p], lr=lr, momentum=momentum, dampening=decay, nesterov=True),
    )
    record.call("SGD([])", lambda: T.optim.SGD([], lr=lr))
    record.call("SGD(p)", lambda: T.optim.SGD(p, lr=lr))
    record.call("SGD([p, lr])", lambda: T.optim.SGD([p, lr], lr=lr))
    record.call("SGD([p, q, p])", lambda: T.optim.SGD([p, q, p], lr=lr))
    record.call(
        "p in two groups", lambda: T.optim.SGD([{"params": [p]}, {"params": [p, q]}], lr=lr)
    )
