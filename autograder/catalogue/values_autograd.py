"""Scenarios: corners of the autograd machinery where a wrong engine is silently wrong or
words its refusals differently (fill_ with a tensor value, autograd.grad's unused inputs,
grad-mode decorators, tensor hooks, gradients at edge points).

Every value is drawn from the seed; gradients are taken against random weights `w`.
"""

from autograder.catalogue._data import floats, scalar
from autograder.scenarios import scenario

LEAF = "course/02_leaf_nodes.ipynb"
INPLACE = "course/04_inplace_versions.ipynb"
TENSORS = "course/01_tensors_memory.ipynb"


def _two_indices(rng, n):
    k, j = rng.choice(n, size=2, replace=False)
    return int(k), int(j)


# -- fill_ with a tensor value (N1, I4) -------------------------------------------------------


@scenario(
    id="values.fill_with_a_tensor_value",
    rules=["N1", "I4"],
    topic="values",
    lecture=f"{INPLACE}#setitem-and-copyslices",
)
def fill_with_a_tensor_value(T, record, rng):
    # A 0-d tensor value is an input of the graph (FillBackward3): it gets the sum of the
    # gradient; the overwritten elements get none. A Python number is not (FillBackward2).
    dev = record.device
    n = int(rng.integers(2, 5))
    k, j = _two_indices(rng, n)
    s = scalar(rng)
    a = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    w = T.tensor(floats(rng, (n,), -2, 2), device=dev)

    v = T.zeros(n, device=dev)
    record.call("v = zeros; v.fill_(a[k])", lambda: v.fill_(a[k]))
    record.call("backward through the filled fresh tensor", lambda: (v * w).sum().backward())
    record.grad("a.grad: the weights' sum at k", a)
    a.grad = None

    x = a * s
    record.call("x = a * s; x.fill_(a[j])", lambda: x.fill_(a[j]))
    record.call("backward through the filled non-leaf", lambda: (x * w).sum().backward())
    record.grad("a.grad: nothing through the overwritten x", a)
    a.grad = None

    # through a view of a non-leaf: CopySlices on the base, AsStridedBackward0 on the view
    b = T.tensor(floats(rng, (2, n), -2, 2), requires_grad=True, device=dev)
    c = T.tensor(scalar(rng, -2, 2), requires_grad=True, device=dev)
    y = b * s
    row = int(rng.integers(0, 2))
    view = y[row]
    record.call("y = b * s; y[row].fill_(c)", lambda: view.fill_(c))
    record.tensor("y after filling a row", y)
    record.tensor("the filled row", view)
    w2 = T.tensor(floats(rng, (2, n), -2, 2), device=dev)
    record.call("backward through the filled row", lambda: (y * w2).sum().backward())
    record.grad("b.grad: the other row only", b)
    record.grad("c.grad: the filled row's weights summed", c)

    # a tensor value that does not require grad still makes FillBackward3; a number does not
    x2 = a * s
    record.call("x.fill_(tensor without grad)", lambda: x2.fill_(T.tensor(s, device=dev)))
    x3 = a * s
    record.call("x.fill_(python float)", lambda: x3.fill_(scalar(rng)))

    # a float64 value filled into float32: its gradient comes back in float64
    d = T.tensor(scalar(rng), dtype=T.float64, requires_grad=True, device=dev)
    v2 = T.zeros(n, device=dev)
    record.call("float32 v.fill_(float64 value)", lambda: v2.fill_(d))
    record.call("backward to the float64 value", lambda: (v2 * w).sum().backward())
    record.grad("d.grad in float64", d)

    # refusals: values of other dimensions, and the leaf itself (unchanged by the fill)
    m = int(rng.integers(1, 4))
    vec = T.tensor(floats(rng, (m,)), device=dev)
    record.call("fill_ with a 1-D value", lambda: T.zeros(n, device=dev).fill_(vec))
    mat = T.tensor(floats(rng, (1, m)), device=dev)
    record.call("fill_ with a 2-D value", lambda: T.zeros(n, device=dev).fill_(mat))
    record.call("a.fill_(a[k]) on the leaf", lambda: a.fill_(a[k]))
    record.tensor("the leaf after the refused fill", a)


