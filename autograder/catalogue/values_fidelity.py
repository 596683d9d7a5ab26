"""Scenarios: where a wrong engine silently computes wrong numbers or runs the wrong part of the
graph (roots sharing a node, backward's `inputs`, autograd.grad through an intermediate, a module
registered twice, an explicit device index, ...).

Every value is drawn from the seed; gradients are taken against random weights `w`.
"""

import numpy as np

from autograder.catalogue._data import floats, ints, scalar
from autograder.scenarios import scenario

LEAF = "course/02_leaf_nodes.ipynb"
INPLACE = "course/04_inplace_versions.ipynb"
DEVICES = "course/06_devices.ipynb"
NUMPY = "course/03_detach_numpy.ipynb"
CAPSTONE = "course/07_capstone.ipynb"


# -- several backward roots on one node (L3, L8) ---------------------------------------------


@scenario(
    id="values.backward_roots_sharing_a_node",
    rules=["L3", "L8"],
    topic="values",
    lecture=f"{LEAF}#accumulate-and-zero",
)
def backward_roots_sharing_a_node(T, record, rng):
    # Each node runs once, with every root's gradient summed into it: the same tensor twice,
    # or several outputs of one unbind, all reach the leaf.
    dev = record.device
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    a = x * scalar(rng)
    g1 = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    g2 = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("backward([a, a], [g1, g2])", lambda: T.autograd.backward([a, a], [g1, g2]))
    record.grad("x.grad: both gradients", x)

    x.grad = None
    parts = (x * scalar(rng)).unbind(0)
    k, j = (int(i) for i in rng.choice(n, size=2, replace=False))
    gk = T.tensor(scalar(rng, -2, 2), device=dev)
    gj = T.tensor(scalar(rng, -2, 2), device=dev)
    record.call(
        "backward of two unbind outputs",
        lambda: T.autograd.backward([parts[k], parts[j]], [gk, gj]),
    )
    record.grad("x.grad: two entries filled", x)

    # the same root given with a later node of its own graph
    b = x.exp()
    c = (b * scalar(rng)).sum()
    gb = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("backward([c, b]) with b below c", lambda: T.autograd.backward([c, b], [None, gb]))
    record.grad("x.grad accumulates both", x)


# -- backward(inputs=...) (L3, L6, L7) --------------------------------------------------------


@scenario(
    id="values.backward_inputs_restricts_accumulation",
    rules=["L3", "L6", "L7"],
    topic="values",
    lecture=f"{LEAF}#backward-errors",
)
def backward_inputs_restricts_accumulation(T, record, rng):
    # Only the tensors named in `inputs` get gradients; branches that lead to none of them are
    # not run (their saved tensors survive, their hooks stay silent).
    dev = record.device
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    w = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    y = (x * w).sum()
    record.call("y.backward(inputs=[x])", lambda: y.backward(inputs=[x], retain_graph=True))
    record.grad("x.grad", x)
    record.grad("w.grad stays None", w)
    record.call("y.backward(inputs=w) (a tensor)", lambda: y.backward(inputs=w))
    record.grad("w.grad after inputs=w", w)
    record.grad("x.grad unchanged", x)

    x.grad = w.grad = None
    y = (x * w).sum()
    record.call("autograd.backward(y, inputs=(w,))", lambda: T.autograd.backward(y, inputs=(w,)))
    record.grad("x.grad stays None", x)
    record.grad("w.grad after inputs=(w,)", w)

    # a non-leaf input keeps its gradient (it is made to retain it)
    h = x * scalar(rng)
    k = x.exp()
    calls = []
    k.register_hook(lambda g: calls.append("k"))
    out = (h.exp() * w + k).sum()
    record.call("out.backward(inputs=[h])", lambda: out.backward(inputs=[h]))
    record.tensor("h after backward(inputs=[h])", h)
    record.grad("h.grad", h)
    record.grad("x.grad: not an input", x)
    record.value("hooks called on other branches", calls)
    record.call("k's branch was not run: backward again works", lambda: k.sum().backward())
    record.grad("x.grad through k only", x)

    # refusals, in PyTorch's order
    y = (x * w).sum()
    record.call("backward(inputs=[])", lambda: y.backward(inputs=[]))
    record.call("autograd.backward(y, inputs=[])", lambda: T.autograd.backward(y, inputs=[]))
    plain = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("an input without grad", lambda: y.backward(inputs=[plain], retain_graph=True))
    record.call("a number as input", lambda: y.backward(inputs=[scalar(rng)], retain_graph=True))
    record.call("a 0-d tensor as inputs", lambda: y.backward(inputs=x.sum()))
    unused = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    record.call("an input the graph never reaches", lambda: y.backward(inputs=[unused]))
    record.grad("its grad stays None", unused)
    record.call("y's graph was not run: backward works", lambda: y.backward())


# -- autograd.grad through intermediates, running only what it needs (L6, L7) ----------------


@scenario(
    id="values.autograd_grad_runs_only_what_it_needs",
    rules=["L6", "L7"],
    topic="values",
    lecture=f"{LEAF}#backward-errors",
)
def autograd_grad_runs_only_what_it_needs(T, record, rng):
    dev = record.device
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -1, 1), requires_grad=True, device=dev)
    w = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    h = x * w
    y = (h * h).sum()
    record.call("grad(y, [x, h]): h lies on x's path", lambda: T.autograd.grad(y, [x, h]))
    h = x * w
    y = (h.exp() * scalar(rng)).sum()
    record.call("grad(y, [h, x]) in the other order", lambda: T.autograd.grad(y, [h, x]))

    # two outputs of one node as inputs: each gets its own gradient
    parts = (x * w).unbind(0)
    k, j = (int(i) for i in rng.choice(n, size=2, replace=False))
    ck, cj = scalar(rng, -2, 2), scalar(rng, -2, 2)
    z = parts[k] * ck + parts[j].exp() * cj
    record.call("grad(z, [parts[k], parts[j]])", lambda: T.autograd.grad(z, [parts[k], parts[j]]))

    # grad to one branch leaves the other branch's saved tensors in place
    a = x * scalar(rng)
    b = x * scalar(rng)
    out = (a.exp() + b.exp() * w).sum()
    record.call("grad(out, [a])", lambda: T.autograd.grad(out, [a]))
    record.call("then grad(out, [b]): b's branch is intact", lambda: T.autograd.grad(out, [b]))
    record.call("then out.backward(): a's branch was freed", lambda: out.backward())
    record.grad("x.grad after the failed backward", x)

    # an output that is the only requested input is not run, nor freed
    e = x.exp()
    g = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("grad(e, [e], g)", lambda: T.autograd.grad(e, [e], g))
    record.call("then e.backward(g)", lambda: e.backward(g))
    record.grad("x.grad after e.backward", x)
    x.grad = None
    e2 = x.exp()
    record.call(
        "grad(e2, [w]) with w unused",
        lambda: T.autograd.grad(e2, [w], g, allow_unused=True),
    )
    record.call("then e2.backward(g): e2's node was not run", lambda: e2.backward(g))
    record.grad("x.grad after e2.backward", x)


# -- a module registered twice (N1, L8) -------------------------------------------------------


def _set_linear(T, lin, rng, n, dev):
    with T.no_grad():
        lin.weight.copy_(T.tensor(floats(rng, (n, n), -1, 1), device=dev))
        lin.bias.copy_(T.tensor(floats(rng, (n,), -1, 1), device=dev))


