"""Scenarios: rebuilding tensors from parts (rules R1-R4).

The running example is the source document's: five values computed from one Parameter, put
back together with `tensor()` (cuts the graph), `stack`/`cat` or index filling (keep it).
"""

from autograder.catalogue._data import floats, scalar
from autograder.catalogue._statements import setitem
from autograder.scenarios import scenario

LECTURE = "course/05_rebuilding_tensors.ipynb"


# -- R1: tensor() copies values out of the graph ---------------------------------------------


@scenario(
    id="rebuild.tensor_of_parts_cuts_graph",
    rules=["R1", "L6"],
    topic="rebuild",
    lecture=f"{LECTURE}#why-tensor-cuts-the-graph",
    weight=2,
    # "Converting a tensor with requires_grad=True to a scalar" is warned once per process
    fresh_process=True,
)
def tensor_of_parts_cuts_graph(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 5, 0.01, 1.0), device=dev))
    parts = [a[0] * 2, T.log(a[1] + 1), a[2] ** 2, T.nn.functional.softplus(a[3] * 2), a[4]]
    for i, part in enumerate(parts):
        record.tensor(f"parts[{i}]", part)
    # plain numbers and detached parts never warn
    record.call(
        "T.tensor([p.item() for p in parts])",
        lambda: T.tensor([p.item() for p in parts], device=dev),
    )
    record.call(
        "T.tensor([p.detach() for p in parts])",
        lambda: T.tensor([p.detach() for p in parts], device=dev),
    )
    a1 = record.call("A1 = T.tensor(parts)", lambda: T.tensor(parts, device=dev))
    record.call("A1.sum().backward()", lambda: a1.sum().backward())
    record.grad("a.grad", a)
    record.call(
        "T.tensor(parts) again: the warning came once",
        lambda: T.tensor(parts, device=dev),
    )
    r = record.call(
        "R = T.tensor(parts, requires_grad=True)",
        lambda: T.tensor(parts, requires_grad=True, device=dev),
    )
    w = T.tensor(floats(rng, 5, -2, 2), device=dev)
    record.call("(R * w).sum().backward()", lambda: (r * w).sum().backward())
    record.grad("R.grad", r)
    record.grad("a.grad after R's backward", a)
    record.call(
        "T.tensor([a[0:1] * 2, a[1:2]]) (one element each)",
        lambda: T.tensor([a[0:1] * 2, a[1:2]], device=dev),
    )
    record.call(
        "T.tensor([a[0:2], a[2:4]]) (two elements each)",
        lambda: T.tensor([a[0:2], a[2:4]], device=dev),
    )
    record.call(
        "T.tensor([a[0:2].detach(), a[2:4].detach()])",
        lambda: T.tensor([a[0:2].detach(), a[2:4].detach()], device=dev),
    )


# -- R2: stack and cat keep the graph ----------------------------------------------------------


@scenario(
    id="rebuild.stack_keeps_graph",
    rules=["R2"],
    topic="rebuild",
    lecture=f"{LECTURE}#stack-and-cat",
    weight=2,
)
def stack_keeps_graph(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 5, 0.01, 1.0), device=dev))
    parts = [a[0] * 2, T.log(a[1] + 1), a[2] ** 2, T.nn.functional.softplus(a[3] * 2), a[4]]
    a3 = record.call("A3 = T.stack(parts)", lambda: T.stack(parts))
    w = T.tensor(floats(rng, 5, -2, 2), device=dev)
    record.call("(A3 * w).sum().backward()", lambda: (a3 * w).sum().backward())
    record.grad("a.grad", a)
    u = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    v = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    c = T.tensor(floats(rng, 3, -2, 2), device=dev)
    m = record.call("M = T.stack([u, v * 2, c], dim=1)", lambda: T.stack([u, v * 2, c], dim=1))
    wm = T.tensor(floats(rng, (3, 3), -2, 2), device=dev)
    record.call("(M * wm).sum().backward()", lambda: (m * wm).sum().backward())
    record.grad("u.grad", u)
    record.grad("v.grad", v)
    record.call("T.stack([u, c]) (one input requires grad)", lambda: T.stack([u, c]))
    record.call("T.stack([c, c * 2]) (none requires grad)", lambda: T.stack([c, c * 2]))


