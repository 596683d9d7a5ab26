"""Scenarios: extending autograd with `autograd.Function` (rules X1-X4).

A custom operation written as PyTorch users write one (an exp that saves its output, a clamp
with a straight-through gradient, an op of two outputs), and each pitfall PyTorch's engine
catches: a backward returning the wrong number, kind or shape of gradients, a saved tensor
changed in place, an input returned as it is and then written into, `mark_dirty` on a leaf.
"""

from autograder.catalogue._data import floats, scalar
from autograder.scenarios import scenario

LECTURE = "course/08_extending_autograd.ipynb"


def _exp(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)  # the derivative of exp is its output
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    return Exp


def _returning(T, grads):
    """A Function of (x, k, w) computing x * k * w whose backward returns `grads(g)`."""

    class Scaled(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, w):
            return x * k * w

        @staticmethod
        def backward(ctx, g):
            return grads(T, g)

    return Scaled


@scenario(
    id="functions.exp_saving_its_output",
    rules=["X1"],
    topic="values",
    lecture=f"{LECTURE}#a-first-function",
    devices=["cpu"],
)
def exp_saving_its_output(T, record, rng):
    Exp = _exp(T)
    x = T.tensor(floats(rng, 3, -1, 1), requires_grad=True)
    h = x * 2
    y = record.call("Exp.apply(x * 2)", lambda: Exp.apply(h))
    record.value("grad_fn name", y.grad_fn.name())
    record.value("type name", type(y.grad_fn).__name__)
    record.value("needs_input_grad", y.grad_fn.needs_input_grad)
    record.value("next_functions", [type(n).__name__ for n, _ in y.grad_fn.next_functions])
    record.call("saved_tensors before backward", lambda: y.grad_fn.saved_tensors)
    w = T.tensor(floats(rng, 3, -2, 2))
    record.call("backward", lambda: (y * w).sum().backward())
    record.grad("x.grad", x)
    record.call("saved_tensors after backward", lambda: y.grad_fn.saved_tensors)
    record.call("second backward", lambda: (y * w).sum().backward())
    # retain_graph keeps them; the gradient matches the built-in exp
    x2 = T.tensor(floats(rng, (2, 2), -1, 1), requires_grad=True)
    y2 = Exp.apply(x2)
    record.call("backward retained", lambda: y2.sum().backward(retain_graph=True))
    record.call("backward again", lambda: y2.sum().backward())
    record.grad("x2.grad after two", x2)
    with T.no_grad():
        record.call("Exp.apply under no_grad", lambda: Exp.apply(x))
    record.call("Exp.apply of a plain tensor", lambda: Exp.apply(T.tensor([scalar(rng)])))


@scenario(
    id="functions.setup_context_style",
    rules=["X1"],
    topic="values",
    lecture=f"{LECTURE}#a-first-function",
    devices=["cpu"],
)
def setup_context_style(T, record, rng):
    class ScaledExp(T.autograd.Function):
        @staticmethod
        def forward(x, k=1.0):  # no ctx: setup_context fills it
            return (x * k).exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            calls.append((len(inputs), output.requires_grad))
            ctx.save_for_backward(output)
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y * ctx.k, None

    calls = []  # (how many inputs setup_context received, whether the output required grad)
    x = T.tensor(floats(rng, 3, -1, 1), requires_grad=True)
    y = record.call("ScaledExp.apply(x, k)", lambda: ScaledExp.apply(x, scalar(rng)))
    record.call("backward", lambda: y.sum().backward())
    record.grad("x.grad", x)
    record.call("saved_tensors after backward", lambda: y.grad_fn.saved_tensors)
    z = record.call("ScaledExp.apply(x), k by default", lambda: ScaledExp.apply(x))
    record.value("k by default", z.grad_fn.k)
    record.value("what setup_context received", calls)


