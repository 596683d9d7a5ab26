"""Scenarios: devices and dtypes (rules V1-V5).

Everything that needs no second device is shown through dtypes and runs on every device, CPU
included: `.to(dtype)` is the same kind of copy as `.to(device)`. The scenarios that move
tensors between CPU and GPU run only with device="cuda"; their error texts are PyTorch's on CUDA.
"""

import numpy as np

from autograder.catalogue._data import floats, scalar
from autograder.catalogue._statements import iadd
from autograder.scenarios import scenario

LECTURE = "course/06_devices.ipynb"


def _halves(rng, shape):
    """Multiples of 0.5: exact in float16, so half-precision results compare exactly."""
    return (rng.integers(-8, 9, size=shape) / 2).tolist()


# -- on every device -------------------------------------------------------------------------


@scenario(
    id="devices.to_without_change_returns_self",
    rules=["V1"],
    topic="devices",
    lecture=f"{LECTURE}#to-returns-self-or-a-copy",
)
def to_without_change_returns_self(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), device=dev, requires_grad=True)
    b = T.tensor(floats(rng, 3, -2, 2), dtype=T.float64, device=dev)
    i = T.tensor(rng.integers(-5, 5, size=3).tolist(), device=dev)
    record.same("a.to(device) is a", a.to(dev), a)
    record.same("a.to(a.device) is a", a.to(a.device), a)
    record.same("a.to(T.float32) is a", a.to(T.float32), a)
    record.same("a.to(device, T.float32) is a", a.to(dev, T.float32), a)
    record.same("a.float() is a", a.float(), a)
    record.same("a.type_as(a) is a", a.type_as(a), a)
    record.same("b.double() is b", b.double(), b)
    record.same("b.to(T.float64) is b", b.to(T.float64), b)
    record.same("i.long() is i", i.long(), i)
    if dev == "cpu":
        record.same("a.cpu() is a", a.cpu(), a)
    else:
        record.same("a.cuda() is a", a.cuda(), a)
    record.tensor("a after all of these", a)


@scenario(
    id="devices.to_new_dtype_copies",
    rules=["V1", "L1"],
    topic="devices",
    lecture=f"{LECTURE}#to-returns-self-or-a-copy",
)
def to_new_dtype_copies(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3), -2, 2), device=dev, requires_grad=True)
    b = T.tensor(floats(rng, 3, -2, 2), dtype=T.float64, device=dev, requires_grad=True)
    copies = [
        ("a.double()", lambda: a.double()),
        ("a.to(T.float64)", lambda: a.to(T.float64)),
        ("a.to(device, T.float64)", lambda: a.to(record.device, T.float64)),
        ("a.to(T.float16)", lambda: a.to(T.float16)),
        ("a.type_as(b)", lambda: a.type_as(b)),
        ("b.float()", lambda: b.float()),
        ("b.to(T.float32)", lambda: b.to(T.float32)),
        ("a.long() (integer: no grad)", lambda: a.long()),
        ("a.to(T.int32) (integer: no grad)", lambda: a.to(T.int32)),
    ]
    for label, make in copies:
        c = record.call(label, make)
        source = b if label.startswith("b.") else a
        record.shares(f"{label} shares memory with its source", c, source)


@scenario(
    id="devices.grad_returns_in_source_dtype",
    rules=["V2"],
    topic="devices",
    lecture=f"{LECTURE}#gradient-flows-back",
    weight=2,
)
def grad_returns_in_source_dtype(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), device=dev, requires_grad=True)
    w64 = T.tensor(floats(rng, 3, -2, 2), dtype=T.float64, device=dev)
    y = a.double()
    record.call("(a.double() * w64).sum().backward()", lambda: (y * w64).sum().backward())
    record.grad("a.grad (a is float32)", a)
    record.grad("a.double().grad", y)
    b = T.tensor(floats(rng, 3, -2, 2), dtype=T.float64, device=dev, requires_grad=True)
    w = T.tensor(floats(rng, 3, -2, 2), device=dev)
    record.call(
        "(b.float() ** 2 * w).sum().backward()", lambda: (b.float() ** 2 * w).sum().backward()
    )
    record.grad("b.grad (b is float64)", b)
    h = T.tensor(_halves(rng, 4), device=dev, requires_grad=True)
    wh = T.tensor(_halves(rng, 4), dtype=T.float16, device=dev)
    record.call(
        "(h.to(T.float16) * wh).sum().backward()", lambda: (h.to(T.float16) * wh).sum().backward()
    )
    record.grad("h.grad (h is float32)", h)
    c = T.tensor(floats(rng, 3, -2, 2), device=dev, requires_grad=True)
    record.call(
        "(c.double().float() * w).sum().backward()",
        lambda: (c.double().float() * w).sum().backward(),
    )
    record.grad("c.grad after a round trip", c)