@scenario(
    id="rebuild.cat_keeps_graph",
    rules=["R2"],
    topic="rebuild",
    lecture=f"{LECTURE}#stack-and-cat",
)
def cat_keeps_graph(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 3, 0.01, 1.0), device=dev))
    parts = [a[0:1] * 2, T.log(a[1:2] + 1), a[2:3] ** 2]
    b = record.call("B = T.cat(parts)", lambda: T.cat(parts))
    w = T.tensor(floats(rng, 3, -2, 2), device=dev)
    record.call("(B * w).sum().backward()", lambda: (b * w).sum().backward())
    record.grad("a.grad", a)
    top = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    bottom = T.tensor(floats(rng, (1, 3), -2, 2), requires_grad=True, device=dev)
    left = T.tensor(floats(rng, (3, 1), -2, 2), requires_grad=True, device=dev)
    rows = record.call("rows = T.cat([top, bottom])", lambda: T.cat([top, bottom]))
    grid = record.call("grid = T.cat([left, rows], dim=1)", lambda: T.cat([left, rows], dim=1))
    wg = T.tensor(floats(rng, (3, 4), -2, 2), device=dev)
    record.call("(grid * wg).sum().backward()", lambda: (grid * wg).sum().backward())
    for name, t in [("top", top), ("bottom", bottom), ("left", left)]:
        record.grad(f"{name}.grad", t)


@scenario(
    id="rebuild.cat_refuses_0d",
    rules=["R2"],
    topic="rebuild",
    lecture=f"{LECTURE}#stack-and-cat",
)
def cat_refuses_0d(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 3, -2, 2), device=dev))
    b = T.tensor(floats(rng, 2, -2, 2), device=dev)
    record.call("T.cat([a[0], a[1]]) (0-d parts)", lambda: T.cat([a[0], a[1]]))
    record.call("T.cat([b, a[2]]) (second part 0-d)", lambda: T.cat([b, a[2]]))
    record.call("T.stack([a[0], a[1]]) (stack takes 0-d parts)", lambda: T.stack([a[0], a[1]]))


# -- R3: filling a fresh tensor by index ---------------------------------------------------------


@scenario(
    id="rebuild.fill_zeros_by_index",
    rules=["R3", "I4", "I1"],
    topic="rebuild",
    lecture=f"{LECTURE}#fill-by-index",
    weight=2,
)
def fill_zeros_by_index(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 5, 0.01, 1.0), device=dev))
    a2 = T.zeros(5, device=dev)
    record.tensor("A2 = T.zeros(5)", a2)
    fills = [
        ("A2[0] = a[0] * 2", lambda: setitem(a2, 0, a[0] * 2)),
        ("A2[1] = T.log(a[1] + 1)", lambda: setitem(a2, 1, T.log(a[1] + 1))),
        ("A2[2] = a[2] ** 2", lambda: setitem(a2, 2, a[2] ** 2)),
        ("A2[3] = softplus(a[3] * 2)", lambda: setitem(a2, 3, T.nn.functional.softplus(a[3] * 2))),
        ("A2[4] = a[4]", lambda: setitem(a2, 4, a[4])),
    ]
    for label, fill in fills:
        record.call(label, fill)
        record.tensor(f"A2 after {label}", a2)
    w = T.tensor(floats(rng, 5, -2, 2), device=dev)
    record.call("(A2 * w).sum().backward()", lambda: (a2 * w).sum().backward())
    record.grad("a.grad", a)
    record.grad("A2.grad", a2)