@scenario(
    id="values.module_registered_twice",
    rules=["N1", "L8"],
    topic="values",
    lecture=f"{CAPSTONE}#training-loop",
)
def module_registered_twice(T, record, rng):
    # parameters(), named_parameters(), modules() and children() visit a shared module or
    # parameter once, under its first name, so SGD steps it once; state_dict keeps every name.
    dev = record.device
    n = int(rng.integers(2, 4))
    lin = T.nn.Linear(n, n, device=dev)
    _set_linear(T, lin, rng, n, dev)
    net = T.nn.Sequential(lin, T.nn.ReLU(), lin)
    record.value("len(parameters())", len(list(net.parameters())))
    record.value("named_parameters names", [k for k, _ in net.named_parameters()])
    record.value("named_modules names", [k for k, _ in net.named_modules()])
    record.value("len(modules())", len(list(net.modules())))
    record.value("len(children())", len(list(net.children())))
    record.value("named_children names", [k for k, _ in net.named_children()])
    record.value("state_dict keys", list(net.state_dict().keys()))

    lr = scalar(rng, 0.05, 0.2)
    opt = T.optim.SGD(net.parameters(), lr=lr)
    x = T.tensor(floats(rng, (3, n), -1, 1), device=dev)
    target = T.tensor(floats(rng, (3, n), -1, 1), device=dev)
    for step in range(2):
        opt.zero_grad()
        loss = ((net(x) - target) ** 2).mean()
        record.call(f"step {step}: backward", lambda loss=loss: loss.backward())
        record.grad(f"step {step}: weight.grad, both uses summed", lin.weight)
        record.call(f"step {step}: opt.step()", opt.step)
        record.tensor(f"step {step}: weight after one SGD step", lin.weight)
        record.tensor(f"step {step}: bias after one SGD step", lin.bias)

    class Twice(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = T.nn.Parameter(T.tensor(floats(rng, (n,), 0.5, 2), device=dev))
            self.also_scale = self.scale
            self.first = lin
            self.second = lin

        def forward(self, x):
            return self.second(self.first(x) * self.scale) * self.also_scale

    m = Twice()
    record.value("attribute pairs: named_parameters", [k for k, _ in m.named_parameters()])
    record.value("attribute pairs: named_modules", [k for k, _ in m.named_modules()])
    record.value("attribute pairs: state_dict keys", list(m.state_dict().keys()))
    opt = T.optim.SGD(m.parameters(), lr=lr)
    opt.zero_grad()
    record.call("backward through Twice", lambda: m(x).sum().backward())
    record.call("SGD step on Twice", opt.step)
    record.tensor("scale after one step", m.scale)
    record.tensor("shared weight after one step", lin.weight)


# -- to() with an explicit CPU index (V1, V2) -------------------------------------------------


@scenario(
    id="values.to_cpu_with_an_index_copies",
    rules=["V1", "V2"],
    topic="values",  # not graded by the devices exercise, whose engine predates it
    lecture=f"{DEVICES}#to-returns-self-or-a-copy",
    devices=("cpu",),
)
def to_cpu_with_an_index_copies(T, record, rng):
    # A CPU tensor's device carries no index, and to() compares the request as written:
    # "cpu" and device("cpu") return the tensor itself, "cpu:0" and device("cpu", 0) copy.
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True)
    spellings = [
        ("'cpu'", lambda: x.to("cpu")),
        ("device('cpu')", lambda: x.to(T.device("cpu"))),
        ("'cpu:0'", lambda: x.to("cpu:0")),
        ("device('cpu', 0)", lambda: x.to(T.device("cpu", 0))),
        ("device('cpu:0')", lambda: x.to(T.device("cpu:0"))),
        ("device='cpu:0'", lambda: x.to(device="cpu:0")),
        ("'cpu:0', float32", lambda: x.to("cpu:0", T.float32)),
        (".cpu()", lambda: x.cpu()),
    ]
    for name, move in spellings:
        y = record.call(f"x.to({name})", move)
        record.same(f"x.to({name}) is x", y, x)
    y = x.to("cpu:0")
    w = T.tensor(floats(rng, (n,), -2, 2))
    record.call("backward through the cpu:0 copy", lambda: (y * w).sum().backward())
    record.grad("x.grad through ToCopyBackward0", x)
    with T.no_grad():
        y.add_(scalar(rng))
    record.tensor("x unchanged by an edit of the copy", x)
    plain = T.tensor(floats(rng, (n,), -2, 2))
    z = plain.to("cpu:0")
    record.same("a plain tensor copied too", z, plain)
    record.tensor("the plain copy", z)


# -- hooks on an output that gets no gradient (L3) ---------------------------------------------


@scenario(
    id="values.hook_on_an_output_without_gradient",
    rules=["L3"],
    topic="values",
    lecture=f"{LEAF}#retain-grad",
)
def hook_on_an_output_without_gradient(T, record, rng):
    # unbind's node runs when one of its outputs is used; the hooks of the unused outputs are
    # called with None (before later-registered ones), and may not return a tensor for it.
    dev = record.device
    n = int(rng.integers(3, 5))
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    parts = (x * scalar(rng)).unbind(0)
    k, j = (int(i) for i in rng.choice(n, size=2, replace=False))
    calls = []
    parts[j].register_hook(lambda g: calls.append(("unused", None if g is None else g.tolist())))
    parts[k].register_hook(lambda g: calls.append(("used", None if g is None else g.tolist())))
    parts[j].retain_grad()
    c = scalar(rng, -2, 2)
    record.call("backward of one output times c", lambda: (parts[k] * c).backward())
    record.value("hook calls in order", calls)
    record.grad("the unused output's retained grad", parts[j])
    record.grad("x.grad", x)

    parts = (x * scalar(rng)).unbind(0)
    parts[j].register_hook(lambda g: T.ones((), device=dev))
    record.call("a hook that answers None with a tensor", lambda: parts[k].backward())


# -- retain_grad() then an in-place change (L4, I4) -------------------------------------------


@scenario(
    id="values.retain_grad_follows_inplace",
    rules=["L4", "I4"],
    topic="values",
    lecture=f"{LEAF}#retain-grad",
)
def retain_grad_follows_inplace(T, record, rng):
    # .grad of a retained tensor is the gradient of its current version: retain_grad moves to
    # the new grad_fn after an in-place op (also one through a view of it); hooks do not.
    dev = record.device
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    w = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    cases = [
        ("y.mul_(s)", lambda y: y.mul_(scalar(rng))),
        ("y.add_(s); y.mul_(s)", lambda y: y.add_(scalar(rng)).mul_(scalar(rng))),
        ("y[0] = s", lambda y: y.__setitem__(0, scalar(rng))),
        ("y[1:].mul_(s) through a view", lambda y: y[1:].mul_(scalar(rng))),
    ]
    for name, change in cases:
        x.grad = None
        y = x * scalar(rng)
        y.retain_grad()
        calls = []
        y.register_hook(lambda g, calls=calls: calls.append(g.tolist()))
        record.call(name, lambda y=y, change=change: change(y))
        record.call(f"{name}: backward", lambda y=y: (y * w).sum().backward())
        record.grad(f"{name}: y.grad", y)
        record.grad(f"{name}: x.grad", x)
        record.value(f"{name}: the hook saw the old version's gradient", calls)
    # a retained view changed in place: its old node is off the new path, .grad stays None
    y = x * scalar(rng)
    v = y[1:]
    v.retain_grad()
    v.mul_(scalar(rng))
    record.call("retained view changed in place: backward", lambda: (y * w).sum().backward())
    record.grad("the view's .grad", v)