@scenario(
    id="devices.leaf_created_on_device",
    rules=["V3"],
    topic="devices",
    lecture=f"{LECTURE}#create-on-the-device",
)
def leaf_created_on_device(T, record, rng):
    dev = record.device
    made = [
        (
            "T.tensor(..., device=d, requires_grad=True)",
            lambda: T.tensor(floats(rng, 3, -2, 2), device=dev, requires_grad=True),
        ),
        (
            "T.zeros(2, 3, device=d, requires_grad=True)",
            lambda: T.zeros(2, 3, device=dev, requires_grad=True),
        ),
        (
            "T.ones(2, device=d, dtype=T.float64, requires_grad=True)",
            lambda: T.ones(2, device=dev, dtype=T.float64, requires_grad=True),
        ),
        (
            "T.full((2,), v, device=d, requires_grad=True)",
            lambda: T.full((2,), float(rng.uniform(-2, 2)), device=dev, requires_grad=True),
        ),
        (
            "T.tensor(...).to(d).requires_grad_()",
            lambda: T.tensor(floats(rng, 3, -2, 2)).to(dev).requires_grad_(),
        ),
        (
            "T.tensor(..., device=d).requires_grad_()",
            lambda: T.tensor(floats(rng, 3, -2, 2), device=dev).requires_grad_(),
        ),
    ]
    for label, make in made:
        t = record.call(label, make)
        record.call(f"backward into {label}", lambda t=t: (t * 3).sum().backward())
        record.grad(f"grad of {label}", t)


@scenario(
    id="devices.module_to_dtype_keeps_parameters",
    rules=["V5"],
    topic="devices",
    lecture=f"{LECTURE}#module-to",
    weight=2,
)
def module_to_dtype_keeps_parameters(T, record, rng):
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    with T.no_grad():  # initial values differ between engines by design: set them from rng
        for p in model.parameters():
            p.copy_(T.tensor(floats(rng, tuple(p.shape), -1.0, 1.0)))
    before = list(model.parameters())
    moved = record.call("model.to(T.float64)", lambda: model.to(T.float64))
    record.same("model.to(T.float64) is model", moved, model)
    after = list(model.parameters())
    for i, (p, q) in enumerate(zip(before, after, strict=True)):
        record.same(f"parameter {i} is the same object", p, q)
        record.tensor(f"parameter {i} after .to(T.float64)", q)
    x = T.tensor(floats(rng, (5, 3), -2, 2), dtype=T.float64)
    out = model(x)
    record.tensor("model(x)", out)
    record.call("model(x).sum().backward()", lambda: out.sum().backward())
    for i, p in enumerate(after):
        record.grad(f"parameter {i}.grad", p)
    if record.device != "cpu":
        record.same("model.to(device) is model", model.to(record.device), model)
        for i, (p, q) in enumerate(zip(before, model.parameters(), strict=True)):
            record.same(f"parameter {i} is the same object after .to(device)", p, q)
            record.tensor(f"parameter {i} after .to(device)", q)


@scenario(
    id="devices.parameter_to_new_dtype_is_plain_tensor",
    rules=["V1", "R4"],
    topic="devices",
    lecture=f"{LECTURE}#to-returns-self-or-a-copy",
)
def parameter_to_new_dtype_is_plain_tensor(T, record, rng):
    p = T.nn.Parameter(T.tensor(floats(rng, 3, -2, 2), device=record.device))
    q = record.call("q = p.double()", lambda: p.double())
    record.value("type(q).__name__", type(q).__name__)
    record.same("p.float() is p", p.float(), p)
    r = record.call(
        "r = T.nn.Parameter(p.detach().double())", lambda: T.nn.Parameter(p.detach().double())
    )
    record.value("type(r).__name__", type(r).__name__)


# -- CUDA only -------------------------------------------------------------------------------