@scenario(
    id="rebuild.fill_variants",
    rules=["R3", "I3", "L9"],
    topic="rebuild",
    lecture=f"{LECTURE}#fill-by-index",
)
def fill_variants(T, record, rng):
    dev = record.device
    u = T.tensor(floats(rng, 2, -2, 2), requires_grad=True, device=dev)
    v = T.tensor(floats(rng, 2, -2, 2), requires_grad=True, device=dev)
    e = T.empty(2, device=dev)
    record.call(
        "e = T.empty(2); e[0] = u[0] * 3; e[1] = u[1]",
        lambda: (setitem(e, 0, u[0] * 3), setitem(e, 1, u[1])),
    )
    record.tensor("e after filling every element", e)
    z = T.zeros(3, device=dev)
    record.call(
        "z = T.zeros(3); z[0:2] = T.stack([u[1], v[0]])",
        lambda: setitem(z, slice(0, 2), T.stack([u[1], v[0]])),
    )
    record.tensor("z", z)
    m = T.zeros(2, 2, device=dev)
    record.call("m = T.zeros(2, 2); m[0] = u", lambda: setitem(m, 0, u))
    record.call("m[:, 1] = v * u", lambda: setitem(m, (slice(None), 1), v * u))
    record.tensor("m", m)
    w = T.tensor(floats(rng, (2, 2), -2, 2), device=dev)
    record.call("(m * w).sum().backward()", lambda: (m * w).sum().backward())
    record.grad("u.grad", u)
    record.grad("v.grad", v)
    n = T.zeros(2, device=dev)

    def fill_under_no_grad():
        with T.no_grad():
            n[0] = u[0]

    record.call("n = T.zeros(2); with no_grad: n[0] = u[0]", fill_under_no_grad)
    record.tensor("n", n)
    leaf = T.zeros(2, requires_grad=True, device=dev)
    record.call("T.zeros(2, requires_grad=True)[0] = u[0]", lambda: setitem(leaf, 0, u[0]))


@scenario(
    id="rebuild.self_dependent_fill_fails_at_backward",
    rules=["R3", "I2", "N2"],
    topic="rebuild",
    lecture=f"{LECTURE}#dependent-fill",
    weight=2,
)
def self_dependent_fill_fails_at_backward(T, record, rng):
    dev = record.device
    # the source document's normalise / denormalise example, with its integer bounds
    low = rng.integers(0, 3, size=3)
    p_min, p_max = (
        T.tensor(low.tolist(), device=dev),
        T.tensor((low + rng.integers(1, 4, size=3)).tolist(), device=dev),
    )
    p = T.nn.Parameter(T.tensor(floats(rng, 2, 0.2, 1.0), device=dev))
    filled = T.zeros(3, device=dev)
    filled[0] = p[0]
    filled[1] = p[1]
    param = filled * (p_max - p_min) + p_min
    record.tensor("param = filled * (p_max - p_min) + p_min", param)
    record.call("param[2] = param[0] / param[1]", lambda: setitem(param, 2, param[0] / param[1]))
    record.tensor("param after the fill", param)
    out = (param - p_min) / (p_max - p_min)
    record.tensor("out = (param - p_min) / (p_max - p_min)", out)
    record.call("out.sum().backward()", lambda: out.sum().backward())
    record.grad("p.grad", p)


@scenario(
    id="rebuild.self_dependent_fill_fixed_by_stack",
    rules=["R3", "R2"],
    topic="rebuild",
    lecture=f"{LECTURE}#dependent-fill",
)
def self_dependent_fill_fixed_by_stack(T, record, rng):
    dev = record.device
    low = rng.integers(0, 3, size=3)
    p_min, p_max = (
        T.tensor(low.tolist(), device=dev),
        T.tensor((low + rng.integers(1, 4, size=3)).tolist(), device=dev),
    )
    p = T.nn.Parameter(T.tensor(floats(rng, 2, 0.2, 1.0), device=dev))
    filled = T.zeros(3, device=dev)
    filled[0] = p[0]
    filled[1] = p[1]
    param = filled * (p_max - p_min) + p_min
    joined = record.call(
        "joined = T.stack([param[0], param[1], param[0] / param[1]])",
        lambda: T.stack([param[0], param[1], param[0] / param[1]]),
    )
    out = (joined - p_min) / (p_max - p_min)
    record.tensor("out", out)
    record.call("out.sum().backward()", lambda: out.sum().backward())
    record.grad("p.grad", p)


