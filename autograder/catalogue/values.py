"""Scenarios: values, gradients, dtypes and printing (rules N1-N3).

Gradients are taken against random weights `w` (`(y * w).sum().backward()`), so every element
of every gradient is checked, not only a sum of ones.
"""

import numpy as np

from autograder.catalogue._data import floats, scalar
from autograder.scenarios import scenario

LECTURE = "course/01_tensors_memory.ipynb"


def _away_from_zero(rng, shape):
    return (rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 2.0, size=shape)).tolist()


def _signed(rng, shape):
    return floats(rng, shape, -2, 2)


# -- N1: every binary operator, through broadcasting ----------------------------------------

_BROADCAST_SHAPES = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((3, 1), (1, 4)),
    ((2, 1, 3), (4, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((2, 3), (1,)),
]


def _binary_through_broadcasting(T, record, rng, symbol, op, left, right):
    """Values and both gradients of `a <symbol> b` for every pair of broadcastable shapes."""
    dev = record.device
    for shape_a, shape_b in _BROADCAST_SHAPES:
        a = T.tensor(left(rng, shape_a), requires_grad=True, device=dev)
        b = T.tensor(right(rng, shape_b), requires_grad=True, device=dev)
        case = f"a{list(shape_a)} {symbol} b{list(shape_b)}"
        y = record.call(case, lambda a=a, b=b: op(a, b))
        w = T.tensor(floats(rng, np.broadcast_shapes(shape_a, shape_b), -2, 2), device=dev)
        record.call(f"backward of {case}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"a.grad of {case}", a)
        record.grad(f"b.grad of {case}", b)


def _binary_scenario(name, symbol, op, left, right):
    @scenario(
        id=f"values.{name}_through_broadcasting",
        rules=["N1"],
        topic="values",
        lecture=f"{LECTURE}#broadcasting",
        needs=("tensor",),
    )
    def check(T, record, rng):
        _binary_through_broadcasting(T, record, rng, symbol, op, left, right)

    check.__name__ = f"{name}_through_broadcasting"
    return check


add_through_broadcasting = _binary_scenario("add", "+", lambda a, b: a + b, _signed, _signed)
sub_through_broadcasting = _binary_scenario("sub", "-", lambda a, b: a - b, _signed, _signed)
mul_through_broadcasting = _binary_scenario("mul", "*", lambda a, b: a * b, _signed, _signed)
div_through_broadcasting = _binary_scenario(
    "div", "/", lambda a, b: a / b, _signed, _away_from_zero
)
pow_through_broadcasting = _binary_scenario("pow", "**", lambda a, b: a**b, floats, _signed)


@scenario(
    id="values.python_scalars_on_either_side",
    rules=["N1", "L2"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
)
def python_scalars_on_either_side(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=dev)
    s = float(rng.uniform(0.5, 2.0))
    k = int(rng.integers(2, 5))
    cases = [
        ("a + s", lambda: a + s),
        ("s + a", lambda: s + a),
        ("a - s", lambda: a - s),
        ("s - a", lambda: s - a),
        ("a * s", lambda: a * s),
        ("s * a", lambda: s * a),
        ("a / s", lambda: a / s),
        ("s / a", lambda: s / a),
        ("a ** s", lambda: a**s),
        ("s ** a", lambda: s**a),
        ("a ** k (int)", lambda: a**k),
        ("k ** a (int)", lambda: k**a),
        ("a + k (int)", lambda: a + k),
        ("k - a (int)", lambda: k - a),
        ("a * k (int)", lambda: a * k),
        ("k / a (int)", lambda: k / a),
        ("-a", lambda: -a),
        ("a.pow(s)", lambda: a.pow(s)),
    ]
    w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    for label, make in cases:
        y = record.call(label, make)
        record.call(f"backward of {label}", lambda y=y: (y * w).sum().backward())
        record.grad(f"a.grad of {label}", a)
        a.grad = None


@scenario(
    id="values.gradients_sum_over_paths",
    rules=["N1", "L8"],
    topic="values",
    lecture=f"{LECTURE}#broadcasting",
)
def gradients_sum_over_paths(T, record, rng):
    # a tensor used twice gets the sum of both paths' gradients, whatever its shape (0-d included)
    dev = record.device
    s, t = scalar(rng), scalar(rng, -2, 2)
    cases = [
        ("x * x", lambda x: x * x),
        ("x * s + x * t", lambda x: x * s + x * t),
        ("x + (x + x)", lambda x: x + (x + x)),
        ("(x + x) + (x - x * s)", lambda x: (x + x) + (x - x * s)),
        ("y = x * s; y * y", lambda x: (lambda y: y * y)(x * s)),
        ("x.exp() * x", lambda x: x.exp() * x),
        ("(x * x + 1).log()", lambda x: (x * x + 1).log()),
        ("x / (x * x + 1)", lambda x: x / (x * x + 1)),
        ("x.abs() ** x", lambda x: x.abs() ** x),
    ]
    for shape in [(), (1,), (2, 3)]:
        for label, f in cases:
            x = T.tensor(floats(rng, shape, -2, 2), requires_grad=True, device=dev)
            case = f"{label} for x of shape {list(shape)}"
            y = record.call(case, lambda f=f, x=x: f(x))
            record.call(f"backward of {case}", lambda y=y: y.sum().backward())
            record.grad(f"x.grad of {case}", x)


@scenario(
    id="values.matmul_shapes",
    rules=["N1", "L2"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
    weight=2,
)
def matmul_shapes(T, record, rng):
    dev = record.device
    cases = [
        ("(2, 3) @ (3, 4)", (2, 3), (3, 4), lambda a, b: a @ b),
        ("T.mm((2, 3), (3, 4))", (2, 3), (3, 4), lambda a, b: T.mm(a, b)),
        ("(2, 3).mm((3, 4))", (2, 3), (3, 4), lambda a, b: a.mm(b)),
        ("T.matmul((2, 3), (3,))", (2, 3), (3,), lambda a, b: T.matmul(a, b)),
        ("(3,) @ (3,)", (3,), (3,), lambda a, b: a @ b),
        ("(3,).dot((3,))", (3,), (3,), lambda a, b: a.dot(b)),
        ("(3,) @ (3, 4)", (3,), (3, 4), lambda a, b: a @ b),
        ("(2, 2, 3) @ (3, 4)", (2, 2, 3), (3, 4), lambda a, b: a @ b),
        ("(2, 2, 3) @ (2, 3, 4)", (2, 2, 3), (2, 3, 4), lambda a, b: a @ b),
        ("(2, 2, 3) @ (3,)", (2, 2, 3), (3,), lambda a, b: a @ b),
        ("a.matmul(b) (2, 3) @ (2, 3, 4)", (2, 3), (2, 3, 4), lambda a, b: a.matmul(b)),
    ]
    for label, shape_a, shape_b, op in cases:
        a = T.tensor(floats(rng, shape_a, -2, 2), requires_grad=True, device=dev)
        b = T.tensor(floats(rng, shape_b, -2, 2), requires_grad=True, device=dev)
        y = record.call(label, lambda op=op, a=a, b=b: op(a, b))
        w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"a.grad of {label}", a)
        record.grad(f"b.grad of {label}", b)
    record.call("(2, 3) @ (4, 3)", lambda: T.ones(2, 3, device=dev) @ T.ones(4, 3, device=dev))


# -- N1: reductions -----------------------------------------------------------------------------


@scenario(
    id="values.reductions_with_dim_and_keepdim",
    rules=["N1", "L2"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
    weight=2,
)
def reductions_with_dim_and_keepdim(T, record, rng):
    dev = record.device
    # distinct values: which element max/min pick is then unambiguous
    x = T.tensor(
        (rng.permutation(24).reshape(2, 3, 4) / 8 + rng.uniform(-1, 1)).tolist(),
        requires_grad=True,
        device=dev,
    )
    cases = [
        ("x.sum()", lambda: x.sum()),
        ("x.sum(0)", lambda: x.sum(0)),
        ("x.sum(1, keepdim=True)", lambda: x.sum(1, keepdim=True)),
        ("x.sum(dim=-1)", lambda: x.sum(dim=-1)),
        ("T.sum(x)", lambda: T.sum(x)),
        ("T.sum(x, 2, keepdim=True)", lambda: T.sum(x, 2, keepdim=True)),
        ("x.mean()", lambda: x.mean()),
        ("x.mean(0)", lambda: x.mean(0)),
        ("x.mean(dim=2, keepdim=True)", lambda: x.mean(dim=2, keepdim=True)),
        ("T.mean(x, -2)", lambda: T.mean(x, -2)),
        ("x.max()", lambda: x.max()),
        ("x.min()", lambda: x.min()),
        ("T.max(x)", lambda: T.max(x)),
        ("x.max(1).values", lambda: x.max(1).values),
        ("x.max(dim=2, keepdim=True)[0]", lambda: x.max(dim=2, keepdim=True)[0]),
        ("x.min(0).values", lambda: x.min(0).values),
        ("x.min(dim=-1, keepdim=True).values", lambda: x.min(dim=-1, keepdim=True).values),
        ("T.max(x, 1)[0]", lambda: T.max(x, 1)[0]),
    ]
    for label, make in cases:
        y = record.call(label, make)
        w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"x.grad of {label}", x)
        x.grad = None
    record.call("x.max(1) (values, indices)", lambda: tuple(x.max(1)))
    record.call("x.min(dim=2, keepdim=True).indices", lambda: x.min(dim=2, keepdim=True).indices)
    record.call("x.argmax()", lambda: x.argmax())
    record.call("x.argmax(1)", lambda: x.argmax(1))
    record.call("x.argmax(dim=2, keepdim=True)", lambda: x.argmax(dim=2, keepdim=True))


@scenario(
    id="values.max_min_ties_share_the_gradient",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
)
def max_min_ties_share_the_gradient(T, record, rng):
    dev = record.device
    top, bottom = float(rng.uniform(2, 3)), float(rng.uniform(-3, -2))
    values = [top, float(rng.uniform(-1, 1)), top, bottom, top, bottom]
    order = rng.permutation(6)
    x = T.tensor([values[i] for i in order], requires_grad=True, device=dev)
    record.call("x.max().backward() with three maxima", lambda: x.max().backward())
    record.grad("x.grad after max", x)
    x.grad = None
    record.call("x.min().backward() with two minima", lambda: x.min().backward())
    record.grad("x.grad after min", x)


# -- N1: elementwise functions ----------------------------------------------------------------


@scenario(
    id="values.unary_functions",
    rules=["N1", "L2"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
    weight=2,
)
def unary_functions(T, record, rng):
    dev = record.device
    p = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=dev)
    x = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    lo, hi = float(rng.uniform(-1.5, -0.5)), float(rng.uniform(0.5, 1.5))
    s = float(rng.uniform(0.5, 3))
    cases = [
        ("p.exp()", p, lambda: p.exp()),
        ("T.exp(x)", x, lambda: T.exp(x)),
        ("p.log()", p, lambda: p.log()),
        ("T.log(p)", p, lambda: T.log(p)),
        ("p.sqrt()", p, lambda: p.sqrt()),
        ("T.sqrt(p)", p, lambda: T.sqrt(p)),
        ("x.tanh()", x, lambda: x.tanh()),
        ("T.tanh(x)", x, lambda: T.tanh(x)),
        ("x.sigmoid()", x, lambda: x.sigmoid()),
        ("T.sigmoid(x)", x, lambda: T.sigmoid(x)),
        ("x.relu()", x, lambda: x.relu()),
        ("T.relu(x)", x, lambda: T.relu(x)),
        ("x.abs()", x, lambda: x.abs()),
        ("x.clamp(lo, hi)", x, lambda: x.clamp(lo, hi)),
        ("x.clamp(min=lo)", x, lambda: x.clamp(min=lo)),
        ("x.clamp(max=hi)", x, lambda: x.clamp(max=hi)),
        ("x.pow(2)", x, lambda: x.pow(2)),
        ("p.pow(s)", p, lambda: p.pow(s)),
        ("p.pow(x)", p, lambda: p.pow(x)),
        ("x.exp().log()", x, lambda: x.exp().log()),
    ]
    for label, leaf, make in cases:
        y = record.call(label, make)
        w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"{'p' if leaf is p else 'x'}.grad of {label}", leaf)
        leaf.grad = None


@scenario(
    id="values.functions_at_edge_points",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
)
def functions_at_edge_points(T, record, rng):
    dev = record.device
    # kinks and boundaries (0 for relu/abs/sqrt/log, the clamp bounds) next to ordinary values
    lo, hi = float(rng.uniform(-1.5, -0.5)), float(rng.uniform(0.5, 1.5))
    inner = float(rng.uniform(lo / 2, hi / 2))
    cases = [
        ("relu at 0", [0.0, inner, -hi], lambda t: t.relu()),
        ("abs at 0", [0.0, inner, lo], lambda t: t.abs()),
        ("sqrt at 0", [0.0, hi, hi * 2], lambda t: t.sqrt()),
        ("log at 0", [0.0, hi, hi * 3], lambda t: t.log()),
        ("x ** 0.5 at 0", [0.0, hi], lambda t: t**0.5),
        ("clamp at its bounds", [lo, hi, inner, lo * 2], lambda t: t.clamp(lo, hi)),
        ("sigmoid far out", [-100.0 * hi, 100.0 * hi, inner], lambda t: t.sigmoid()),
        ("tanh far out", [-50.0 * hi, 50.0 * hi, inner], lambda t: t.tanh()),
        ("exp overflow", [100.0 * hi, inner], lambda t: t.exp()),
    ]
    for label, values, op in cases:
        x = T.tensor(values, requires_grad=True, device=dev)
        y = record.call(label, lambda op=op, x=x: op(x))
        record.call(f"backward of {label}", lambda y=y: y.sum().backward())
        record.grad(f"x.grad of {label}", x)


@scenario(
    id="values.where_selects_and_routes_gradients",
    rules=["N1", "L1"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
)
def where_selects_and_routes_gradients(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    row = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    s = float(rng.uniform(-1, 1))
    cond = record.call("cond = a > b", lambda: a > b)
    cases = [
        ("T.where(cond, a, b)", lambda: T.where(cond, a, b)),
        ("T.where(a > 0, a, s)", lambda: T.where(a > 0, a, s)),
        ("T.where(cond, row, a) (broadcast)", lambda: T.where(cond, row, a)),
    ]
    for label, make in cases:
        y = record.call(label, make)
        w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda y=y, w=w: (y * w).sum().backward())
        for name, leaf in [("a", a), ("b", b), ("row", row)]:
            record.grad(f"{name}.grad of {label}", leaf)
            leaf.grad = None


@scenario(
    id="values.nn_functional_and_modules",
    rules=["N1", "L2"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
    weight=2,
)
def nn_functional_and_modules(T, record, rng):
    dev = record.device
    F = T.nn.functional
    x = T.tensor(floats(rng, (4, 3), -3, 3), requires_grad=True, device=dev)
    target = T.tensor(floats(rng, (4, 3), -2, 2), device=dev)
    classes = T.tensor(rng.integers(0, 3, size=4).tolist(), device=dev)
    cases = [
        ("F.relu(x)", lambda: F.relu(x)),
        ("F.softplus(x)", lambda: F.softplus(x)),
        ("F.mse_loss(x, target)", lambda: F.mse_loss(x, target)),
        ("F.cross_entropy(x, classes)", lambda: F.cross_entropy(x, classes)),
        ("T.nn.ReLU()(x)", lambda: T.nn.ReLU()(x)),
    ]
    for label, make in cases:
        y = record.call(label, make)
        w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"x.grad of {label}", x)
        x.grad = None
    layer = T.nn.Linear(3, 2)
    if dev != "cpu":
        layer.to(dev)
    with T.no_grad():  # engines initialise differently by design: set the values from rng
        layer.weight.copy_(T.tensor(floats(rng, (2, 3), -1, 1), device=dev))
        layer.bias.copy_(T.tensor(floats(rng, 2, -1, 1), device=dev))
    for label, shape in [("1-D", (3,)), ("2-D", (4, 3)), ("3-D", (2, 4, 3))]:
        inp = T.tensor(floats(rng, shape, -2, 2), requires_grad=True, device=dev)
        y = record.call(f"layer(x) for {label} x", lambda inp=inp: layer(inp))
        w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
        record.call(
            f"backward of layer(x) for {label} x", lambda y=y, w=w: (y * w).sum().backward()
        )
        record.grad(f"x.grad for {label} x", inp)
        record.grad(f"layer.weight.grad after {label} x", layer.weight)
        record.grad(f"layer.bias.grad after {label} x", layer.bias)
    model = T.nn.Sequential(layer, T.nn.ReLU())
    record.call("T.nn.Sequential(layer, T.nn.ReLU())(x)", lambda: model(x))


@scenario(
    id="values.views_and_indexing_gradients",
    rules=["N1", "I5"],
    topic="values",
    lecture=f"{LECTURE}#indexing-and-views",
    weight=2,
)
def views_and_indexing_gradients(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, (3, 4), -2, 2), requires_grad=True, device=dev)
    idx = T.tensor(rng.integers(0, 3, size=4).tolist(), device=dev)  # repeated rows accumulate
    cols = T.tensor(rng.integers(0, 4, size=4).tolist(), device=dev)
    mask = T.tensor((rng.uniform(size=(3, 4)) > 0.5).tolist(), device=dev)
    cases = [
        ("x[1]", lambda: x[1]),
        ("x[:, 2]", lambda: x[:, 2]),
        ("x[1:, ::2]", lambda: x[1:, ::2]),
        ("x[-1, 1:3]", lambda: x[-1, 1:3]),
        ("x[None, 1]", lambda: x[None, 1]),
        ("x[..., 0]", lambda: x[..., 0]),
        ("x[idx]", lambda: x[idx]),
        ("x[idx, cols]", lambda: x[idx, cols]),
        ("x[mask]", lambda: x[mask]),
        ("x.view(2, 6)", lambda: x.view(2, 6)),
        ("x.reshape(4, 3)", lambda: x.reshape(4, 3)),
        ("x.flatten()", lambda: x.flatten()),
        ("x.t()", lambda: x.t()),
        ("x.T", lambda: x.T),
        ("x.transpose(0, 1)", lambda: x.transpose(0, 1)),
        ("x.unsqueeze(1).permute(2, 1, 0)", lambda: x.unsqueeze(1).permute(2, 1, 0)),
        ("x[:1].squeeze(0)", lambda: x[:1].squeeze(0)),
        ("x.unsqueeze(0).squeeze()", lambda: x.unsqueeze(0).squeeze()),
        ("x[:, :1].expand(3, 5)", lambda: x[:, :1].expand(3, 5)),
        ("x.contiguous()", lambda: x.contiguous()),
        ("x.t().contiguous()", lambda: x.t().contiguous()),
        ("x.clone()", lambda: x.clone()),
    ]
    for label, make in cases:
        y = record.call(label, make)
        w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"x.grad of {label}", x)
        x.grad = None


@scenario(
    id="values.creation_functions",
    rules=["N1", "N2", "L1"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def creation_functions(T, record, rng):
    dev = record.device
    n, m = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    v = float(rng.uniform(-5, 5))
    k = int(rng.integers(-5, 5))
    start, stop = float(rng.uniform(-3, 0)), float(rng.uniform(1, 3))
    base = T.tensor(floats(rng, (n, m), -2, 2), dtype=T.float64, device=dev)
    made = [
        ("T.zeros(n, m)", lambda: T.zeros(n, m, device=dev)),
        (
            "T.zeros((n,), dtype=T.int64)",
            lambda: T.zeros((n,), dtype=T.int64, device=dev),
        ),
        ("T.ones(n)", lambda: T.ones(n, device=dev)),
        ("T.ones(n, m, dtype=T.bool)", lambda: T.ones(n, m, dtype=T.bool, device=dev)),
        ("T.full((n, m), v)", lambda: T.full((n, m), v, device=dev)),
        ("T.full((n,), k) (int)", lambda: T.full((n,), k, device=dev)),
        ("T.eye(n)", lambda: T.eye(n, device=dev)),
        ("T.eye(n, m)", lambda: T.eye(n, m, device=dev)),
        ("T.arange(n)", lambda: T.arange(n, device=dev)),
        ("T.arange(k, k + n)", lambda: T.arange(k, k + n, device=dev)),
        ("T.arange(start, stop, 0.5)", lambda: T.arange(start, stop, 0.5, device=dev)),
        ("T.arange(float(n))", lambda: T.arange(float(n), device=dev)),
        (
            "T.linspace(start, stop, n + 3)",
            lambda: T.linspace(start, stop, n + 3, device=dev),
        ),
        ("T.zeros_like(base)", lambda: T.zeros_like(base)),
        ("T.ones_like(base, dtype=T.float32)", lambda: T.ones_like(base, dtype=T.float32)),
        (
            "T.ones(n, requires_grad=True)",
            lambda: T.ones(n, requires_grad=True, device=dev),
        ),
    ]
    for label, make in made:
        record.call(label, make)
    # values are unspecified or random: compare what is specified
    for label, make in [
        ("T.empty(n, m)", lambda: T.empty(n, m, device=dev)),
        ("T.rand(n, m)", lambda: T.rand(n, m, device=dev)),
        ("T.randn(n)", lambda: T.randn(n, device=dev)),
        ("T.rand(n, dtype=T.float64)", lambda: T.rand(n, dtype=T.float64, device=dev)),
    ]:
        t = make()
        record.value(
            f"{label}: shape, dtype, requires_grad, is_leaf",
            [list(t.shape), str(t.dtype).split(".")[-1], t.requires_grad, t.is_leaf],
        )
    r = T.rand(1000, device=dev)
    record.value("T.rand(1000) lies in [0, 1)", r.min().item() >= 0 and r.max().item() < 1)


# -- N2: dtype inference and promotion --------------------------------------------------------


@scenario(
    id="values.dtype_inference",
    rules=["N2"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def dtype_inference(T, record, rng):
    dev = record.device
    fl = floats(rng, 3, -2, 2)
    it = rng.integers(-9, 9, size=3).tolist()
    cases = [
        ("T.tensor(python floats)", lambda: T.tensor(fl, device=dev)),
        ("T.tensor(python ints)", lambda: T.tensor(it, device=dev)),
        ("T.tensor(python bools)", lambda: T.tensor([i > 0 for i in it], device=dev)),
        (
            "T.tensor(ints and a float)",
            lambda: T.tensor(it[:2] + fl[:1], device=dev),
        ),
        ("T.tensor(a bool and ints)", lambda: T.tensor([True] + it[:2], device=dev)),
        ("T.tensor(python float)", lambda: T.tensor(fl[0], device=dev)),
        ("T.tensor(python int)", lambda: T.tensor(it[0], device=dev)),
        ("T.tensor([])", lambda: T.tensor([], device=dev)),
        ("T.tensor(float64 array)", lambda: T.tensor(np.array(fl), device=dev)),
        (
            "T.tensor(float32 array)",
            lambda: T.tensor(np.array(fl, dtype=np.float32), device=dev),
        ),
        (
            "T.tensor(int32 array)",
            lambda: T.tensor(np.array(it, dtype=np.int32), device=dev),
        ),
        (
            "T.tensor(int64 array)",
            lambda: T.tensor(np.array(it, dtype=np.int64), device=dev),
        ),
        (
            "T.tensor(np.float64 scalar)",
            lambda: T.tensor(np.float64(fl[0]), device=dev),
        ),
        ("T.from_numpy(float64 array)", lambda: T.from_numpy(np.array(fl))),
        ("T.as_tensor(python ints)", lambda: T.as_tensor(it, device=dev)),
        (
            "T.tensor(python floats, dtype=T.float64)",
            lambda: T.tensor(fl, dtype=T.float64, device=dev),
        ),
        (
            "T.tensor(python floats, dtype=T.float16)",
            lambda: T.tensor(fl, dtype=T.float16, device=dev),
        ),
        (
            "T.tensor(python ints, dtype=T.float32)",
            lambda: T.tensor(it, dtype=T.float32, device=dev),
        ),
        (
            "T.tensor(python floats, dtype=T.int32)",
            lambda: T.tensor(fl, dtype=T.int32, device=dev),
        ),
        ("T.FloatTensor(python ints)", lambda: T.FloatTensor(it)),
        ("T.DoubleTensor(python floats)", lambda: T.DoubleTensor(fl)),
        ("T.LongTensor(python ints)", lambda: T.LongTensor(it)),
        ("T.Tensor(python ints)", lambda: T.Tensor(it)),
    ]
    for label, make in cases:
        record.call(label, make)


@scenario(
    id="values.dtype_promotion",
    rules=["N2"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
    weight=2,
)
def dtype_promotion(T, record, rng):
    dev = record.device
    f32 = T.tensor(floats(rng, 3, -2, 2), device=dev)
    f64 = T.tensor(floats(rng, 3, -2, 2), dtype=T.float64, device=dev)
    f16 = T.tensor((rng.integers(-8, 9, size=3) / 4).tolist(), dtype=T.float16, device=dev)
    i64 = T.tensor(rng.integers(1, 9, size=3).tolist(), device=dev)
    i32 = T.tensor(rng.integers(1, 9, size=3).tolist(), dtype=T.int32, device=dev)
    b = T.tensor((rng.uniform(size=3) > 0.5).tolist(), device=dev)
    s = scalar(rng)
    k = int(rng.integers(2, 5))
    zero_d64 = T.tensor(s, dtype=T.float64, device=dev)
    cases = [
        ("f32 + f64", lambda: f32 + f64),
        ("f32 + 0-d f64 (0-d does not promote)", lambda: f32 + zero_d64),
        ("f32 + python float", lambda: f32 + s),
        ("f32 * python int", lambda: f32 * k),
        ("f32 + i64", lambda: f32 + i64),
        ("i64 + python float", lambda: i64 + s),
        ("i64 * python int", lambda: i64 * k),
        ("i64 + 0-d f64 (higher category wins)", lambda: i64 + zero_d64),
        ("i64 + 0-d f32", lambda: i64 + T.tensor(s, device=dev)),
        ("i32 + i64", lambda: i32 + i64),
        ("i32 + 0-d i64", lambda: i32 + T.tensor(k, device=dev)),
        ("i32 + python int", lambda: i32 + k),
        ("b + i64", lambda: b + i64),
        ("b + python float", lambda: b + s),
        ("b * python int", lambda: b * k),
        ("b * b", lambda: b * b),
        ("f16 + f32", lambda: f16 + f32),
        ("f16 + python float", lambda: f16 + s),
        ("f16 + 0-d f32", lambda: f16 + T.tensor(s, device=dev)),
        ("i64 / i64 (true division)", lambda: i64 / i64),
        ("i64 / python int", lambda: i64 / k),
        ("i64 ** python int", lambda: i64**k),
        ("python int ** i64", lambda: k**i64),
        ("i64 ** 0.5", lambda: i64**0.5),
        ("-i64", lambda: -i64),
        ("i64 @ i64", lambda: i64 @ i64),
        ("f32 < f64 (comparisons give bool)", lambda: f32 < f64),
        ("i64 >= k", lambda: i64 >= k),
        ("f32 == f32", lambda: f32 == f32),
        ("f32 != s", lambda: f32 != s),
        ("b.sum()", lambda: b.sum()),
        ("i32.sum()", lambda: i32.sum()),
        ("i64.sum(0)", lambda: i64.sum(0)),
        ("i64.max()", lambda: i64.max()),
        ("i64.mean() (no integer mean)", lambda: i64.mean()),
        ("i64.sqrt()", lambda: i64.sqrt()),
        ("i64.exp()", lambda: i64.exp()),
        ("i64.abs()", lambda: i64.abs()),
        ("i64.relu()", lambda: i64.relu()),
        ("i64.clamp(0, s)", lambda: i64.clamp(0, s)),
        ("T.where(b, i64, f32)", lambda: T.where(b, i64, f32)),
        ("T.where(b, i64, s)", lambda: T.where(b, i64, s)),
        ("-b", lambda: -b),
        ("k - b", lambda: k - b),
    ]
    for label, make in cases:
        record.call(label, make)
    # gradients keep each leaf's own dtype
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    d = T.tensor(floats(rng, 3, -2, 2), dtype=T.float64, requires_grad=True, device=dev)
    y = record.call("y = a * d + i64", lambda: a * d + i64)
    record.call("y.sum().backward()", lambda: y.sum().backward())
    record.grad("a.grad (float32)", a)
    record.grad("d.grad (float64)", d)


# -- N3: repr -----------------------------------------------------------------------------------


@scenario(
    id="values.repr_float_formats",
    rules=["N3"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def repr_float_formats(T, record, rng):
    dev = record.device
    n = int(rng.integers(3, 7))
    cases = [
        ("integer-valued floats", rng.integers(-20, 20, size=n).astype(float)),
        ("integer-valued floats 2-D", rng.integers(-200, 200, size=(2, n)).astype(float)),
        ("mixed signs", rng.uniform(-10, 10, size=n)),
        ("only positive below one", rng.uniform(0, 1, size=(3, 2))),
        ("large", rng.uniform(1e4, 1e6, size=n) * rng.choice([-1, 1], size=n)),
        ("small", rng.uniform(1e-6, 1e-4, size=n)),
        (
            "large and small together",
            np.concatenate([rng.uniform(1e3, 1e5, 2), rng.uniform(1e-5, 1e-3, 2)]),
        ),
        ("wide integer-valued", rng.integers(1e8, 1e9, size=3).astype(float)),
        ("halves", rng.integers(-9, 9, size=n) / 2),
        ("nan and infinities", np.array([np.nan, np.inf, -np.inf, rng.uniform(-5, 5)])),
        ("infinity with integers", np.array([np.inf, float(rng.integers(-9, 9))])),
        ("zeros", np.zeros((2, 2))),
        ("0-d", rng.uniform(-100, 100, size=())),
        ("0-d integer-valued", np.array(float(rng.integers(-9, 9)))),
        ("long row", rng.uniform(-3, 3, size=int(rng.integers(9, 30)))),
        ("wide matrix", rng.uniform(-3, 3, size=(3, int(rng.integers(8, 14))))),
        ("tall matrix", rng.uniform(-3, 3, size=(int(rng.integers(5, 12)), 2))),
    ]
    for label, values in cases:
        record.tensor(f"float32, {label}", T.tensor(values.tolist(), device=dev))
    record.tensor(
        "float64", T.tensor(rng.uniform(-5, 5, size=n).tolist(), dtype=T.float64, device=dev)
    )
    record.tensor(
        "float16",
        T.tensor((rng.integers(-40, 40, size=n) / 8).tolist(), dtype=T.float16, device=dev),
    )
    record.tensor("empty", T.tensor([], device=dev))
    record.tensor("empty 2-D", T.zeros(0, 3, device=dev))


@scenario(
    id="values.repr_integer_and_bool",
    rules=["N3"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def repr_integer_and_bool(T, record, rng):
    dev = record.device
    n = int(rng.integers(3, 7))
    record.tensor("int64", T.tensor(rng.integers(-9, 9, size=n).tolist(), device=dev))
    record.tensor(
        "int64 2-D, varied widths",
        T.tensor(rng.integers(-(10**6), 10**6, size=(3, n)).tolist(), device=dev),
    )
    record.tensor(
        "int64 long row",
        T.tensor(rng.integers(0, 1000, size=int(rng.integers(15, 40))).tolist(), device=dev),
    )
    record.tensor(
        "int32", T.tensor(rng.integers(-99, 99, size=n).tolist(), dtype=T.int32, device=dev)
    )
    record.tensor("int64 0-d", T.tensor(int(rng.integers(-99, 99)), device=dev))
    record.tensor("bool", T.tensor((rng.uniform(size=n) > 0.5).tolist(), device=dev))
    record.tensor("bool 2-D", T.tensor((rng.uniform(size=(3, n)) > 0.5).tolist(), device=dev))
    record.tensor("bool 0-d", T.tensor(bool(rng.uniform() > 0.5), device=dev))
    record.tensor("comparison result", T.tensor(floats(rng, n, -2, 2), device=dev) > 0)
    record.tensor("argmax result", T.tensor(floats(rng, (2, n), -2, 2), device=dev).argmax(1))


@scenario(
    id="values.repr_suffixes",
    rules=["N3", "L2"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def repr_suffixes(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    d = T.tensor(floats(rng, (2, 2), -2, 2), dtype=T.float64, requires_grad=True, device=dev)
    h = T.tensor(
        (rng.integers(-8, 8, size=3) / 4).tolist(), dtype=T.float16, requires_grad=True, device=dev
    )
    record.tensor("leaf requiring grad", a)
    record.tensor("result with grad_fn", a * 2)
    record.tensor("0-d result with grad_fn", (a * a).sum())
    record.tensor("float64 leaf requiring grad", d)
    record.tensor("float64 result with grad_fn (wraps)", d.exp())
    record.tensor("float16 leaf requiring grad", h)
    record.tensor("float16 result with grad_fn", h * 2)
    record.tensor("float64 copy of a float32 leaf", a.double())
    record.tensor(
        "long row with grad_fn",
        T.tensor(floats(rng, 12, -2, 2), requires_grad=True, device=dev) * 3,
    )
    record.tensor(
        "integer-valued result with grad_fn",
        T.tensor(
            rng.integers(-9, 9, size=3).tolist(), dtype=T.float32, requires_grad=True, device=dev
        )
        + 1,
    )
    record.tensor("detached", (a * 2).detach())