@scenario(
    id="devices.cuda_copy_of_cpu_leaf",
    rules=["V1", "V2", "L3"],
    topic="devices",
    lecture=f"{LECTURE}#moved-leaf-is-not-a-leaf",
    devices=("cuda",),
    weight=2,
)
def cuda_copy_of_cpu_leaf(T, record, rng):
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True)
    g = record.call("g = a.cuda()", lambda: a.cuda())
    record.call("a.to('cuda')", lambda: a.to("cuda"))
    record.same("g.cuda() is g", g.cuda(), g)
    record.same("g.to('cuda') is g", g.to("cuda"), g)
    record.call("g.cpu()", lambda: g.cpu())
    w = T.tensor(floats(rng, 3, -2, 2), device="cuda")
    record.call("(g * w).sum().backward()", lambda: (g * w).sum().backward())
    record.grad("g.grad", g)
    record.grad("a.grad (back on the CPU)", a)
    b = T.tensor(floats(rng, 3, -2, 2), requires_grad=True)
    h = record.call("h = b.to('cuda', T.float64)", lambda: b.to("cuda", T.float64))
    record.call("(h * h).sum().backward()", lambda: (h * h).sum().backward())
    record.grad("b.grad (CPU, float32)", b)


@scenario(
    id="devices.cuda_leaf_created_on_gpu",
    rules=["V3"],
    topic="devices",
    lecture=f"{LECTURE}#create-on-the-device",
    devices=("cuda",),
)
def cuda_leaf_created_on_gpu(T, record, rng):
    record.call(
        "T.tensor(..., device='cuda', requires_grad=True)",
        lambda: T.tensor(floats(rng, 3, -2, 2), device="cuda", requires_grad=True),
    )
    record.call(
        "T.tensor(...).cuda().requires_grad_()",
        lambda: T.tensor(floats(rng, 3, -2, 2)).cuda().requires_grad_(),
    )
    record.call(
        "T.tensor(..., requires_grad=True).cuda() (a copy)",
        lambda: T.tensor(floats(rng, 3, -2, 2), requires_grad=True).cuda(),
    )
    record.call(
        "T.zeros(2, device=T.device('cuda'), requires_grad=True)",
        lambda: T.zeros(2, device=T.device("cuda"), requires_grad=True),
    )


@scenario(
    id="devices.cuda_mixing_devices_fails",
    rules=["V4"],
    topic="devices",
    lecture=f"{LECTURE}#device-mismatch",
    devices=("cuda",),
)
def cuda_mixing_devices_fails(T, record, rng):
    g = T.tensor(floats(rng, (2, 2), -2, 2), device="cuda")
    c = T.tensor(floats(rng, (2, 2), -2, 2))
    record.call("g + c", lambda: g + c)
    record.call("c + g (the CUDA device is still named first)", lambda: c + g)
    record.call("g * c", lambda: g * c)
    record.call("g += c", lambda: iadd(g, c))
    record.call("T.mm(g, c)", lambda: T.mm(g, c))
    record.call("g @ c", lambda: g @ c)
    record.call("g + c.cuda()", lambda: g + c.cuda())
    record.call("g.cpu() + c", lambda: g.cpu() + c)


@scenario(
    id="devices.cuda_numpy_refused",
    rules=["V4", "D1"],
    topic="devices",
    lecture=f"{LECTURE}#numpy-needs-cpu",
    devices=("cuda",),
)
def cuda_numpy_refused(T, record, rng):
    values = floats(rng, 3, -2, 2)
    g = T.tensor(values, device="cuda")
    r = T.tensor(values, device="cuda", requires_grad=True)
    record.call("g.numpy()", lambda: g.numpy())
    record.call("r.numpy() (device is checked before requires_grad)", lambda: r.numpy())
    record.call("g.cpu().numpy()", lambda: g.cpu().numpy())
    record.call("r.detach().cpu().numpy()", lambda: r.detach().cpu().numpy())
    record.call("np.asarray(g.cpu())", lambda: np.asarray(g.cpu()))
    record.call("r.cpu().numpy() (still requires grad)", lambda: r.cpu().numpy())