# -- autograd.grad with an input the graph does not use (L6) -----------------------------------


@scenario(
    id="values.autograd_grad_names_the_unused_input",
    rules=["L6"],
    topic="values",
    lecture=f"{LEAF}#backward-errors",
)
def autograd_grad_names_the_unused_input(T, record, rng):
    dev = record.device
    n = int(rng.integers(3, 6))
    xs = [T.tensor(floats(rng, (2,), -2, 2), requires_grad=True, device=dev) for _ in range(n)]
    ws = [scalar(rng, -2, 2) for _ in range(n)]

    def out(skip):
        return sum((x * w).sum() for i, (x, w) in enumerate(zip(xs, ws)) if i not in skip)

    unused = int(rng.integers(0, n))
    y = out({unused})
    record.call("grad with one unused input", lambda: T.autograd.grad(y, xs, retain_graph=True))
    record.call(
        "the same with allow_unused=True",
        lambda: T.autograd.grad(y, xs, retain_graph=True, allow_unused=True),
    )
    k, j = _two_indices(rng, n)
    y2 = out({k, j})
    record.call("grad with two unused inputs: the first is named", lambda: T.autograd.grad(y2, xs))
    z = xs[0] * scalar(rng)  # a non-leaf input no path reaches
    y3 = out(set())
    record.call("grad with an unused non-leaf input", lambda: T.autograd.grad(y3, [*xs, z]))


# -- no_grad and enable_grad as decorators without parentheses (N1) ----------------------------


@scenario(
    id="values.grad_mode_decorators_without_parentheses",
    rules=["N1"],
    topic="values",
    lecture=f"{LEAF}#no-grad",
)
def grad_mode_decorators_without_parentheses(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (3,), -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)

    @T.no_grad
    def scaled(x):
        return x * s

    @T.enable_grad
    def scaled_with_grad(x):
        return x * s

    @T.no_grad()
    def scaled_with_parentheses(x):
        return x * s

    record.call("@T.no_grad: nothing recorded", lambda: scaled(a))
    record.value("@T.no_grad keeps the function's name", scaled.__name__)
    record.call("grad mode after the decorated call", T.is_grad_enabled)

    def inside_no_grad():
        with T.no_grad():
            return scaled_with_grad(a)

    record.call("@T.enable_grad inside no_grad(): recorded", inside_no_grad)
    record.call("@T.no_grad(): nothing recorded", lambda: scaled_with_parentheses(a))
    flag = int(rng.integers(0, 2))
    try:
        record.call("T.set_grad_enabled(int)", lambda: T.set_grad_enabled(flag))
        record.call("grad mode after the refused call", T.is_grad_enabled)
    finally:
        T.set_grad_enabled(True)


# -- tensor hooks that change the gradient, and an assigned non-leaf .grad (N1) -----------------


def _double(g):
    return g.double()