# -- grad-mode decorators on generator functions (L9) ------------------------------------------


@scenario(
    id="values.grad_mode_decorators_on_generators",
    rules=["L9"],
    topic="values",
    lecture=f"{LEAF}#no-grad",
)
def grad_mode_decorators_on_generators(T, record, rng):
    # The mode holds inside the generator's body on every resume, and the caller's mode holds
    # between yields.
    dev = record.device
    x = T.tensor(floats(rng, (2,), -2, 2), requires_grad=True, device=dev)
    s = scalar(rng)

    def body():
        for _ in range(2):
            y = x * s
            yield (T.is_grad_enabled(), y.requires_grad, y.tolist())

    decorated = [
        ("@no_grad()", T.no_grad()(body), None),
        ("@no_grad", T.no_grad(body), None),
        ("@set_grad_enabled(False)", T.set_grad_enabled(False)(body), None),
        ("@enable_grad() called under no_grad", T.enable_grad()(body), T.no_grad),
    ]
    for name, gen_fn, outer in decorated:
        seen = []
        if outer is None:
            for item in gen_fn():
                seen.append((item, T.is_grad_enabled(), (x * s).requires_grad))
        else:
            with outer():
                for item in gen_fn():
                    seen.append((item, T.is_grad_enabled(), (x * s).requires_grad))
        record.value(f"{name}: inside, then outside, at each step", seen)


# -- Python ints outside a dtype's range (N1, N2) ---------------------------------------------