@scenario(
    id="devices.cuda_version_error_names_cuda_type",
    rules=["I2", "V1"],
    topic="devices",
    lecture=f"{LECTURE}#gradient-flows-back",
    devices=("cuda",),
)
def cuda_version_error_names_cuda_type(T, record, rng):
    a = T.tensor(floats(rng, 3, -2, 2), device="cuda", requires_grad=True)
    s = scalar(rng)
    x = a * 2
    y = x**2
    record.call("x.add_(s) after y = x ** 2", lambda: x.add_(s))
    record.call("y.sum().backward()", lambda: y.sum().backward())


@scenario(
    id="devices.cuda_cpu_scalar_joins_and_indices_follow_their_tensor",
    rules=["V4"],
    topic="devices",
    lecture=f"{LECTURE}#device-mismatch",
    devices=("cuda",),
)
def cuda_cpu_scalar_joins_and_indices_follow_their_tensor(T, record, rng):
    """The exceptions to V4: a 0-d CPU tensor may join a CUDA operation (its gradient comes
    back to the CPU), and a CPU index tensor serves a tensor on any device; a CUDA index of a
    CPU tensor does not."""
    g = T.tensor(floats(rng, 3), device="cuda", requires_grad=True)
    s = T.tensor(scalar(rng), requires_grad=True)  # 0-d, on the CPU
    for label, make in (("g * s", lambda: g * s), ("s / g", lambda: s / g),
                        ("g ** s", lambda: g**s), ("T.where(g > 1, s, g)",
                        lambda: T.where(g > 1, s, g))):  # fmt: skip
        record.call(label, make)
    y = (g * s + s / g + g**s).sum()
    record.call("y.backward()", lambda: y.backward())
    record.grad("s.grad (back on the CPU)", s)
    record.grad("g.grad", g)
    c = T.tensor(floats(rng, 4))
    record.call("g[T.tensor([0, 2])] (a CPU index)", lambda: g[T.tensor([0, 2])])
    record.call("c[T.tensor([0, 2], device='cuda')]",
                lambda: c[T.tensor([0, 2], device="cuda")])  # fmt: skip
    target = T.tensor(floats(rng, 3))
    record.call("mse_loss(g, a CPU target)", lambda: T.nn.functional.mse_loss(g, target))
    record.call("mse_loss(g, a 0-d CPU target)", lambda: T.nn.functional.mse_loss(g, s))


@scenario(
    id="devices.cuda_kernels_check_every_argument",
    rules=["V4"],
    topic="devices",
    lecture=f"{LECTURE}#device-mismatch",
    devices=("cuda",),
)
def cuda_kernels_check_every_argument(T, record, rng):
    """Beyond elementwise arithmetic, a kernel takes its first tensor argument's device as the
    common one and refuses any other, before its own checks and with no exception for a 0-d
    CPU tensor: a CPU index, target or layer beside CUDA data fails."""
    F = T.nn.functional
    g = T.tensor(floats(rng, (2, 3)), device="cuda", requires_grad=True)
    c = T.tensor(floats(rng, (2, 3)))
    index = T.tensor([[0, 2, 1], [1, 0, 2]])
    target = T.tensor([2, 0])
    calls = {
        "c.T @ g (the CPU one first)": lambda: c.T @ g,
        "g.mm(T.tensor(2.0)) (0-d, on the CPU)": lambda: g.mm(T.tensor(2.0)),
        "g[None] @ c.T[None] (a batch)": lambda: g[None] @ c.T[None],
        "g[0].dot(c[0])": lambda: g[0].dot(c[0]),
        "c.mv(g[0])": lambda: c.mv(g[0]),
        "g.mv(c[0])": lambda: g.mv(c[0]),
        "T.nn.Linear(3, 2)(g) (a CPU layer)": lambda: T.nn.Linear(3, 2)(g),
        "g.gather(1, a CPU index)": lambda: g.gather(1, index),
        "g.scatter(1, a CPU index, g)": lambda: g.scatter(1, index, g),
        "g.detach().scatter_(1, index.cuda(), 0.5) (the same device)":
            lambda: g.detach().scatter_(1, index.cuda(), 0.5),
        "g.index_add(0, a CPU index, g)": lambda: g.index_add(0, target[:2] // 2, g),
        "F.nll_loss(g, a CPU target)": lambda: F.nll_loss(g, target),
        "F.cross_entropy(g, a CPU target)": lambda: F.cross_entropy(g, target),
        "F.cross_entropy(g, the target on CUDA)": lambda: F.cross_entropy(g, target.cuda()),
    }  # fmt: skip
    for label, call in calls.items():
        record.call(label, call)