@scenario(
    id="functions.straight_through_and_ctx",
    rules=["X1"],
    topic="values",
    lecture=f"{LECTURE}#a-straight-through-clamp",
    devices=["cpu"],
)
def straight_through_and_ctx(T, record, rng):
    class StraightThroughClamp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, low, high=1.0):
            ctx.bounds = (low, high)
            return x.clamp(low, high)

        @staticmethod
        def backward(ctx, g):
            return g, None, None  # the gradient passes as if clamp were the identity

    x = T.tensor(floats(rng, 4, -3, 3), requires_grad=True)
    y = record.call("clamp(x, -1)", lambda: StraightThroughClamp.apply(x, -1.0))
    record.value("ctx attribute", y.grad_fn.bounds)
    record.value("needs_input_grad", y.grad_fn.needs_input_grad)
    record.call("backward with a default argument", lambda: y.sum().backward())
    z = record.call("clamp(x, -1, high=0.5)", lambda: StraightThroughClamp.apply(x, -1.0, high=0.5))
    record.value("needs_input_grad with a keyword", z.grad_fn.needs_input_grad)
    record.call("backward with a keyword", lambda: (z * 2).sum().backward())
    record.grad("x.grad", x)

    class SplitMax(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax().view(1)
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(x, i)
            return x * 2, x.max().view(1), i, "note"

        @staticmethod
        def backward(ctx, g_double, g_max, g_index, g_note):
            x, i = ctx.saved_tensors
            record.call("gradients backward received", lambda: (g_double, g_max, g_index, g_note))
            g = g_double * 2
            g[i] += g_max[0]
            return g

    a = T.tensor(floats(rng, 3, -1, 1), requires_grad=True)
    outs = record.call("SplitMax.apply(a)", lambda: SplitMax.apply(a))
    record.value("one node", outs[0].grad_fn is outs[1].grad_fn)
    record.call("backward of the max only", lambda: outs[1].sum().backward())
    record.grad("a.grad", a)
    record.call("backward of the index", lambda: outs[2].sum().backward())


@scenario(
    id="functions.backward_return_checks",
    rules=["X2"],
    topic="values",
    lecture=f"{LECTURE}#what-backward-must-return",
    devices=["cpu"],
)
def backward_return_checks(T, record, rng):
    n = int(rng.integers(2, 5))
    cases = {
        "too few": lambda T, g: g,
        "too many": lambda T, g: (g, None, g, g),
        "trailing Nones": lambda T, g: (g, None, g * 2, None, None),
        "a gradient for the number": lambda T, g: (g, g, g),
        "a number for a tensor": lambda T, g: (1.0, None, g),
        "a wrong shape": lambda T, g: (g, None, T.ones(n + 1)),
        "a scalar": lambda T, g: (g.sum(), None, g),
        "a shape that broadcasts": lambda T, g: (g.expand(3, n), None, g.unsqueeze(0)),
        "float64": lambda T, g: (g.double(), None, g.double()),
        "None for both": lambda T, g: (None, None, None),
    }
    for label, grads in cases.items():
        x = T.tensor(floats(rng, n, -1, 1), requires_grad=True)
        w = T.tensor(floats(rng, n, -1, 1), requires_grad=True)
        y = _returning(T, grads).apply(x, scalar(rng), w)
        record.call(f"backward returning {label}", lambda y=y: y.sum().backward())
        record.grad(f"x.grad ({label})", x)
        record.grad(f"w.grad ({label})", w)


@scenario(
    id="functions.saved_tensor_changed_in_place",
    rules=["X3"],
    topic="values",
    lecture=f"{LECTURE}#pitfalls",
    devices=["cpu"],
)
def saved_tensor_changed_in_place(T, record, rng):
    Exp = _exp(T)
    x = T.tensor(floats(rng, 3, -1, 1), requires_grad=True)
    y = Exp.apply(x)
    record.call("y.mul_(2)", lambda: y.mul_(2))
    record.tensor("y", y)
    record.call("backward after the saved output changed", lambda: y.sum().backward())

    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    h = x + 1
    s = Square.apply(h)
    record.call("h.add_(1)", lambda: h.add_(1))
    record.call("backward after the saved input changed", lambda: s.sum().backward())
    leaf = T.tensor(floats(rng, 2, -1, 1), requires_grad=True)
    s2 = Square.apply(leaf)
    with T.no_grad():
        leaf.mul_(3)
    record.call("backward after the saved leaf changed", lambda: s2.sum().backward())
    s3 = Square.apply(T.tensor(floats(rng, 2, -1, 1), requires_grad=True))
    record.call("s3.grad_fn.saved_tensors", lambda: s3.grad_fn.saved_tensors)


@scenario(
    id="functions.returned_inputs_and_mark_dirty",
    rules=["X4"],
    topic="values",
    lecture=f"{LECTURE}#pitfalls",
    devices=["cpu"],
)
def returned_inputs_and_mark_dirty(T, record, rng):
    class Identity(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class DoubleInPlace(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    class Flatten(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2, -1)

    x = T.tensor(floats(rng, 4, -1, 1), requires_grad=True)
    h = x * 1
    y = record.call("Identity.apply(h)", lambda: Identity.apply(h))
    record.value("is h", y is h)
    record.shares("shares h", y, h)
    record.call("y.mul_(2)", lambda: y.mul_(2))
    record.call("h.mul_(2)", lambda: h.mul_(2))
    record.call("y.grad_fn after h changed", lambda: y.grad_fn)
    record.call("Identity.apply(leaf).add_(1)", lambda: Identity.apply(x).add_(1))
    record.call("DoubleInPlace.apply(leaf)", lambda: DoubleInPlace.apply(x))
    h2 = x * 1
    d = record.call("DoubleInPlace.apply(h2)", lambda: DoubleInPlace.apply(h2))
    record.value("returns h2 itself", d is h2)
    record.tensor("h2", h2)
    record.call("backward through the dirty input", lambda: h2.sum().backward())
    record.grad("x.grad", x)
    plain = T.tensor(floats(rng, 2, -1, 1))
    record.call("DoubleInPlace.apply(plain)", lambda: DoubleInPlace.apply(plain))
    record.tensor("plain", plain)
    m = T.tensor(floats(rng, (2, 3), -1, 1), requires_grad=True)
    f = record.call("Flatten.apply(m * 1)", lambda: Flatten.apply(m * 1))
    record.call("f.mul_(2)", lambda: f.mul_(2))

    class DirtyNotReturned(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    record.call("a dirty input not returned", lambda: DirtyNotReturned.apply(x * 1))


@scenario(
    id="functions.misuse_of_the_class",
    rules=["X1"],
    topic="values",
    lecture=f"{LECTURE}#a-first-function",
    devices=["cpu"],
)
def misuse_of_the_class(T, record, rng):
    Exp = _exp(T)
    x = T.tensor(floats(rng, 2, -1, 1), requires_grad=True)
    record.call("Exp()(x)", lambda: Exp()(x))

    class NoForward(T.autograd.Function):
        pass

    class NoBackward(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class SavesANumber(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 2)
            return x * 2

    record.call("NoForward.apply(x)", lambda: NoForward.apply(x))
    y = record.call("NoBackward.apply(x)", lambda: NoBackward.apply(x))
    record.call("backward without backward", lambda: y.sum().backward())
    record.call("save_for_backward(x, 2)", lambda: SavesANumber.apply(x))