@scenario(
    id="values.python_ints_outside_the_dtype_range",
    rules=["N1", "N2"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#dtypes-and-promotion",
)
def python_ints_outside_the_dtype_range(T, record, rng):
    # A Python int operand becomes an int64 Scalar (uint64 from 2**63 up) and is then cast to
    # an integer tensor's dtype keeping its low bits: int32 + 2**40 adds 0, and compares
    # against 0. Past uint64, or below int64, the conversion itself raises OverflowError.
    dev = record.device
    n = int(rng.integers(2, 5))
    for dname, dtype in (("int32", T.int32), ("int64", T.int64)):
        a = T.tensor(ints(rng, (n,), -50, 50), dtype=dtype, device=dev)
        for big in (2**40, 2**31, 2**63):
            v = big + int(rng.integers(-3, 4))
            name = f"{dname} with 2**{big.bit_length() - 1}{v - big:+d}"
            record.call(f"{name}: a + v", lambda a=a, v=v: a + v)
            record.call(f"{name}: a - v", lambda a=a, v=v: a - v)
            record.call(f"{name}: v - a", lambda a=a, v=v: v - a)
            record.call(f"{name}: a * v", lambda a=a, v=v: a * v)
            record.call(f"{name}: a == v", lambda a=a, v=v: a == v)
            record.call(f"{name}: a < v", lambda a=a, v=v: a < v)
            record.call(f"{name}: a >= v", lambda a=a, v=v: a >= v)
            record.call(f"{name}: a.clone().add_(v)", lambda a=a, v=v: a.clone().add_(v))
        record.call(f"{dname} + -(2**63) - 1", lambda a=a: a + (-(2**63) - 1))
        record.call(f"{dname} + 2**64", lambda a=a: a + 2**64 + int(rng.integers(0, 5)))
    x = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("float32 + 2**63 (read as uint64)", lambda: x + 2**63)


# -- views made before base.requires_grad_() (I3) ----------------------------------------------


@scenario(
    id="values.view_made_before_requires_grad",
    rules=["I3", "L5"],
    topic="values",
    lecture=f"{INPLACE}#in-place-on-a-leaf",
)
def view_made_before_requires_grad(T, record, rng):
    # A view requires grad when its base does, whenever it was made; it stays a leaf without
    # an accumulator of its own, and an in-place op on it is refused as on any view of a leaf.
    dev = record.device
    n = int(rng.integers(3, 6))
    base = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    k = int(rng.integers(1, n))
    v = base[:k]
    w = base.view(1, n)
    vv = v[: max(k - 1, 1)]
    base.requires_grad_()
    record.tensor("v = base[:k] made before requires_grad_()", v)
    record.tensor("a view of v", vv)
    s = scalar(rng)
    record.call("v * s", lambda: v * s)
    record.call("v.mul_(s)", lambda: v.mul_(s))
    record.call("w.add_(s) (base.view)", lambda: w.add_(s))
    record.call("vv.add_(s) (a view of a view)", lambda: vv.add_(s))
    record.call("v[0] = s", lambda: v.__setitem__(0, s))
    record.call("v.requires_grad = False", lambda: setattr(v, "requires_grad", False))
    record.tensor("v after requires_grad = False", v)
    record.call("(v * s).sum().backward()", lambda: (v * s).sum().backward())
    record.grad("base.grad: the view has no path to it", base)
    record.call("v.retain_grad()", lambda: v.retain_grad())
    with T.no_grad():
        record.call("v.mul_(s) under no_grad", lambda: v.mul_(s))
    record.tensor("v after the untracked write", v)
    record.tensor("base after the untracked write", base)

    # a view that asked for grad itself, of a base that does not
    other = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    u = other[1:]
    record.call("u.requires_grad_()", lambda: u.requires_grad_())
    record.tensor("other", other)
    record.call("u.add_(s)", lambda: u.add_(s))
    record.call("u[:1].add_(s)", lambda: u[:1].add_(s))
    # a plain view written with a tensor that requires grad
    plain = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    g = T.tensor(floats(rng, (n - 1,), -2, 2), requires_grad=True, device=dev)
    p = plain[1:]
    record.call("plain[1:].add_(g)", lambda: p.add_(g))
    record.tensor("plain after", plain)


# -- views made under no_grad, then written (I3, I4) --------------------------------------------


@scenario(
    id="values.no_grad_view_written_in_place",
    rules=["I3", "I4"],
    topic="values",
    lecture=f"{INPLACE}#in-place-on-a-leaf",
)
def no_grad_view_written_in_place(T, record, rng):
    # A view made under no_grad is marked: written in place with grad mode on it is refused;
    # written under no_grad (itself, its base or another view) it can no longer be used in
    # autograd, and its repr shows grad_fn=<Invalid>. Multi-output views are marked likewise.
    dev = record.device
    n = int(rng.integers(3, 6))
    s = scalar(rng)
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    cases = [("of a leaf", lambda: x), ("of a non-leaf", lambda: x * s)]
    for name, make in cases:
        y = make()
        with T.no_grad():
            v = y[1:]
        record.tensor(f"{name}: the no_grad view", v)
        record.call(f"{name}: v * s", lambda v=v: v * s)
        record.call(f"{name}: v.add_(s)", lambda v=v: v.add_(s))
        record.call(f"{name}: v[0] = s", lambda v=v: v.__setitem__(0, s))
        vv = v[:1]
        record.tensor(f"{name}: a view of it made with grad", vv)
        record.call(f"{name}: vv.add_(s)", lambda vv=vv: vv.add_(s))
        with T.no_grad():
            v.mul_(s)
        record.tensor(f"{name}: v after a no_grad write", v)
        record.value(f"{name}: v.requires_grad", v.requires_grad)
        record.call(f"{name}: v.grad_fn", lambda v=v: v.grad_fn)
        record.call(f"{name}: v.is_leaf", lambda v=v: v.is_leaf)
        record.call(f"{name}: v * s after", lambda v=v: v * s)
        record.call(f"{name}: v.sum().backward()", lambda v=v: v.sum().backward())
        record.call(
            f"{name}: v.requires_grad = False", lambda v=v: setattr(v, "requires_grad", False)
        )
    # the base written with grad on, or another view written under no_grad
    y = x * s
    with T.no_grad():
        v = y[:2]
    y.add_(s)
    record.tensor("base written with grad mode on", v)
    y = x * s
    with T.no_grad():
        v = y[:2]
        y[1:].mul_(s)
    record.tensor("another view written under no_grad", v)
    # a view made with grad mode on is rebuilt instead
    y = x * s
    v = y[:2]
    with T.no_grad():
        y.add_(s)
    record.tensor("a normal view after a no_grad write", v)
    # marked although its base did not require grad yet
    z = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    with T.no_grad():
        zv = z[:1]
        zv.add_(s)
    record.tensor("no_grad view of a plain tensor", zv)
    z.requires_grad_()
    record.tensor("... after z.requires_grad_()", zv)
    record.call("... zv * s", lambda: zv * s)
    # written with a tensor that requires grad
    q = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    g = T.tensor(floats(rng, (n - 1,), -2, 2), requires_grad=True, device=dev)
    with T.no_grad():
        qv = q[1:]
    record.call("no_grad view of a plain tensor .add_(g)", lambda: qv.add_(g))
    # outputs of unbind
    y = x.view(1, n) * s
    parts = y.unbind(0)
    record.call("parts[0].add_(s)", lambda: parts[0].add_(s))
    y.mul_(s)
    record.tensor("parts[0] after its base was written", parts[0])
    record.call("parts[0] * s", lambda: parts[0] * s)
    plain_parts = T.tensor(floats(rng, (2, n), -2, 2), device=dev).unbind(0)
    gn = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    record.call("plain unbind output .add_(g)", lambda: plain_parts[1].add_(gn))
    record.call("plain unbind output .add_(s)", lambda: plain_parts[1].add_(s))


# -- Python numbers an op converts to the tensor's dtype (N1, N2) ------------------------------


@scenario(
    id="values.scalar_arguments_checked_against_the_dtype",
    rules=["N1", "N2"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#dtypes-and-promotion",
)
def scalar_arguments_checked_against_the_dtype(T, record, rng):
    # fill_, clamp, __setitem__, full, pow, alpha and where convert a Python number to the
    # dtype and refuse one it cannot hold (naming the C++ type); __setitem__ and tensor() read
    # an int as a C long long first. Binary operators wrap instead (see the scenario above).
    dev = record.device
    n = int(rng.integers(2, 5))
    for dname, dtype in (("int32", T.int32), ("int64", T.int64), ("float32", T.float32)):
        a = T.tensor(ints(rng, (n,), 1, 9), dtype=dtype, device=dev)
        for big in (2**31, 2**40, 2**63, 2**64):
            v = big + int(rng.integers(0, 4))
            name = f"{dname} with 2**{big.bit_length() - 1}+{v - big}"
            record.call(f"{name}: fill_", lambda a=a, v=v: a.clone().fill_(v))
            record.call(f"{name}: fill_(-v)", lambda a=a, v=v: a.clone().fill_(-v))
            record.call(f"{name}: clamp(max=v)", lambda a=a, v=v: a.clamp(max=v))
            record.call(f"{name}: clamp(min=-v)", lambda a=a, v=v: a.clamp(min=-v))
            record.call(f"{name}: a[0] = v", lambda a=a, v=v: a.clone().__setitem__(0, v))
            record.call(f"{name}: full", lambda dtype=dtype, v=v: T.full((n,), v, dtype=dtype))
            record.call(f"{name}: a ** v", lambda a=a, v=v: a**v)
            record.call(f"{name}: add(alpha=v)", lambda a=a, v=v: a.add(a, alpha=v))
            record.call(f"{name}: sub_(alpha=v)", lambda a=a, v=v: a.clone().sub_(a, alpha=v))
            record.call(f"{name}: where(c, a, v)", lambda a=a, v=v: T.where(a > 4, a, v))
            record.call(f"{name}: a * v", lambda a=a, v=v: a * v)
        f = float(rng.uniform(1e39, 1e40))
        record.call(f"{dname}: fill_(1e39)", lambda a=a, f=f: a.clone().fill_(f))
        record.call(f"{dname}: a[0] = 1e39", lambda a=a, f=f: a.clone().__setitem__(0, f))
        record.call(f"{dname}: full 1e39", lambda dtype=dtype, f=f: T.full((n,), f, dtype=dtype))
        record.call(f"{dname}: fill_(inf)", lambda a=a: a.clone().fill_(float("inf")))
        record.call(f"{dname}: add(alpha=2.5)", lambda a=a: a.add(a, alpha=2.5))
    record.call("full(2**63) infers int64", lambda: T.full((n,), 2**63))
    record.call("tensor([2**63])", lambda: T.tensor([2**63 + int(rng.integers(0, 4))]))
    record.call("tensor([-(2**63) - 1])", lambda: T.tensor([-(2**63) - 1]))
    b = T.tensor([bool(i) for i in rng.integers(0, 2, size=n)], device=dev)
    record.call("bool + 2**63", lambda: b + 2**63)
    record.call("bool + 2**64", lambda: b + 2**64)
    record.call("bool ** 2**63", lambda: b ** (2**63))
    record.call("bool.fill_(2**63)", lambda: b.clone().fill_(2**63))
    record.call("full(2**63, dtype=bool)", lambda: T.full((n,), 2**63, dtype=T.bool))
    record.call("bool.add(alpha=2**63)", lambda: b.add(b, alpha=2**63))
    x = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    record.call("float32 * 2**64", lambda: x * 2**64)
    record.call("float32 - -(2**63) - 1", lambda: x - (-(2**63) - 1))


@scenario(
    id="values.half_and_bool_with_numbers_out_of_range",
    rules=["N1", "N2"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#dtypes-and-promotion",
)
def half_and_bool_with_numbers_out_of_range(T, record, rng):
    # float16 arithmetic computes in float and rounds once (inf), while the ops that convert
    # the number to half (fill_, full, clamp, pow) refuse it; NumPy numbers count as the
    # Python numbers they hold. bool promotes, refuses a uint64 number, and reads it first.
    # Integer true division divides by the number itself; a NaN bound makes clamp NaN.
    dev = record.device
    n = int(rng.integers(2, 4))
    h = T.tensor(floats(rng, (n,), 1, 3), dtype=T.float16, device=dev)
    for v in (float(rng.uniform(7e4, 1e6)), int(rng.integers(70000, 10**6)), 2**40, 1e40):
        for label, x in ((repr(v), v), (f"np.float64({v!r})", np.float64(v))):
            record.call(f"half + {label}", lambda x=x: h + x)
            record.call(f"half * {label}", lambda x=x: h * x)
            record.call(f"half ** {label}", lambda x=x: h**x)
            record.call(f"half.fill_({label})", lambda x=x: h.clone().fill_(x))
            record.call(f"full({label}, half)", lambda x=x: T.full((n,), x, dtype=T.float16))
            record.call(f"half.clamp(max={label})", lambda x=x: h.clamp(max=x))
            record.call(f"where(c, half, {label})", lambda x=x: T.where(h > 2, h, x))
            record.call(f"half[0] = {label}", lambda x=x: h.clone().__setitem__(0, x))
            record.call(f"tensor([{label}], half)", lambda x=x: T.tensor([x], dtype=T.float16))
    b = T.tensor([bool(i) for i in rng.integers(0, 2, size=n)], device=dev)
    for v in (2**40, 2**63 + int(rng.integers(0, 4)), 2**64, 1e40):
        record.call(f"bool + {v!r}", lambda v=v: b + v)
        record.call(f"bool - {v!r}", lambda v=v: b - v)
        record.call(f"{v!r} - bool", lambda v=v: v - b)
        record.call(f"bool.clamp(max={v!r})", lambda v=v: b.clamp(max=v))
        record.call(f"where(c, bool, {v!r})", lambda v=v: T.where(b, b, v))
    record.call("bool.clamp(min=True)", lambda: b.clamp(min=True))
    record.call("bool.clamp(False, True)", lambda: b.clamp(False, True))
    i = T.tensor(ints(rng, (n,), 1, 9), device=dev)
    for name, dtype in (("int32", T.int32), ("int64", T.int64)):
        for v in (2**31 + int(rng.integers(0, 4)), 2**40, 2**63, -(2**63)):
            record.call(f"{name} / {v}", lambda dtype=dtype, v=v: i.to(dtype) / v)
            record.call(f"{name} ** {-v}", lambda dtype=dtype, v=v: i.to(dtype) ** -v)
        record.call(f"tensor([nan], {name})",
                    lambda dtype=dtype: T.tensor([float("nan")], dtype=dtype))  # fmt: skip
    x = T.tensor(floats(rng, (n,), -2, 2), requires_grad=True, device=dev)
    y = record.call("x.clamp(max=nan)", lambda: x.clamp(max=float("nan")))
    record.call("its backward", lambda: y.sum().backward())
    record.grad("x.grad through a NaN bound", x)
    record.call("int.clamp(min=nan)", lambda: i.clamp(min=float("nan")))


# -- // and % on integer tensors (N1) ----------------------------------------------------------


@scenario(
    id="values.floor_divide_and_remainder",
    rules=["N1", "N2"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#dtypes-and-promotion",
)
def floor_divide_and_remainder(T, record, rng):
    # Python's rounding and signs (toward -inf, the divisor's sign); an integer division by
    # zero raises, a float one gives inf or nan.
    dev = record.device
    n = int(rng.integers(3, 6))
    a = T.tensor(ints(rng, (n,), -20, 21), device=dev)
    b = T.tensor([v if v else 3 for v in ints(rng, (n,), -5, 6)], device=dev)
    k = int(rng.choice([-3, -2, 2, 3, 7]))
    record.call("a // k", lambda: a // k)
    record.call("a % k", lambda: a % k)
    record.call("a // b", lambda: a // b)
    record.call("a % b", lambda: a % b)
    record.call("int32 // k", lambda: a.to(T.int32) // k)
    record.call("int32 % b", lambda: a.to(T.int32) % b)
    record.call("k // b", lambda: k // b)
    record.call("k % b", lambda: k % b)
    record.call("a // 0", lambda: a // 0)
    record.call("a % 0", lambda: a % 0)
    record.call("k % a (a may hold 0)", lambda: k % T.cat([a, T.zeros(1, dtype=T.int64)]))
    f = scalar(rng, 1.5, 3.0)
    record.call("a // f", lambda: a // f)
    record.call("a % f", lambda: a % f)
    x = T.tensor(floats(rng, (n,), -5, 5), device=dev)
    record.call("x // k", lambda: x // k)
    record.call("x % k", lambda: x % k)
    record.call("x // 0", lambda: x // 0)
    # A float remainder is fmod moved by the divisor where the signs differ: a zero keeps
    # fmod's sign (0. % -2.5 is 0., not -0.), and a number too large for float32 is -inf.
    b = T.tensor([bool(v) for v in rng.integers(0, 2, size=n)] + [True, False], device=dev)
    for v in (-1e40, 1e40, -(10.0 ** int(rng.integers(20, 30))), -f, float("-inf")):
        record.call(f"bool % {v!r}", lambda v=v: b % v)
        record.call(f"int % {v!r}", lambda v=v: a % v)
        record.call(f"{v!r} % x", lambda v=v: v % x)
    record.call("x.half() % -1e20", lambda: x.half() % -1e20)
    record.call("x % -f", lambda: x % -f)
    y = x.clone()
    record.call("y %= -f", lambda: y.__imod__(-f))


@scenario(
    id="values.floor_divide_and_remainder_gradients",
    rules=["L2", "N1"],
    topic="values",
    lecture="course/01_tensors_memory.ipynb#dtypes-and-promotion",
)
def floor_divide_and_remainder_gradients(T, record, rng):
    # % has a derivative (1 for the dividend, -floor(a / b) for a tensor divisor); // and
    # `number % tensor` have none: PyTorch records a NotImplemented node that fails at backward.
    dev = record.device
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -6, 6), requires_grad=True, device=dev)
    signs = rng.choice([-1.0, 1.0], size=n).tolist()
    y = T.tensor([v * s for v, s in zip(floats(rng, (n,), 1, 3), signs)], requires_grad=True,
                 device=dev)  # fmt: skip
    w = T.tensor(floats(rng, (n,), -2, 2), device=dev)
    k = scalar(rng, 1.5, 3.0)
    r = record.call("x % k", lambda: x % k)
    record.call("(x % k) backward", lambda: (r * w).sum().backward())
    record.grad("x.grad through x % k", x)
    x.grad = None
    r = record.call("x % y", lambda: x % y)
    record.call("(x % y) backward", lambda: (r * w).sum().backward())
    record.grad("x.grad through x % y", x)
    record.grad("y.grad through x % y", y)
    x.grad = y.grad = None
    r = record.call("x % y.detach()", lambda: x % y.detach())
    record.value("saved other when y needs no grad", r.grad_fn._saved_other)
    ints_ = T.tensor([v if v else 2 for v in ints(rng, (n,), -9, 10)], device=dev)
    r = record.call("int tensor % y", lambda: ints_ % y)
    record.call("(int % y) backward", lambda: (r * w).sum().backward())
    record.grad("y.grad through int % y", y)
    for label, f in (("x // k", lambda: x // k), ("x // y", lambda: x // y),
                     ("k // x", lambda: k // x), ("k % x", lambda: k % x),
                     ("x.detach() // y", lambda: x.detach() // y)):  # fmt: skip
        out = record.call(label, f)
        if out is not None and out.grad_fn is not None:
            record.value(f"{label}: grad_fn.name()", out.grad_fn.name())
            record.value(f"{label}: edges", len(out.grad_fn.next_functions))
            record.call(f"{label}: backward", lambda out=out: out.sum().backward())
    h = x * 1
    r = h % y
    record.call("h.add_(1) after h % y", lambda: h.add_(1))
    record.call("backward through the stale h", lambda: r.sum().backward())
    b = T.tensor([True, False], device=dev)
    record.call("bool % bool", lambda: b % b)
    record.call("bool // True", lambda: b // True)
    with T.no_grad():
        record.call("x // k under no_grad", lambda: x // k)


# -- arguments as PyTorch's parser reads them: device strings, dtypes, axis= -----------------


@scenario(id="values.device_strings_and_dtype_arguments", rules=["V1", "N2"], topic="values",
          lecture=f"{DEVICES}#to-returns-self-or-a-copy", devices=("cpu",))  # fmt: skip
def device_strings_and_dtype_arguments(T, record, rng):
    x = T.tensor(floats(rng, (2, 3)))
    record.tensor("x", x)
    for text in ("gpu", "CUDA", "cuda:", "cuda:x", "cuda:-1", "cuda:01", "cuda:0:1", " cpu"):
        record.call(f"device({text!r})", lambda text=text: T.device(text))
    record.call("device('cpu:1')", lambda: T.device("cpu:1"))
    record.call("device('cpu', -1)", lambda: T.device("cpu", -1))
    record.call("x.to('gpu')", lambda: x.to("gpu"))
    # to() reads a number given first as the dtype of the number (not as dtype=), an int
    # (a NumPy one too) as a device index; type() takes no number at all.
    f = scalar(rng)
    for label, arg in ((f"{f}", f), ("True", True), ("np.float32(f)", np.float32(f)),
                       ("np.bool_(True)", np.bool_(True))):  # fmt: skip
        record.call(f"x.to({label})", lambda arg=arg: x.to(arg))
        record.call(f"x.to({label}, True, True)", lambda arg=arg: x.to(arg, True, True))
        record.call(f"x.to(dtype={label})", lambda arg=arg: x.to(dtype=arg))
        record.call(f"x.to('cpu', {label})", lambda arg=arg: x.to("cpu", arg))
    record.call("x.to(f, T.float32)", lambda: x.to(f, T.float32))
    record.call("x.to(f, non_blocking=1)", lambda: x.to(f, non_blocking=1))
    record.call("x.to(-1)", lambda: x.to(-1))
    record.call("x.to(np.int64(0))", lambda: x.to(np.int64(0)))
    record.call("x.type(f)", lambda: x.type(f))
    for label, kind in (("float", float), ("int", int), ("bool", bool)):
        record.call(f"zeros(2, dtype={label})", lambda kind=kind: T.zeros(2, dtype=kind))
        record.call(f"tensor(x.tolist(), dtype={label})",
                    lambda kind=kind: T.tensor(x.tolist(), dtype=kind))  # fmt: skip
    for label, kind in (("np.float32", np.float32), ("'float32'", "float32")):
        for factory in ("zeros", "ones", "empty"):
            record.call(f"{factory}(2, dtype={label})",
                        lambda f=factory, kind=kind: getattr(T, f)(2, dtype=kind))  # fmt: skip
        record.call(f"tensor([1.0], dtype={label})", lambda kind=kind: T.tensor([1.0], dtype=kind))
        record.call(f"full((2,), 1.0, dtype={label})",
                    lambda kind=kind: T.full((2,), 1.0, dtype=kind))  # fmt: skip
    record.call("x.sum(axis=1)", lambda: x.sum(axis=1))
    for reduction in ("sum", "mean", "max", "min", "argmax", "argmin"):
        record.call(f"x.{reduction}(axis=1, dim=1)",
                    lambda r=reduction: getattr(x, r)(axis=1, dim=1))  # fmt: skip
        record.call(f"x.{reduction}(keepdim=True, keepdims=True)",
                    lambda r=reduction: getattr(x, r)(keepdim=True, keepdims=True))  # fmt: skip
        if reduction not in ("max", "min"):  # theirs: an argument-parser text, not matched yet
            both = f"x.{reduction}(1, keepdim=True, keepdims=True)"
            record.call(both, lambda r=reduction: getattr(x, r)(1, keepdim=True, keepdims=True))
        record.call(f"x.{reduction}(1, keepdims=True)",
                    lambda r=reduction: getattr(x, r)(1, keepdims=True))  # fmt: skip


@scenario(id="values.tensors_meet_numpy_arrays", rules=["D1", "N1", "N2"], topic="values",
          lecture=f"{NUMPY}#numpy-has-no-graph", devices=("cpu",))  # fmt: skip
def tensors_meet_numpy_arrays(T, record, rng):
    # An operator NumPy answers goes through its ufunc (the tensor read by __array__, the
    # result wrapped back as a tensor, a bool one as uint8); `==` alone reads the array as a
    # tensor; the tensor's own methods refuse an array.
    n = int(rng.integers(2, 4))
    x = T.tensor(floats(rng, (n, n), -2, 2))
    a = np.asarray(floats(rng, (n, n), -2, 2))
    a32 = a.astype(np.float32)
    record.call("x @ a", lambda: x @ a)
    record.call("a @ x", lambda: a @ x)
    record.call("x @ a32", lambda: x @ a32)
    record.call("x @ a[0]", lambda: x @ a[0])
    record.call("x + a", lambda: x + a)
    record.call("a * x", lambda: a * x)
    same = a32.copy()
    same[0] = x[0].tolist()
    record.call("x == a32 (a row in common)", lambda: x == same)
    record.call("a32 == x", lambda: same == x)
    record.call("x == a (float64)", lambda: x == a)
    record.call("x != a32", lambda: x != same)
    record.call("x < a32", lambda: x < same)
    record.call("ints == int array", lambda: T.tensor([1, 2]) == np.array([1, 3]))
    record.call("x[0] == a (broadcast mismatch)", lambda: T.ones(n + 1) == a)
    record.call("np.isnan(x)", lambda: np.isnan(x))
    record.call("np.greater(x, 0)", lambda: np.greater(x, 0))
    b = x > 0
    record.call("np.logical_not(b)", lambda: np.logical_not(b))
    record.call("np.add(b, b)", lambda: np.add(b, b))
    record.call("np.add(b, 1)", lambda: np.add(b, 1))
    record.call("np.exp(b)", lambda: np.exp(b))
    u = record.call("np.isnan(x) + 1", lambda: np.isnan(x) + 1)
    record.call("u + 300 (uint8 wraps)", lambda: u + 300 if u is not None else None)
    g = T.tensor(floats(rng, (n, n), -2, 2), requires_grad=True)
    record.call("g @ a (requires grad)", lambda: g @ a)
    record.call("g == a", lambda: g == a)
    for name in ("add", "mul", "matmul", "eq", "lt", "pow", "maximum"):
        record.call(f"x.{name}(a)", lambda name=name: getattr(x, name)(a))
    record.call("add(x, a)", lambda: T.add(x, a))
    record.call("np.sum(x)", lambda: np.sum(x))
    record.call("np.mean(x)", lambda: np.mean(x))
    record.call("np.max(x)", lambda: np.max(x))


@scenario(id="values.argument_parser_texts", rules=["N1"], topic="values",
          lecture="course/01_tensors_memory.ipynb#creating-tensors")  # fmt: skip
def argument_parser_texts(T, record, rng):
    # A call no signature of the method takes is refused in the words of PyTorch's parser:
    # missing or extra arguments, one argument of the wrong type (a single plausible
    # signature), or the whole list of signatures with why each did not match.
    x = T.tensor(floats(rng, (2, 3)), device=record.device)
    k = int(rng.integers(0, 2))
    f = scalar(rng)
    calls = {
        "x.transpose()": lambda: x.transpose(),
        "x.transpose(k)": lambda: x.transpose(k),
        "x.transpose(0, 1, k)": lambda: x.transpose(0, 1, k),
        "x.transpose(f, 1)": lambda: x.transpose(f, 1),
        "x.transpose(True, 1)": lambda: x.transpose(True, 1),
        "x.transpose(dim0=0, dim1=1)": lambda: x.transpose(dim0=0, dim1=1),
        "x.view(size=(3, 2))": lambda: x.view(size=(3, 2)),
        "x.reshape(shape=(6,))": lambda: x.reshape(shape=(6,)),
        "x.permute(dims=(1, 0))": lambda: x.permute(dims=(1, 0)),
        "x.unsqueeze(axis=k)": lambda: x.unsqueeze(axis=k),
        "x.flatten(start=0)": lambda: x.flatten(start=0),
        "x.view(3.0, 2)": lambda: x.view(3.0, 2),
        "x.view((3.0, 2))": lambda: x.view((3.0, 2)),
        "x.view()": lambda: x.view(),
        "x.view(3, 'a')": lambda: x.view(3, "a"),
        "x.view(x.shape, 1)": lambda: x.view(x.shape, 1),
        "x.view(None)": lambda: x.view(None),
        "x.reshape()": lambda: x.reshape(),
        "x.reshape(3.0, 2)": lambda: x.reshape(3.0, 2),
        "x.reshape(6, dim=k)": lambda: x.reshape(6, dim=k),
        "x.permute()": lambda: x.permute(),
        "x.permute(1.0, 0)": lambda: x.permute(1.0, 0),
        "x.unsqueeze()": lambda: x.unsqueeze(),
        "x.unsqueeze(f)": lambda: x.unsqueeze(f),
        "x.squeeze('a')": lambda: x.squeeze("a"),
        "x.squeeze(dim=None)": lambda: x.squeeze(dim=None),
        "x.expand()": lambda: x.expand(),
        "x.flatten(0, 1, k)": lambda: x.flatten(0, 1, k),
        "x.repeat(f)": lambda: x.repeat(f),
        "x.sum('a')": lambda: x.sum("a"),
        "x.sum(dim='a')": lambda: x.sum(dim="a"),
        "x.sum(0, 'a')": lambda: x.sum(0, "a"),
        "x.sum(0, 1, k)": lambda: x.sum(0, 1, k),
        "x.mean(f)": lambda: x.mean(f),
        "x.mean(0, keepdim=1)": lambda: x.mean(0, keepdim=1),
        "x.max(0, 1, k)": lambda: x.max(0, 1, k),
        "x.argmax('a')": lambda: x.argmax("a"),
        "x.add()": lambda: x.add(),
        "x.add(x, x)": lambda: x.add(x, x),
        "x.add(x, alpha='a')": lambda: x.add(x, alpha="a"),
        "x.add(other=x, zz=1)": lambda: x.add(other=x, zz=1),
        "x.mul('a')": lambda: x.mul("a"),
        "x.div(x, 'floor')": lambda: x.div(x, "floor"),
        "x.div(x, rounding_mode=1)": lambda: x.div(x, rounding_mode=1),
        "x.gt(x, x)": lambda: x.gt(x, x),
        "x.mm()": lambda: x.mm(),
        "x.dot([f])": lambda: x.dot([f]),
        "x.fill_('a')": lambda: x.clone().fill_("a"),
        "x.copy_()": lambda: x.clone().copy_(),
        "x.narrow(0, 0)": lambda: x.narrow(0, 0),
        "x.chunk(f)": lambda: x.chunk(f),
        "x.softmax()": lambda: x.softmax(),
        "x.new_ones(f)": lambda: x.new_ones(f),
        "x.size('a')": lambda: x.size("a"),
        "x.requires_grad_(1)": lambda: x.requires_grad_(1),
        "x.clamp('a')": lambda: x.clamp("a"),
        "x.clamp(min=x, max=1)": lambda: x.clamp(min=x, max=1),
        "x.to('cpu', 'a')": lambda: x.to("cpu", "a"),
        "x.to(float)": lambda: x.to(float),
        "x.to(np.float32)": lambda: x.to(np.float32),
        "x.to(device='cpu', zz=1)": lambda: x.to(device="cpu", zz=1),
        "x.float(1)": lambda: x.float(1),
        "x.clone(zz=1)": lambda: x.clone(zz=1),
        "x.numpy(force=1)": lambda: x.cpu().numpy(force=1),
        "Tensor([f], requires_grad=True)": lambda: T.Tensor([f], requires_grad=True),
        "Tensor([f], dtype=float32)": lambda: T.Tensor([f], dtype=T.float32),
        "Tensor(f, 3)": lambda: T.Tensor(f, 3),
        "Tensor('a')": lambda: T.Tensor("a"),
        "sum(x, dim='a')": lambda: T.sum(x, dim="a"),
        "sum(x, 0, 'a')": lambda: T.sum(x, 0, "a"),
        "max(x, keepdim=True)": lambda: T.max(x, keepdim=True),
        "min(x, dim=None)": lambda: T.min(x, dim=None),
        "clamp(x, min=x, max=1)": lambda: T.clamp(x, min=x, max=1),
        "exp(x, k)": lambda: T.exp(x, k),
        "exp([f])": lambda: T.exp([f]),
        "argmax(x, 'a')": lambda: T.argmax(x, "a"),
        "mm(x)": lambda: T.mm(x),
        "chunk(x, f)": lambda: T.chunk(x, f),
        # a float dim out of range: the parser's type refusal comes before the range check
        "x.softmax(f + 2)": lambda: x.softmax(f + 2),
        "x.size(f + 2)": lambda: x.size(f + 2),
        "x.max(f + 2)": lambda: x.max(f + 2),
        "x.argmax(f + 2)": lambda: x.argmax(f + 2),
        "x.sum(f + 2)": lambda: x.sum(f + 2),
        "x.unsqueeze(f + 3)": lambda: x.unsqueeze(f + 3),
        "sum(x, f + 2)": lambda: T.sum(x, f + 2),
        "argmax(x, f + 2)": lambda: T.argmax(x, f + 2),
        "cat([x], f + 2)": lambda: T.cat([x], f + 2),
        "stack([x], f + 3)": lambda: T.stack([x], f + 3),
        "stack([x], dim=f + 3)": lambda: T.stack([x], dim=f + 3),
    }
    for label, call in calls.items():
        record.call(label, call)


@scenario(id="values.factory_argument_parser_texts", rules=["N1"], topic="values",
          lecture="course/01_tensors_memory.ipynb#creating-tensors", devices=("cpu",))  # fmt: skip
def factory_argument_parser_texts(T, record, rng):
    # The factories and stack/cat/where/pow are bound by PyTorch's parser too: a wrong type,
    # a missing or unknown argument, or no overload that fits is refused in its words (one
    # plausible signature explains itself, several are listed), and the calls its
    # signatures take (size=, randint(high, size=), arange(end=)) work.
    n = int(rng.integers(2, 4))
    f = scalar(rng, 1.5, 3.0)
    x = T.tensor(floats(rng, (n,)))
    calls = {
        "zeros(n, f)": lambda: T.zeros(n, f),
        "zeros((n,), dtype='float32')": lambda: T.zeros((n,), dtype="float32"),
        "zeros(n, size=n)": lambda: T.zeros(n, size=n),
        "zeros(n, zz=1)": lambda: T.zeros(n, zz=1),
        "zeros(n, requires_grad=1)": lambda: T.zeros(n, requires_grad=1),
        "zeros(n, requires_grad=None)": lambda: T.zeros(n, requires_grad=None),
        "zeros(n, out=None, layout=None, pin_memory=False)": lambda: T.zeros(
            n, out=None, layout=None, pin_memory=False
        ),
        "ones(size=f)": lambda: T.ones(size=f),
        "ones(size=(n,))": lambda: T.ones(size=(n,)),
        "ones(n, device=f)": lambda: T.ones(n, device=f),
        "empty(n, dtype=n)": lambda: T.empty(n, dtype=n).shape,
        "rand(n, dtype='a')": lambda: T.rand(n, dtype="a"),
        "randn(n, generator=1)": lambda: T.randn(n, generator=1),
        "full((n,))": lambda: T.full((n,)),
        "full((n,), 'a')": lambda: T.full((n,), "a"),
        "full((n,), x)": lambda: T.full((n,), x),
        "full(size=(n,), fill_value=f)": lambda: T.full(size=(n,), fill_value=f),
        "randint(n)": lambda: T.randint(n),
        "randint(n, f)": lambda: T.randint(n, f),
        "randint(f, (n,))": lambda: T.randint(f, (n,)),
        "randint(0, n, (n,), 3)": lambda: T.randint(0, n, (n,), 3),
        "randint(n, (n,), zz=1)": lambda: T.randint(n, (n,), zz=1),
        "randint(high=n, size=(n,)).shape": lambda: T.randint(high=n, size=(n,)).shape,
        "arange()": lambda: T.arange(),
        "arange('a')": lambda: T.arange("a"),
        "arange(1, 2, 3, 4)": lambda: T.arange(1, 2, 3, 4),
        "arange(n, dtype='int')": lambda: T.arange(n, dtype="int"),
        "arange(end=n)": lambda: T.arange(end=n),
        "arange(start=1, end=n)": lambda: T.arange(start=1, end=n),
        "eye()": lambda: T.eye(),
        "eye(n, f)": lambda: T.eye(n, f),
        "eye(n, zz=1)": lambda: T.eye(n, zz=1),
        "tensor()": lambda: T.tensor(),
        "tensor([f], n)": lambda: T.tensor([f], n),
        "tensor([f], zz=1)": lambda: T.tensor([f], zz=1),
        "tensor([f], requires_grad=None)": lambda: T.tensor([f], requires_grad=None),
        "zeros_like()": lambda: T.zeros_like(),
        "zeros_like([f])": lambda: T.zeros_like([f]),
        "ones_like(x, zz=1)": lambda: T.ones_like(x, zz=1),
        "ones_like(x, dtype='a')": lambda: T.ones_like(x, dtype="a"),
        "rand_like(n)": lambda: T.rand_like(n),
        "randn_like(x, dtype=n)": lambda: T.randn_like(x, dtype=n),
        "linspace()": lambda: T.linspace(),
        "linspace(0, f, n, zz=1)": lambda: T.linspace(0, f, n, zz=1),
        "linspace('a', f, n)": lambda: T.linspace("a", f, n),
        "where()": lambda: T.where(),
        "where(n)": lambda: T.where(n),
        "where(x > 0, n)": lambda: T.where(x > 0, n),
        "where(x > 0, 'a', n)": lambda: T.where(x > 0, "a", n),
        "where([True], n, f)": lambda: T.where([True], n, f),
        "pow()": lambda: T.pow(),
        "pow(x)": lambda: T.pow(x),
        "pow('a', n)": lambda: T.pow("a", n),
        "pow(x, 'a')": lambda: T.pow(x, "a"),
        "pow(n, n)": lambda: T.pow(n, n),
        "stack(x)": lambda: T.stack(x),
        "stack()": lambda: T.stack(),
        "stack([x], f)": lambda: T.stack([x], f),
        "stack(n)": lambda: T.stack(n),
        "stack([x], dim=None)": lambda: T.stack([x], dim=None),
        "stack([x], zz=1)": lambda: T.stack([x], zz=1),
        "cat(x)": lambda: T.cat(x),
        "cat([x], 'a')": lambda: T.cat([x], "a"),
        "cat(n)": lambda: T.cat(n),
        "cat(tensors=[x], dim=0)": lambda: T.cat(tensors=[x], dim=0),
    }
    for label, call in calls.items():
        record.call(label, call)


@scenario(id="values.numpy_ufuncs_on_tensors", rules=["D1", "N1"], topic="values",
          lecture=f"{NUMPY}#numpy-has-no-graph", devices=("cpu",))  # fmt: skip
def numpy_ufuncs_on_tensors(T, record, rng):
    x = T.tensor(floats(rng, (2, 3)))
    y = record.call("np.exp(x)", lambda: np.exp(x))
    record.call("np.add(x, k)", lambda: np.add(x, scalar(rng)))
    record.call("np.sqrt(x)", lambda: np.sqrt(x))
    if y is not None and not isinstance(y, np.ndarray):
        record.call("y.add_(1) (a tensor on the ufunc's own memory)", lambda: y.add_(1))
    g = T.tensor(floats(rng, 3), requires_grad=True)
    record.call("np.exp(g) (requires grad)", lambda: np.exp(g))
    with T.no_grad():
        record.call("np.exp(g) under no_grad", lambda: np.exp(g))


@scenario(
    id="values.floor_divide_and_remainder_in_place",
    rules=["I1", "I3"],
    topic="values",
    lecture="course/04_inplace_versions.ipynb#in-place-on-a-leaf",
)
def floor_divide_and_remainder_in_place(T, record, rng):
    # y //= k and y %= k write in place (Python only falls back to y = y // k when the type
    # has no __ifloordiv__): the version counts, a leaf that requires grad refuses, and the
    # recorded node is the in-place op's.
    dev = record.device
    n = int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n,), -6, 6), requires_grad=True, device=dev)
    k = scalar(rng, 1.5, 3.0)
    y = x * 1

    def remainder_in_place():
        nonlocal y
        y %= k
        return y

    alias = y
    record.call("y %= k", remainder_in_place)
    record.value("y is still the same tensor", y is alias)
    record.tensor("y after %=", y)
    record.call("backward through y %= k", lambda: y.sum().backward())
    record.grad("x.grad through y %= k", x)
    z = x * 1

    def floor_in_place():
        nonlocal z
        z //= k
        return z

    record.call("z //= k", floor_in_place)
    record.call("backward through z //= k", lambda: z.sum().backward())
    i = T.tensor(ints(rng, (n,), -9, 10), device=dev)
    record.call("i.floor_divide_(3)", lambda: i.floor_divide_(3))
    record.call("i.remainder_(-4)", lambda: i.remainder_(-4))
    record.value("i._version", i._version)

    def leaf_in_place():
        nonlocal x
        x //= k

    record.call("leaf //= k", leaf_in_place)