@scenario(
    id="rebuild.detach_is_a_lossy_escape",
    rules=["R3", "D2"],
    topic="rebuild",
    lecture=f"{LECTURE}#detach-lossy-escape",
)
def detach_is_a_lossy_escape(T, record, rng):
    dev = record.device
    # detaching the dependent value lets backward run, but drops its share of the gradient
    low = rng.integers(0, 3, size=3)
    p_min, p_max = (
        T.tensor(low.tolist(), device=dev),
        T.tensor((low + rng.integers(1, 4, size=3)).tolist(), device=dev),
    )
    p = T.nn.Parameter(T.tensor(floats(rng, 2, 0.2, 1.0), device=dev))
    filled = T.zeros(3, device=dev)
    filled[0] = p[0]
    filled[1] = p[1]
    param = filled * (p_max - p_min) + p_min
    record.call(
        "param[2] = (param[0] / param[1]).detach()",
        lambda: setitem(param, 2, (param[0] / param[1]).detach()),
    )
    out = (param - p_min) / (p_max - p_min)
    record.tensor("out", out)
    record.call("out.sum().backward()", lambda: out.sum().backward())
    record.grad("p.grad", p)


# -- R4: nn.Parameter ----------------------------------------------------------------------------


@scenario(
    id="rebuild.parameter_is_new_leaf_sharing_memory",
    rules=["R4", "I3", "L5"],
    topic="rebuild",
    lecture=f"{LECTURE}#parameter-wrapping",
)
def parameter_is_new_leaf_sharing_memory(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, 3, -2, 2), device=dev)
    s = scalar(rng)
    p = record.call("p = T.nn.Parameter(x)", lambda: T.nn.Parameter(x))
    record.value("type(p).__name__", type(p).__name__)
    record.same("p is x", p, x)
    record.shares("p shares memory with x", p, x)
    record.tensor("x after wrapping", x)
    record.call("x.add_(s)", lambda: x.add_(s))
    record.tensor("p after x.add_(s)", p)
    record.call("p.add_(s)", lambda: p.add_(s))
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    y = a * 2
    q = record.call("q = T.nn.Parameter(a * 2)", lambda: T.nn.Parameter(y))
    record.shares("q shares memory with a * 2", q, y)
    record.call(
        "T.nn.Parameter(x, requires_grad=False)", lambda: T.nn.Parameter(x, requires_grad=False)
    )
    record.call(
        "T.nn.Parameter(T.tensor([1, 2]))",
        lambda: T.nn.Parameter(T.tensor([1, 2], device=dev)),
    )
    record.call("(q * q).sum().backward()", lambda: (q * q).sum().backward())
    record.grad("q.grad", q)
    record.grad("a.grad (q is a new leaf)", a)


@scenario(
    id="rebuild.parameter_then_view_is_not_leaf",
    rules=["R4", "L3"],
    topic="rebuild",
    lecture=f"{LECTURE}#parameter-wrapping",
)
def parameter_then_view_is_not_leaf(T, record, rng):
    dev = record.device
    t = T.nn.Parameter(T.tensor(floats(rng, (12, 1), -2, 2), device=dev))
    t2 = record.call("t2 = t.view(3, 4)", lambda: t.view(3, 4))
    record.value("type(t2).__name__", type(t2).__name__)
    w = T.tensor(floats(rng, (3, 4), -2, 2), device=dev)
    record.call("(t2 * w).sum().backward()", lambda: (t2 * w).sum().backward())
    record.grad("t2.grad", t2)
    record.grad("t.grad", t)
    # the source document's first pitfall: rebinding the name to a result loses the leaf
    eta = T.nn.Parameter(T.tensor(floats(rng, 4, 0.0, 1.0), device=dev))
    eta = eta * 2
    record.tensor("eta = eta * 2", eta)
    record.call("eta.sum().backward()", lambda: eta.sum().backward())
    record.grad("eta.grad", eta)


