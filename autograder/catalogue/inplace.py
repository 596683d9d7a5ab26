"""Scenarios: in-place operations, version counters, views (rules I1-I5).

Every value a scenario observes comes from `rng`; the structure (shapes, which op is applied
where) is fixed, because that is what the rule is about.
"""

from autograder.catalogue._data import floats, scalar
from autograder.catalogue._statements import iadd, idiv, imul, isub, setitem
from autograder.scenarios import scenario

LECTURE = "course/04_inplace_versions.ipynb"


# -- I1: version counters ------------------------------------------------------------------


@scenario(
    id="inplace.version_bumps_every_inplace_op",
    rules=["I1"],
    topic="inplace",
    lecture=f"{LECTURE}#version-counters",
)
def version_bumps_every_inplace_op(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    s, lo, hi = (
        scalar(rng),
        float(rng.uniform(-1.5, -0.5)),
        float(rng.uniform(0.5, 1.5)),
    )
    record.tensor("x (fresh)", x)
    steps = [
        ("x.add_(s)", lambda: x.add_(s)),
        ("x += s", lambda: iadd(x, s)),
        ("x[0, 1] = s", lambda: setitem(x, (0, 1), s)),
        ("x.mul_(s)", lambda: x.mul_(s)),
        ("x *= s", lambda: imul(x, s)),
        ("x.div_(s)", lambda: x.div_(s)),
        ("x /= s", lambda: idiv(x, s)),
        ("x.sub_(s)", lambda: x.sub_(s)),
        ("x -= s", lambda: isub(x, s)),
        ("x.clamp_(lo, hi)", lambda: x.clamp_(lo, hi)),
        ("x.relu_()", lambda: x.relu_()),
        ("x.copy_(y)", lambda: x.copy_(T.tensor(floats(rng, (2, 3), -2, 2), device=dev))),
        ("x.fill_(s)", lambda: x.fill_(s)),
        ("x.zero_()", lambda: x.zero_()),
    ]
    for label, step in steps:
        record.call(label, step)
        record.tensor(f"x after {label}", x)


@scenario(
    id="inplace.inplace_ops_rewrite_graph_tensor",
    rules=["I1", "I4"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def inplace_ops_rewrite_graph_tensor(T, record, rng):
    dev = record.device
    # Each in-place op on a non-leaf bumps its version and becomes its new grad_fn.
    a = T.tensor(floats(rng, 6, -1.5, 1.5), requires_grad=True, device=dev)
    b = T.tensor(
        (rng.choice([-1.0, 1.0], 6) * rng.uniform(0.5, 2, 6)).tolist(),
        requires_grad=True,
        device=dev,
    )
    s = scalar(rng)
    for label, step in [
        ("x.zero_()", lambda x: x.zero_()),
        ("x.fill_(s)", lambda x: x.fill_(s)),
        ("x.copy_(b)", lambda x: x.copy_(b)),
        ("x.relu_()", lambda x: x.relu_()),
    ]:
        x = a * s
        record.call(f"{label} on x = a * s", lambda step=step, x=x: step(x))
        record.tensor(f"x after {label}", x)
        record.call(f"x.sum().backward() after {label}", lambda x=x: x.sum().backward())
        record.grad(f"a.grad after {label}", a)
        record.grad(f"b.grad after {label}", b)
        a.grad = None
    x = a * 1
    lo, hi = float(rng.uniform(-1.5, -0.5)), float(rng.uniform(0.5, 1.5))
    steps = [
        ("x.clamp_(lo, hi)", lambda: x.clamp_(lo, hi)),
        ("x.add_(s)", lambda: x.add_(s)),
        ("x.mul_(b)", lambda: x.mul_(b)),
        ("x.div_(s)", lambda: x.div_(s)),
        ("x.sub_(b)", lambda: x.sub_(b)),
        ("x += b", lambda: iadd(x, b)),
        ("x -= s", lambda: isub(x, s)),
        ("x *= s", lambda: imul(x, s)),
        ("x /= b", lambda: idiv(x, b)),
        ("x[1] = b[0] * s", lambda: setitem(x, 1, b[0] * s)),
    ]
    for label, step in steps:
        record.call(label, step)
        record.tensor(f"x after {label}", x)
    w = T.tensor(floats(rng, 6, -2, 2), device=dev)
    record.call("(x * w).sum().backward()", lambda: (x * w).sum().backward())
    record.grad("a.grad", a)
    record.grad("b.grad", b)


@scenario(
    id="inplace.version_shared_with_views",
    rules=["I1", "I5"],
    topic="inplace",
    lecture=f"{LECTURE}#version-counters",
)
def version_shared_with_views(T, record, rng):
    dev = record.device
    base = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    row, flat, tr = base[0], base.view(6), base.t()
    s = scalar(rng)
    steps = [
        ("row.add_(s)", lambda: row.add_(s)),
        ("base.mul_(s)", lambda: base.mul_(s)),
        ("tr[1, 0] = s", lambda: setitem(tr, (1, 0), s)),
        ("flat.zero_()", lambda: flat.zero_()),
    ]
    for label, step in steps:
        record.call(label, step)
        for name, t in [("base", base), ("row", row), ("flat", flat), ("tr", tr)]:
            record.tensor(f"{name} after {label}", t)
    copy = base.clone()
    record.call("copy = base.clone(); copy.add_(s)", lambda: copy.add_(s))
    record.tensor("copy", copy)
    record.tensor("base after changing its clone", base)


@scenario(
    id="inplace.version_shared_with_detach_not_data",
    rules=["I1", "D2", "L10"],
    topic="inplace",
    lecture=f"{LECTURE}#version-counters",
)
def version_shared_with_detach_not_data(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    d = a.detach()
    record.call("a.detach().add_(s)", lambda: d.add_(s))
    record.tensor("a after a.detach().add_(s)", a)
    record.tensor("the detached alias", d)
    data = a.data
    record.call("a.data.mul_(s)", lambda: data.mul_(s))
    record.tensor("a after a.data.mul_(s)", a)
    record.tensor("a.data alias", data)
    # a saved tensor changed through a detached alias fails at backward ...
    y = (a * a).sum()
    record.call("a.detach().zero_() after y = (a * a).sum()", lambda: a.detach().zero_())
    record.call("y.backward()", lambda: y.backward())
    record.grad("a.grad after the failed backward", a)
    # ... while a change through .data goes unnoticed and the gradient uses the new values
    z = (a * a).sum()
    record.call("a.data.add_(s) after z = (a * a).sum()", lambda: a.data.add_(s))
    record.call("z.backward()", lambda: z.backward())
    record.grad("a.grad after z.backward()", a)


# -- I2: the version check at backward -------------------------------------------------------


@scenario(
    id="inplace.version_error_saved_input",
    rules=["I2"],
    topic="inplace",
    lecture=f"{LECTURE}#saved-tensors",
)
def version_error_saved_input(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    x = a * 2
    y = x**2  # PowBackward0 saves x
    record.call("x.add_(s) after y = x ** 2", lambda: x.add_(s))
    record.tensor("x", x)
    record.call("y.sum().backward()", lambda: y.sum().backward())
    record.grad("a.grad", a)
    x2 = a * 2
    y2 = x2 * x2  # MulBackward0 saves both operands
    record.call("x2.mul_(s) after y2 = x2 * x2", lambda: x2.mul_(s))
    record.call("y2.sum().backward()", lambda: y2.sum().backward())
    x3 = a - s
    y3 = x3**3
    record.call("x3.div_(s) twice after y3 = x3 ** 3", lambda: (x3.div_(s), x3.div_(s)))
    record.call("y3.sum().backward() (version 2)", lambda: y3.sum().backward())
    record.grad("a.grad at the end", a)


@scenario(
    id="inplace.version_error_saved_output",
    rules=["I2"],
    topic="inplace",
    lecture=f"{LECTURE}#saved-tensors",
)
def version_error_saved_output(T, record, rng):
    dev = record.device
    # exp, sigmoid and tanh save their result: changing the result breaks their backward
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    m = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    cases = [
        ("y = a.exp(); y.add_(s)", lambda: a.exp(), lambda y: y.add_(s)),
        ("y = a.sigmoid(); y.mul_(s)", lambda: a.sigmoid(), lambda y: y.mul_(s)),
        ("y = a.sigmoid(); y.relu_()", lambda: a.sigmoid(), lambda y: y.relu_()),
        ("y = m.tanh(); y.sub_(s)", lambda: m.tanh(), lambda y: y.sub_(s)),
        ("y = T.exp(m); y[0, 0] = s", lambda: T.exp(m), lambda y: setitem(y, (0, 0), s)),
    ]
    for label, forward, change in cases:
        y = forward()
        record.call(label, lambda y=y, change=change: change(y))
        record.tensor(f"y after {label}", y)
        record.call(f"backward after {label}", lambda y=y: y.sum().backward())
    record.grad("a.grad", a)
    record.grad("m.grad", m)


@scenario(
    id="inplace.version_error_names_type_and_shape",
    rules=["I2"],
    topic="inplace",
    lecture=f"{LECTURE}#how-the-check-fires",
)
def version_error_names_type_and_shape(T, record, rng):
    dev = record.device
    s = scalar(rng)
    zero_d = T.tensor(float(rng.uniform(-2, 2)), requires_grad=True, device=dev)
    x0 = zero_d * 1
    y0 = x0**2
    record.call("0-d: x.sub_(s) after y = x ** 2", lambda: x0.sub_(s))
    record.call("0-d: y.backward()", lambda: y0.backward())
    d = T.tensor(floats(rng, 2, -2, 2), dtype=T.float64, requires_grad=True, device=dev)
    x1 = d + 0
    y1 = x1**2
    record.call("float64: x.add_(s) after y = x ** 2", lambda: x1.add_(s))
    record.call("float64: y.sum().backward()", lambda: y1.sum().backward())
    m = T.tensor(floats(rng, (3, 2), -2, 2), requires_grad=True, device=dev)
    x2 = m / s
    y2 = x2 * m
    record.call("2-D: x.mul_(s) after y = x * m", lambda: x2.mul_(s))
    record.call("2-D: y.sum().backward()", lambda: y2.sum().backward())
    record.grad("m.grad", m)


@scenario(
    id="inplace.version_error_leaf_or_constant",
    rules=["I2", "L9"],
    topic="inplace",
    lecture=f"{LECTURE}#how-the-check-fires",
)
def version_error_leaf_or_constant(T, record, rng):
    dev = record.device
    # a changed leaf or constant has no forward op: the message omits "which is output 0 of"
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, 3, -2, 2), device=dev)
    s = scalar(rng)
    y = (a * a).sum()

    def step_leaf_under_no_grad():
        with T.no_grad():
            a.add_(s)

    record.call("with no_grad: a.add_(s) after y = (a * a).sum()", step_leaf_under_no_grad)
    record.tensor("a", a)
    record.call("y.backward()", lambda: y.backward())
    z = (a * b).sum()
    record.call("b.add_(s) after z = (a * b).sum()", lambda: b.add_(s))
    record.tensor("b", b)
    record.call("z.backward()", lambda: z.backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.version_error_after_setitem",
    rules=["I2", "I4"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def version_error_after_setitem(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    x = a * 2
    y = x**2
    record.call("x[0] = s after y = x ** 2", lambda: setitem(x, 0, s))
    record.tensor("x", x)
    record.call("y.sum().backward()", lambda: y.sum().backward())
    x2 = a * 2
    y2 = x2**2
    record.call("x2[1:].mul_(s) after y2 = x2 ** 2", lambda: x2[1:].mul_(s))
    record.tensor("x2", x2)
    record.call("y2.sum().backward()", lambda: y2.sum().backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.version_error_index_tensor",
    rules=["I2"],
    topic="inplace",
    lecture=f"{LECTURE}#how-the-check-fires",
)
def version_error_index_tensor(T, record, rng):
    dev = record.device
    # indexing with an integer tensor saves the index tensor too
    a = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=dev)
    idx = T.tensor(rng.choice(4, size=2, replace=False).tolist(), device=dev)
    y = a[idx]
    record.tensor("y = a[idx]", y)
    record.call("idx.zero_()", lambda: idx.zero_())
    record.call("y.sum().backward()", lambda: y.sum().backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.inplace_without_saved_tensor_is_fine",
    rules=["I2", "I4"],
    topic="inplace",
    lecture=f"{LECTURE}#how-the-check-fires",
)
def inplace_without_saved_tensor_is_fine(T, record, rng):
    dev = record.device
    # add, sum and multiplication by a Python number save no tensor: in-place after them is safe
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    x = a * s
    y = (x + b).sum() + x.sum() * s
    record.call("x.add_(s) after y = (x + b).sum() + x.sum() * s", lambda: x.add_(s))
    record.tensor("x", x)
    record.call("y.backward()", lambda: y.backward())
    record.grad("a.grad", a)
    record.grad("b.grad", b)
    # changing a tensor before an op saves it is always fine
    z = a * 1
    record.call("z.mul_(s) before w = z * z", lambda: z.mul_(s))
    w = z * z
    record.call("w.sum().backward()", lambda: w.sum().backward())
    record.grad("a.grad accumulated", a)


# -- I3: in-place on leaves ----------------------------------------------------------------


@scenario(
    id="inplace.leaf_inplace_refused",
    rules=["I3"],
    topic="inplace",
    lecture=f"{LECTURE}#in-place-on-a-leaf",
)
def leaf_inplace_refused(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    attempts = [
        ("a.add_(s)", lambda: a.add_(s)),
        ("a += s", lambda: iadd(a, s)),
        ("a -= s", lambda: isub(a, s)),
        ("a *= s", lambda: imul(a, s)),
        ("a /= s", lambda: idiv(a, s)),
        ("a.sub_(s)", lambda: a.sub_(s)),
        ("a.mul_(s)", lambda: a.mul_(s)),
        ("a.div_(s)", lambda: a.div_(s)),
        ("a.zero_()", lambda: a.zero_()),
        ("a.fill_(s)", lambda: a.fill_(s)),
        ("a.copy_(b)", lambda: a.copy_(T.tensor(floats(rng, 4, -2, 2), device=dev))),
        ("a.clamp_(-s, s)", lambda: a.clamp_(-s, s)),
        ("a.relu_()", lambda: a.relu_()),
        ("a.uniform_()", lambda: a.uniform_()),
        ("a.normal_()", lambda: a.normal_()),
        ("a[idx] = s (index tensor)", lambda: setitem(a, T.tensor([0, 2], device=dev), s)),
        ("a[a > 0] = s (mask)", lambda: setitem(a, a > 0, s)),
    ]
    for label, attempt in attempts:
        record.call(label, attempt)
    record.tensor("a after the refused attempts", a)


@scenario(
    id="inplace.view_of_leaf_inplace_refused",
    rules=["I3"],
    topic="inplace",
    lecture=f"{LECTURE}#in-place-on-a-leaf",
)
def view_of_leaf_inplace_refused(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    attempts = [
        ("a[0, 1] = s", lambda: setitem(a, (0, 1), s)),
        ("a[0] = s", lambda: setitem(a, 0, s)),
        ("a[:, 0:2] = s", lambda: setitem(a, (slice(None), slice(0, 2)), s)),
        ("a[0].add_(s)", lambda: a[0].add_(s)),
        ("a[:, 1].zero_()", lambda: a[:, 1].zero_()),
        ("a.view(6).mul_(s)", lambda: a.view(6).mul_(s)),
        ("a.view(6)[2] = s", lambda: setitem(a.view(6), 2, s)),
        ("a.t().relu_()", lambda: a.t().relu_()),
        ("a.transpose(0, 1)[0] = s", lambda: setitem(a.transpose(0, 1), 0, s)),
        ("a.unsqueeze(0).sub_(s)", lambda: a.unsqueeze(0).sub_(s)),
        ("a[None] += s", lambda: iadd(a[None], s)),
    ]
    for label, attempt in attempts:
        record.call(label, attempt)
    record.tensor("a after the refused attempts", a)


@scenario(
    id="inplace.no_grad_allows_leaf_inplace",
    rules=["I3", "L9"],
    topic="inplace",
    lecture=f"{LECTURE}#in-place-on-a-leaf",
)
def no_grad_allows_leaf_inplace(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    s, lr = scalar(rng), float(rng.uniform(0.01, 0.5))
    (a * w).sum().backward()

    def updates():
        with T.no_grad():
            a.add_(s)
            a[0, 1] = s
            a[1].mul_(s)
            a.view(6).div_(s)
            isub(a, lr * a.grad)

    record.call("in-place updates of a and its views under no_grad", updates)
    record.tensor("a after the updates", a)
    a.grad = None
    record.call("(a * a).sum().backward()", lambda: (a * a).sum().backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.view_made_under_no_grad_changed_with_grad",
    rules=["I3", "L9"],
    topic="inplace",
    lecture=f"{LECTURE}#in-place-on-a-leaf",
)
def view_made_under_no_grad_changed_with_grad(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    with T.no_grad():
        v = a[0:2]
    record.tensor("v = a[0:2] made under no_grad", v)
    record.call("v.add_(s) with grad mode on", lambda: v.add_(s))
    x = a * 1
    with T.no_grad():
        u = x[1:3]
    record.tensor("u = x[1:3] made under no_grad", u)
    record.call("u.mul_(s) with grad mode on", lambda: u.mul_(s))
    record.tensor("a at the end", a)
    record.tensor("x at the end", x)


# -- I4: in-place rewrites history -----------------------------------------------------------


@scenario(
    id="inplace.setitem_on_nonleaf_copyslices",
    rules=["I4"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def setitem_on_nonleaf_copyslices(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    c = T.tensor(float(rng.uniform(-2, 2)), requires_grad=True, device=dev)
    s, t = scalar(rng), float(rng.uniform(-2, 2))
    x = a * s
    record.call("x[0] = t", lambda: setitem(x, 0, t))
    record.tensor("x after x[0] = t", x)
    record.call("x[2] = c * s", lambda: setitem(x, 2, c * s))
    record.tensor("x after x[2] = c * s", x)
    w = T.tensor(floats(rng, 3, -2, 2), device=dev)
    record.call("(x * w).sum().backward()", lambda: (x * w).sum().backward())
    record.grad("a.grad", a)
    record.grad("c.grad", c)
    record.grad("x.grad", x)


@scenario(
    id="inplace.inplace_on_view_of_nonleaf",
    rules=["I4", "I1"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def inplace_on_view_of_nonleaf(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    x = a * 1
    v = x[:2]
    record.tensor("v = x[:2]", v)
    record.call("v.mul_(s)", lambda: v.mul_(s))
    record.tensor("v after v.mul_(s)", v)
    record.tensor("x after v.mul_(s)", x)
    w = T.tensor(floats(rng, 4, -2, 2), device=dev)
    record.call("(x * w).sum().backward()", lambda: (x * w).sum().backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.inplace_on_views_2d",
    rules=["I4", "I1"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def inplace_on_views_2d(T, record, rng):
    dev = record.device
    m = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    c = T.tensor(float(rng.uniform(-2, 2)), requires_grad=True, device=dev)
    s = scalar(rng)
    x = m.clone()
    col = x[:, 0]
    record.call("col = x[:, 0]; col.mul_(s)", lambda: col.mul_(s))
    row = x.t()[1]
    record.call("row = x.t()[1]; row.add_(c)", lambda: row.add_(c))
    flat = x.view(-1)
    record.call("flat = x.view(-1); flat[4] = c * s", lambda: setitem(flat, 4, c * s))
    last = x[1]
    record.call("last = x[1]; last.relu_()", lambda: last.relu_())
    for name, t in [("col", col), ("row", row), ("flat", flat), ("last", last), ("x", x)]:
        record.tensor(name, t)
    w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    record.call("(x * w).sum().backward()", lambda: (x * w).sum().backward())
    record.grad("m.grad", m)
    record.grad("c.grad", c)


@scenario(
    id="inplace.index_put_on_nonleaf",
    rules=["I4"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def index_put_on_nonleaf(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 5, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    x = a * s
    idx = T.tensor(rng.choice(5, size=2, replace=False).tolist(), device=dev)
    record.call("x[idx] = 0.0 (index tensor)", lambda: setitem(x, idx, 0.0))
    record.tensor("x after x[idx] = 0.0", x)
    record.call("x[x > 0] = s (mask)", lambda: setitem(x, x > 0, s))
    record.tensor("x after x[x > 0] = s", x)
    w = T.tensor(floats(rng, 5, -2, 2), device=dev)
    record.call("(x * w).sum().backward()", lambda: (x * w).sum().backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.inplace_into_plain_tensor_joins_graph",
    rules=["I4", "I1"],
    topic="inplace",
    lecture=f"{LECTURE}#setitem-and-copyslices",
)
def inplace_into_plain_tensor_joins_graph(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    for label, step in [
        ("z.copy_(a)", lambda z: z.copy_(a)),
        ("z.add_(a)", lambda z: z.add_(a)),
        ("z += a", lambda z: iadd(z, a)),
        ("z.mul_(a)", lambda z: z.mul_(a)),
    ]:
        z = T.tensor(floats(rng, 3, -2, 2), device=dev)
        record.call(f"z = tensor(...); {label}", lambda z=z, step=step: step(z))
        record.tensor(f"z after {label}", z)
        w = T.tensor(floats(rng, 3, -2, 2), device=dev)
        record.call(f"backward through z after {label}", lambda z=z, w=w: (z * w).sum().backward())
        record.grad(f"a.grad after {label}", a)


# -- I5: views share memory, clone and some reshapes copy ------------------------------------


@scenario(
    id="inplace.views_share_memory",
    rules=["I5", "L2"],
    topic="inplace",
    lecture="course/01_tensors_memory.ipynb#indexing-and-views",
)
def views_share_memory(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    views = [
        ("a.view(6)", lambda: a.view(6)),
        ("a.view(3, -1)", lambda: a.view(3, -1)),
        ("a.view_as(a)", lambda: a.view_as(a)),
        ("a.reshape(6) (contiguous)", lambda: a.reshape(6)),
        ("a.flatten()", lambda: a.flatten()),
        ("a[0]", lambda: a[0]),
        ("a[:, 1]", lambda: a[:, 1]),
        ("a[0, 1]", lambda: a[0, 1]),
        ("a[1:]", lambda: a[1:]),
        ("a[:, 0:2]", lambda: a[:, 0:2]),
        ("a[None]", lambda: a[None]),
        ("a[..., None]", lambda: a[..., None]),
        ("a.t()", lambda: a.t()),
        ("a.T", lambda: a.T),
        ("a.transpose(0, 1)", lambda: a.transpose(0, 1)),
        ("a.permute(1, 0)", lambda: a.permute(1, 0)),
        ("a.unsqueeze(0)", lambda: a.unsqueeze(0)),
        ("a.unsqueeze(1)", lambda: a.unsqueeze(1)),
        ("a[0:1].squeeze(0)", lambda: a[0:1].squeeze(0)),
        ("a.unsqueeze(0).squeeze()", lambda: a.unsqueeze(0).squeeze()),
        ("a.expand(4, 2, 3)", lambda: a.expand(4, 2, 3)),
        ("a[:, 0:1].expand(2, 5)", lambda: a[:, 0:1].expand(2, 5)),
    ]
    for label, make in views:
        v = record.call(label, make)
        record.shares(f"{label} shares memory with a", v, a)


@scenario(
    id="inplace.writes_through_views",
    rules=["I5", "I1"],
    topic="inplace",
    lecture="course/01_tensors_memory.ipynb#indexing-and-views",
)
def writes_through_views(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, (3, 4), -2, 2), device=dev)
    s = scalar(rng)
    row = x[0, :]
    record.call("row = x[0, :]; row += s", lambda: iadd(row, s))
    record.tensor("x after row += s", x)
    flat = x.view(12)
    record.call("flat = x.view(12); x += s", lambda: iadd(x, s))
    record.tensor("flat after x += s", flat)
    tr = x.t()
    record.call("tr = x.t(); tr[3, 1] = s", lambda: setitem(tr, (3, 1), s))
    record.tensor("x after tr[3, 1] = s", x)
    perm = x.unsqueeze(0).permute(2, 0, 1)
    record.call("perm = x.unsqueeze(0).permute(2, 0, 1); perm[1].mul_(s)", lambda: perm[1].mul_(s))
    record.tensor("x after perm[1].mul_(s)", x)
    col = x[:, 2:3].squeeze(1)
    record.call("col = x[:, 2:3].squeeze(1); col.zero_()", lambda: col.zero_())
    record.tensor("x after col.zero_()", x)
    wide = x[1:2].expand(3, 4)
    record.tensor("wide = x[1:2].expand(3, 4)", wide)
    record.call("x[1] = s", lambda: setitem(x, 1, s))
    record.tensor("wide after x[1] = s", wide)


@scenario(
    id="inplace.clone_and_some_reshapes_copy",
    rules=["I5"],
    topic="inplace",
    lecture="course/01_tensors_memory.ipynb#clone-and-reshape",
)
def clone_and_some_reshapes_copy(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3), -2, 2), requires_grad=True, device=dev)
    copies = [
        ("a.clone()", lambda: a.clone()),
        ("a.t().reshape(6) (non-contiguous)", lambda: a.t().reshape(6)),
        ("a.t().flatten() (non-contiguous)", lambda: a.t().flatten()),
        ("a.t().contiguous()", lambda: a.t().contiguous()),
        ("a[T.tensor([0, 1])] (index tensor)", lambda: a[T.tensor([0, 1], device=dev)]),
        ("a[a > 0] (mask)", lambda: a[a > 0]),
    ]
    for label, make in copies:
        c = record.call(label, make)
        record.shares(f"{label} shares memory with a", c, a)
    record.same("a.contiguous() is a (already contiguous)", a.contiguous(), a)
    # the course's recipe for a real copy of a new shape: clone, then view
    x = T.tensor(floats(rng, (3, 4), -2, 2), device=dev)
    s = scalar(rng)
    x_cp = x.clone().view(12)
    x_view = x.view(12)
    record.call("x -= s", lambda: isub(x, s))
    record.tensor("x.clone().view(12) after x -= s", x_cp)
    record.tensor("x.view(12) after x -= s", x_view)
    record.tensor("x", x)


@scenario(
    id="inplace.clone_avoids_version_error",
    rules=["I5", "I2"],
    topic="inplace",
    lecture=f"{LECTURE}#clone-the-cure",
)
def clone_avoids_version_error(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)
    y = a.exp()
    c = y.clone()
    record.call("c = y.clone(); c.add_(s) after y = a.exp()", lambda: c.add_(s))
    record.tensor("c", c)
    record.tensor("y", y)
    record.call("(y.sum() + c.sum()).backward()", lambda: (y.sum() + c.sum()).backward())
    record.grad("a.grad", a)


@scenario(
    id="inplace.slice_of_parameter_shares_clone_does_not",
    rules=["I5", "L10"],
    topic="inplace",
    lecture=f"{LECTURE}#clone-the-cure",
)
def slice_of_parameter_shares_clone_does_not(T, record, rng):
    dev = record.device
    v1 = T.nn.Parameter(T.tensor(floats(rng, 10, 0.0, 1.0), device=dev))
    part = v1[:4]
    record.tensor("part = v1[:4]", part)
    record.call(
        "part.data.copy_(new values)",
        lambda: part.data.copy_(T.tensor(floats(rng, 4, -2, 2), device=dev)),
    )
    record.tensor("v1 after part.data.copy_", v1)
    v2 = T.nn.Parameter(T.tensor(floats(rng, 10, 0.0, 1.0), device=dev))
    copy = v2[:4].clone()
    record.tensor("copy = v2[:4].clone()", copy)
    record.call(
        "copy.data.copy_(new values)",
        lambda: copy.data.copy_(T.tensor(floats(rng, 4, -2, 2), device=dev)),
    )
    record.tensor("v2 after copy.data.copy_", v2)
    record.tensor("copy after copy.data.copy_", copy)


@scenario(
    id="inplace.in_place_into_a_leaf_that_needs_no_grad",
    rules=["I3", "I4"],
    topic="inplace",
    lecture=f"{LECTURE}#in-place-on-a-leaf",
)
def in_place_into_a_leaf_that_needs_no_grad(T, record, rng):
    # Only a leaf that requires grad (or a view of one that requires grad) is refused: a leaf
    # that needs none, or a view of it, may take in place a value that requires grad, and
    # becomes part of the graph (the view's base gets CopySlices).
    dev = record.device
    n = int(rng.integers(3, 6))
    k = int(rng.integers(1, n))
    w = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    a = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("a.mul_(w) (a needs no grad)", lambda: a.mul_(w))
    record.tensor("a after a.mul_(w)", a)
    b = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("b[:k].mul_(w[:k]) (a view of a leaf that needs no grad)",
                lambda: b[:k].mul_(w[:k]))  # fmt: skip
    record.tensor("b after b[:k].mul_(w[:k])", b)
    c = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("c[k:] = w[k:]", lambda: setitem(c, slice(k, None), w[k:]))
    record.tensor("c after c[k:] = w[k:]", c)
    v = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("backward through a, b and c",
                lambda: ((a + b + c) * v).sum().backward())  # fmt: skip
    record.grad("w.grad", w)
    leaf = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    record.call("leaf[:k].mul_(w[:k]) (a view of a leaf that requires grad)",
                lambda: leaf[:k].mul_(w[:k]))  # fmt: skip