@scenario(
    id="values.hooks_that_change_the_gradient",
    rules=["N1"],
    topic="values",
    lecture=f"{LEAF}#retain-grad",
)
def hooks_that_change_the_gradient(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    s = scalar(rng)
    k = int(rng.integers(2, 5))
    m = int(rng.integers(1, n))
    w = T.tensor(floats(rng, (n,), -2, 2), device=dev)

    def case(label, hook, on_leaf=False):
        a = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
        y = a * s
        handle = (a if on_leaf else y).register_hook(hook)
        record.call(f"backward, {label}", lambda: (y * w).sum().backward())
        record.grad(f"a.grad, {label}", a)
        return handle

    case("hook scaling the gradient", lambda g: g * k)
    case("hook returning None", lambda g: None)
    case("hook changing the dtype", lambda g: g.double())
    case("named hook changing the dtype on the leaf", _double, on_leaf=True)
    case("hook changing the size", lambda g: g[:m])
    case("hook returning a number", lambda g: k)
    handle = case("hook on the leaf scaling by k", lambda g: g * k, on_leaf=True)
    record.value("type of the handle", type(handle).__name__)
    a = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    handle = a.register_hook(lambda g: g * k)
    handle.remove()
    record.call("backward after handle.remove()", lambda: (a * w).sum().backward())
    record.grad("a.grad without the removed hook", a)

    # a non-leaf's .grad warns only while it is unset
    y = a * s
    record.grad("y.grad of a non-leaf, unset", y)
    y.grad = T.tensor(floats(rng, (n,)), device=dev)
    record.grad("y.grad after assigning it", y)
    y.grad = None
    record.grad("y.grad after setting it back to None", y)


# -- gradients at edge points (N1) -------------------------------------------------------------


def _shuffled(rng, values):
    return [values[i] for i in rng.permutation(len(values))]


@scenario(
    id="values.gradients_at_edge_points",
    rules=["N1"],
    topic="values",
    lecture=f"{TENSORS}#operations-and-in-place",
)
def gradients_at_edge_points(T, record, rng):
    dev = record.device
    nan = float("nan")
    pos, neg = scalar(rng), -scalar(rng)
    w = T.tensor(floats(rng, (4,), 0.5, 2), device=dev)

    # 0 ** t: no gradient where t >= 0, result * log(0) (-inf) where t < 0
    exps = _shuffled(rng, [pos, 0.0, neg, scalar(rng, 0.1, 0.9)])
    for base in (0, 0.0):
        t = T.tensor(exps, requires_grad=True, device=dev)
        y = record.call(f"{base!r} ** t", lambda t=t, base=base: base**t)
        record.call(f"backward of {base!r} ** t", lambda y=y: (y * w).sum().backward())
        record.grad(f"t.grad of {base!r} ** t", t)

    # relu lets the gradient through at NaN (result <= 0 is false); abs gives it 0 there
    with_nan = _shuffled(rng, [nan, pos, neg, scalar(rng, -2, 2)])
    cases = [
        ("x.relu()", lambda x: x.relu()),
        ("F.relu(x)", lambda x: T.nn.functional.relu(x)),
        ("x.abs()", lambda x: x.abs()),
        ("x.clamp(min=lo)", lambda x: x.clamp(min=neg)),
        ("x.max()", lambda x: x.max()),
        ("x.min()", lambda x: x.min()),
    ]
    for label, f in cases:
        x = T.tensor(with_nan, requires_grad=True, device=dev)
        y = record.call(f"{label} with a NaN", lambda f=f, x=x: f(x))
        g = w if y is not None and y.dim() else w[0]
        record.call(f"backward of {label} with a NaN", lambda y=y, g=g: (y * g).sum().backward())
        record.grad(f"x.grad of {label} with a NaN", x)

    # two NaNs share the gradient of max()
    two_nans = _shuffled(rng, [nan, nan, pos, neg])
    x = T.tensor(two_nans, requires_grad=True, device=dev)
    record.call("backward of x.max() with two NaNs", lambda: (x.max() * pos).backward())
    record.grad("x.grad of x.max() with two NaNs", x)

    # -0. stays -0. through relu and clamp (PyTorch keeps x unless it lies beyond the bound).
    # On CPU only: CUDA's kernels may return either zero.
    if dev == "cpu":
        z = T.tensor(_shuffled(rng, [-0.0, 0.0, pos, neg]), device=dev)
        record.call("relu keeps -0.", lambda: z.relu())
        record.call("clamp(min=0) keeps -0.", lambda: z.clamp(min=0))
        record.call("clamp(max=0) keeps -0.", lambda: z.clamp(max=0))
        record.call("relu of float64 -0.", lambda: z.double().relu())