@scenario(
    id="rebuild.view_then_parameter_is_leaf",
    rules=["R4"],
    topic="rebuild",
    lecture=f"{LECTURE}#parameter-wrapping",
)
def view_then_parameter_is_leaf(T, record, rng):
    dev = record.device
    k = T.tensor(floats(rng, (12, 1), -2, 2), device=dev).view(3, 4)
    kp = record.call("kp = T.nn.Parameter(k.view(3, 4))", lambda: T.nn.Parameter(k))
    record.shares("kp shares memory with k", kp, k)
    w = T.tensor(floats(rng, (3, 4), -2, 2), device=dev)
    record.call("(kp * w).sum().backward()", lambda: (kp * w).sum().backward())
    record.grad("kp.grad", kp)


@scenario(
    id="rebuild.module_refuses_plain_tensor_as_parameter",
    rules=["R4"],
    topic="rebuild",
    lecture=f"{LECTURE}#parameter-wrapping",
)
def module_refuses_plain_tensor_as_parameter(T, record, rng):
    dev = record.device

    class Model(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.tensor(floats(rng, (12, 1), -2, 2), device=dev))

    model = Model()
    record.call("model.w = model.w.view(3, 4)", lambda: setattr(model, "w", model.w.view(3, 4)))
    record.tensor("model.w after the refused assignment", model.w)
    record.call(
        "model.w = T.nn.Parameter(model.w.detach().view(3, 4))",
        lambda: setattr(model, "w", T.nn.Parameter(model.w.detach().view(3, 4))),
    )
    record.tensor("model.w after wrapping the view", model.w)
    params = list(model.parameters())
    record.value("len(list(model.parameters()))", len(params))
    record.same("the parameter is model.w", params[-1], model.w)


@scenario(
    id="rebuild.cat_and_stack_of_inputs_that_need_no_grad",
    rules=["R2"],
    topic="rebuild",
    lecture=f"{LECTURE}#stack-and-cat",
)
def cat_and_stack_of_inputs_that_need_no_grad(T, record, rng):
    # An input that needs no gradient keeps its place among cat's and stack's inputs: the
    # gradient of each one that does is its own part of the output's, wherever it stands.
    dev = record.device
    k = int(rng.integers(2, 4))
    plain = T.tensor(floats(rng, (2, k), -2, 2), device=dev)
    a = T.tensor(floats(rng, (1, k), -2, 2), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, (3, k), -2, 2), requires_grad=True, device=dev)
    orders = {
        "T.cat([plain, a, b])": lambda: T.cat([plain, a, b]),
        "T.cat([a, plain, b])": lambda: T.cat([a, plain, b]),
        "T.cat([b.t(), plain.t()], dim=1)": lambda: T.cat([b.t(), plain.t()], dim=1),
    }
    for label, join in orders.items():
        a.grad = b.grad = None
        out = record.call(label, join)
        w = T.tensor(floats(rng, tuple(out.shape), -2, 2), device=dev)
        record.call(f"backward of {label}", lambda out=out, w=w: (out * w).sum().backward())
        record.grad(f"a.grad through {label}", a)
        record.grad(f"b.grad through {label}", b)
    c = T.tensor(floats(rng, (2, k), -2, 2), requires_grad=True, device=dev)
    out = record.call("T.stack([plain, c], dim=1)", lambda: T.stack([plain, c], dim=1))
    w = T.tensor(floats(rng, tuple(out.shape), -2, 2), device=dev)
    record.call("backward of T.stack([plain, c], dim=1)", lambda: (out * w).sum().backward())
    record.grad("c.grad through stack", c)
