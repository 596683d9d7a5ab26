"""Scenarios: leaf nodes, requires_grad, .grad, backward errors, accumulation, no_grad, .data
(rules L1-L13), with the pitfalls of the leaf-node source documents."""

import numpy as np

from autograder.catalogue._data import floats, ints, scalar
from autograder.catalogue._statements import isub, setitem
from autograder.scenarios import scenario

LECTURE = "course/02_leaf_nodes.ipynb"


def _leaf(T, record, rng, shape=3, requires_grad=True):
    return T.tensor(floats(rng, shape), requires_grad=requires_grad, device=record.device)


def _flags(t):
    return (t.requires_grad, t.is_leaf, None if t.grad_fn is None else type(t.grad_fn).__name__)


# -- L1: who is a leaf ---------------------------------------------------------------------


@scenario(id="leaf.user_created_is_leaf", rules=["L1"], topic="leaf",
          lecture=f"{LECTURE}#who-is-a-leaf")  # fmt: skip
def user_created_is_leaf(T, record, rng):
    n = int(rng.integers(2, 5))
    record.tensor("tensor(x, requires_grad=True)", _leaf(T, record, rng, n))
    record.tensor("tensor(x)", _leaf(T, record, rng, n, requires_grad=False))
    record.tensor(
        "zeros(n, requires_grad=True)", T.zeros(n, requires_grad=True, device=record.device)
    )
    record.tensor("ones(2, n)", T.ones(2, n, device=record.device))
    record.tensor("tensor(ints)", T.tensor(ints(rng, n), device=record.device))


@scenario(id="leaf.result_without_grad_inputs_is_leaf", rules=["L1", "L5"], topic="leaf",
          lecture=f"{LECTURE}#who-is-a-leaf")  # fmt: skip
def result_without_grad_inputs_is_leaf(T, record, rng):
    # Source document 001: c = a + b of tensors without grad is a leaf, and stays a leaf after
    # `c.requires_grad = True`; only what is computed from c afterwards is a non-leaf.
    a = _leaf(T, record, rng, (2, 3), requires_grad=False)
    b = _leaf(T, record, rng, (2, 3), requires_grad=False)
    c = record.call("c = a + b", lambda: a + b)
    record.call("c.requires_grad = True", lambda: setattr(c, "requires_grad", True))
    record.tensor("c after requires_grad = True", c)
    k = scalar(rng)
    d = record.call("d = c * k", lambda: c * k)
    record.call("d.sum().backward()", lambda: d.sum().backward())
    record.grad("c.grad", c)
    record.tensor("e = b * k (no input requires grad)", b * k)


@scenario(id="leaf.comparisons_argmax_int_casts_never_require_grad", rules=["L1"], topic="leaf",
          lecture=f"{LECTURE}#who-is-a-leaf")  # fmt: skip
def comparisons_argmax_int_casts_never_require_grad(T, record, rng):
    a = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=record.device)
    t = scalar(rng, -1, 1)
    record.call("a > t", lambda: a > t)
    record.call("a <= t", lambda: a <= t)
    record.call("a == a", lambda: a == a)
    record.call("a.argmax()", lambda: a.argmax())
    record.call("a.long()", lambda: a.long())
    record.call("(a * 2).argmax()", lambda: (a * 2).argmax())


# -- L2: non-leaves and their grad_fn ------------------------------------------------------


@scenario(id="leaf.op_result_not_leaf", rules=["L2"], topic="leaf",
          lecture=f"{LECTURE}#who-is-a-leaf")  # fmt: skip
def op_result_not_leaf(T, record, rng):
    a = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    record.tensor("a", a)
    record.call("b = a * 2", lambda: a * 2)
    record.call("a + w", lambda: a + w)
    record.call("w - a", lambda: w - a)
    record.call("a / w", lambda: a / w)
    record.call("a ** 2", lambda: a**2)
    record.call("-a", lambda: -a)
    record.call("a.sum()", lambda: a.sum())
    record.call("a.mean()", lambda: a.mean())
    record.call("a.exp()", lambda: a.exp())
    record.call("a.log()", lambda: a.log())
    record.call("a.sqrt()", lambda: a.sqrt())
    record.call("T.tanh(a)", lambda: T.tanh(a))
    record.call("T.sigmoid(a)", lambda: T.sigmoid(a))
    record.call("a.relu()", lambda: a.relu())
    record.call("a @ w", lambda: a @ w)
    record.call("a.view(3, 1)", lambda: a.view(3, 1))
    record.call("a[1:]", lambda: a[1:])
    record.call("a.float() (no change)", lambda: a.float())
    record.grad("a.grad before backward", a)


@scenario(id="leaf.one_grad_input_is_enough", rules=["L2"], topic="leaf",
          lecture=f"{LECTURE}#requires-grad-propagates")  # fmt: skip
def one_grad_input_is_enough(T, record, rng):
    a = _leaf(T, record, rng, (2, 2))
    b = _leaf(T, record, rng, (2, 2), requires_grad=False)
    record.call("b * a", lambda: b * a)
    record.call("b @ a", lambda: b @ a)
    record.call("T.stack([b, a])", lambda: T.stack([b, a]))
    record.call("T.where(b > 1, a, b)", lambda: T.where(b > 1, a, b))
    record.call("b * b (no input requires grad)", lambda: b * b)


@scenario(id="leaf.next_functions", rules=["L2"], topic="leaf",
          lecture=f"{LECTURE}#the-graph")  # fmt: skip
def next_functions(T, record, rng):
    a = _leaf(T, record, rng)
    b = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    y = a * b + a
    z = a * w

    def names(node):
        return [(None if f is None else type(f).__name__, i) for f, i in node.next_functions]

    record.tensor("y = a * b + a", y)
    record.value("(a * b + a).grad_fn.next_functions", names(y.grad_fn))
    record.value("(a * w).grad_fn.next_functions", names(z.grad_fn))
    leaf_node = y.grad_fn.next_functions[1][0]
    record.value("AccumulateGrad.name()", leaf_node.name())
    record.same("AccumulateGrad.variable is a", leaf_node.variable, a)
    record.value("AccumulateGrad.next_functions", list(leaf_node.next_functions))


@scenario(id="leaf.eta_self_assignment_loses_the_leaf", rules=["L2", "L3"], topic="leaf",
          lecture=f"{LECTURE}#why-grad-is-none")  # fmt: skip
def eta_self_assignment_loses_the_leaf(T, record, rng):
    # Source document 002: `eta = eta * 2` rebinds the name to a non-leaf; the Parameter that
    # receives the gradient is no longer reachable by that name.
    eta = T.nn.Parameter(T.tensor(floats(rng, 5), device=record.device))
    original = eta
    eta = eta * 2
    record.tensor("eta after eta = eta * 2", eta)
    record.call("eta.sum().backward()", lambda: eta.sum().backward())
    record.grad("eta.grad", eta)
    record.grad("original parameter .grad", original)
    eta2 = T.nn.Parameter(T.tensor(floats(rng, 5), device=record.device))
    eta_temp = eta2 * 2
    record.call("eta_temp.sum().backward()", lambda: eta_temp.sum().backward())
    record.grad("eta2.grad (fix: another name)", eta2)


# -- L3: who gets .grad ----------------------------------------------------------------------


@scenario(id="leaf.grad_only_on_leaves_that_require_grad", rules=["L3"], topic="leaf",
          lecture=f"{LECTURE}#why-grad-is-none")  # fmt: skip
def grad_only_on_leaves_that_require_grad(T, record, rng):
    a = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    c = a * w
    y = (c * c).sum()
    record.grad("a.grad before backward", a)
    record.call("y.backward()", lambda: y.backward())
    record.grad("a.grad", a)
    record.grad("w.grad (leaf without grad)", w)
    record.grad("c.grad (non-leaf)", c)
    record.grad("y.grad (non-leaf output)", y)
    record.tensor("c", c)


@scenario(id="leaf.leaf_scalar_backward", rules=["L3", "L6"], topic="leaf",
          lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def leaf_scalar_backward(T, record, rng):
    s = T.tensor(scalar(rng), requires_grad=True, device=record.device)
    record.tensor("s", s)
    record.call("s.backward()", lambda: s.backward())
    record.grad("s.grad", s)


@scenario(id="leaf.parameter_then_view", rules=["L3", "R4"], topic="leaf",
          lecture=f"{LECTURE}#why-grad-is-none")  # fmt: skip
def parameter_then_view(T, record, rng):
    # Source document 002: making the Parameter first and viewing it afterwards leaves the
    # name bound to a non-leaf view; view first, then wrap.
    t = T.nn.Parameter(T.tensor(floats(rng, (12, 1)), device=record.device))
    v = t.view(3, 4)
    record.tensor("t.view(3, 4)", v)
    record.call("v.sum().backward()", lambda: v.sum().backward())
    record.grad("v.grad", v)
    record.grad("t.grad", t)
    k = T.tensor(floats(rng, (12, 1)), device=record.device).view(3, 4)
    kp = T.nn.Parameter(k)
    record.tensor("Parameter(k.view(3, 4))", kp)
    record.call("kp.sum().backward()", lambda: kp.sum().backward())
    record.grad("kp.grad", kp)


# -- L4: retain_grad -------------------------------------------------------------------------


@scenario(id="leaf.retain_grad_keeps_nonleaf_grad", rules=["L4"], topic="leaf",
          lecture=f"{LECTURE}#retain-grad")  # fmt: skip
def retain_grad_keeps_nonleaf_grad(T, record, rng):
    a = _leaf(T, record, rng)
    k = scalar(rng)
    c = a * k
    record.call("c.retain_grad()", lambda: c.retain_grad())
    record.value("c.retains_grad", c.retains_grad)
    record.value("a.retains_grad", a.retains_grad)
    y = (c * c).sum()
    record.call("y.retain_grad()", lambda: y.retain_grad())
    record.call("y.backward()", lambda: y.backward())
    record.grad("c.grad", c)
    record.grad("a.grad", a)
    record.grad("y.grad", y)
    record.tensor("c", c)


@scenario(id="leaf.retain_grad_on_leaf_and_on_no_grad", rules=["L4"], topic="leaf",
          lecture=f"{LECTURE}#retain-grad")  # fmt: skip
def retain_grad_on_leaf_and_on_no_grad(T, record, rng):
    a = _leaf(T, record, rng)
    b = _leaf(T, record, rng, requires_grad=False)
    record.call("a.retain_grad() (leaf)", lambda: a.retain_grad())
    record.value("a.retains_grad", a.retains_grad)
    record.call("b.retain_grad() (no grad)", lambda: b.retain_grad())
    record.call("(b * 2).retain_grad()", lambda: (b * 2).retain_grad())
    record.tensor("b", b)


# -- L5: changing requires_grad ------------------------------------------------------------


@scenario(id="leaf.requires_grad_of_nonleaf", rules=["L5"], topic="leaf",
          lecture=f"{LECTURE}#requires-grad-propagates")  # fmt: skip
def requires_grad_of_nonleaf(T, record, rng):
    a = _leaf(T, record, rng)
    c = a * scalar(rng)
    record.call("c.requires_grad_(False)", lambda: c.requires_grad_(False))
    ret = record.call("c.requires_grad_(True) (silent no-op)", lambda: c.requires_grad_(True))
    record.same("c.requires_grad_(True) is c", ret, c)
    record.call("c.requires_grad = False", lambda: setattr(c, "requires_grad", False))
    record.call("c.requires_grad = True", lambda: setattr(c, "requires_grad", True))
    record.tensor("c", c)


@scenario(id="leaf.requires_grad_of_leaf", rules=["L5"], topic="leaf",
          lecture=f"{LECTURE}#requires-grad-propagates")  # fmt: skip
def requires_grad_of_leaf(T, record, rng):
    b = _leaf(T, record, rng, 2, requires_grad=False)
    ret = record.call("b.requires_grad_()", lambda: b.requires_grad_())
    record.same("b.requires_grad_() is b", ret, b)
    record.tensor("b after requires_grad_()", b)
    record.call("b.requires_grad_(False)", lambda: b.requires_grad_(False))
    record.tensor("b after requires_grad_(False)", b)
    record.call("b.requires_grad = True", lambda: setattr(b, "requires_grad", True))
    record.tensor("b after attribute", b)
    y = (b * b).sum()
    record.call("(b * b).sum().backward()", lambda: y.backward())
    record.grad("b.grad", b)


@scenario(id="leaf.only_float_tensors_require_grad", rules=["L5"], topic="leaf",
          lecture=f"{LECTURE}#requires-grad-propagates")  # fmt: skip
def only_float_tensors_require_grad(T, record, rng):
    n = int(rng.integers(2, 5))
    values = ints(rng, n)
    dev = record.device
    record.call("tensor(ints, requires_grad=True)",
                lambda: T.tensor(values, requires_grad=True, device=dev))  # fmt: skip
    int_t = T.tensor(values, device=dev)
    record.call("tensor(ints).requires_grad_()", lambda: int_t.requires_grad_())
    record.call("int_t.requires_grad = True", lambda: setattr(int_t, "requires_grad", True))
    record.call("arange(n, requires_grad=True)",
                lambda: T.arange(n, requires_grad=True, device=dev))  # fmt: skip
    record.call("arange(float(n), requires_grad=True)",
                lambda: T.arange(float(n), requires_grad=True, device=dev))  # fmt: skip
    record.call("tensor([True], requires_grad=True)",
                lambda: T.tensor([True], requires_grad=True, device=dev))  # fmt: skip
    record.call("zeros(n, dtype=long, requires_grad=True)",
                lambda: T.zeros(n, dtype=T.long, requires_grad=True, device=dev))  # fmt: skip
    record.call("tensor(x, dtype=float16, requires_grad=True)",
                lambda: T.tensor(floats(rng, n), dtype=T.float16, requires_grad=True,
                                 device=dev))  # fmt: skip
    record.tensor("int_t", int_t)


# -- L6: backward errors -------------------------------------------------------------------


@scenario(id="leaf.backward_of_non_scalar_needs_gradient", rules=["L6"], topic="leaf",
          lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def backward_of_non_scalar_needs_gradient(T, record, rng):
    n = int(rng.integers(2, 5))
    a = _leaf(T, record, rng, n)
    k = scalar(rng)
    c = a * k
    record.call("c.backward()", lambda: c.backward())
    record.call("autograd.grad(c, a)", lambda: T.autograd.grad(c, a))
    dev = record.device
    record.call("c.backward(ones(n - 1))", lambda: c.backward(T.ones(n - 1, device=dev)))
    record.call("c.backward(ones(1, n))", lambda: c.backward(T.ones(1, n, device=dev)))
    g = T.tensor(floats(rng, n, -1, 1), device=dev)
    record.call("c.backward(gradient=g)", lambda: c.backward(gradient=g))
    record.grad("a.grad", a)


@scenario(id="leaf.backward_needs_a_grad_fn", rules=["L6", "L9"], topic="leaf",
          lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def backward_needs_a_grad_fn(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, 3), device=dev)
    record.call("x.sum().backward() (nothing requires grad)", lambda: x.sum().backward())
    record.call("tensor(s).backward()", lambda: T.tensor(scalar(rng), device=dev).backward())
    record.call("x.backward() (non-scalar and no grad_fn)", lambda: x.backward())
    # Source document 001: requiring grad after the loss was computed does not help.
    loss = (x * x).sum()
    x.requires_grad_()
    record.call("old loss.backward() after x.requires_grad_()", lambda: loss.backward())
    a = _leaf(T, record, rng)
    with T.no_grad():
        y = (a * a).sum()
    record.call("backward of a result computed under no_grad", lambda: y.backward())
    record.call("(x * x).sum().backward() (recomputed)", lambda: (x * x).sum().backward())
    record.grad("x.grad", x)


@scenario(id="leaf.backward_shapes_and_dtypes", rules=["L6"], topic="leaf",
          lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def backward_shapes_and_dtypes(T, record, rng):
    dev = record.device
    a = _leaf(T, record, rng)
    one = (a * scalar(rng)).sum(dim=0, keepdim=True)
    record.tensor("1-element output", one)
    record.call("one_element.backward()", lambda: one.backward())
    record.grad("a.grad", a)
    b = _leaf(T, record, rng)
    c = b * scalar(rng)
    g64 = T.tensor(floats(rng, 3), dtype=T.float64, device=dev)
    record.call("c.backward(float64 gradient)", lambda: c.backward(g64))
    record.grad("b.grad (float32 leaf)", b)


# -- L7: saved tensors and retain_graph ----------------------------------------------------

_SAVING = {
    "(a * a).sum()": lambda T, a, w: (a * a).sum(),
    "(a ** 2).sum()": lambda T, a, w: (a**2).sum(),
    "a.exp().sum()": lambda T, a, w: a.exp().sum(),
    "(a * w).sum() (w without grad)": lambda T, a, w: (a * w).sum(),
    "a.relu().sum()": lambda T, a, w: a.relu().sum(),
    "(a * 2).sum()": lambda T, a, w: (a * 2).sum(),
}
_NOT_SAVING = {
    "a + w": lambda T, a, w: a + w,
    "a - 1": lambda T, a, w: a - 1,
    "-a": lambda T, a, w: -a,
    "a.sum()": lambda T, a, w: a.sum(),
    "a.mean()": lambda T, a, w: a.mean(),
}


def _backward_twice(T, record, rng, graphs):
    for name, build in graphs.items():
        a = _leaf(T, record, rng)
        w = _leaf(T, record, rng, requires_grad=False)
        y = build(T, a, w)
        go = None if y.dim() == 0 else T.tensor(floats(rng, 3), device=record.device)
        record.call(f"{name}: first backward", lambda y=y, go=go: y.backward(go))
        record.grad(f"{name}: a.grad after first", a)
        record.call(f"{name}: second backward", lambda y=y, go=go: y.backward(go))
        record.grad(f"{name}: a.grad after second", a)


@scenario(id="leaf.second_backward_fails_where_tensors_were_saved", rules=["L7"],
          topic="leaf", lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def second_backward_fails_where_tensors_were_saved(T, record, rng):
    _backward_twice(T, record, rng, _SAVING)


@scenario(id="leaf.second_backward_works_without_saved_tensors", rules=["L7", "L8"],
          topic="leaf", lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def second_backward_works_without_saved_tensors(T, record, rng):
    _backward_twice(T, record, rng, _NOT_SAVING)


@scenario(id="leaf.retain_graph", rules=["L7", "L8"], topic="leaf",
          lecture=f"{LECTURE}#backward-errors")  # fmt: skip
def retain_graph(T, record, rng):
    a = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    y = (a * a * w).sum()
    record.call("y.backward(retain_graph=True)", lambda: y.backward(retain_graph=True))
    record.grad("a.grad after first", a)
    record.call("y.backward() again", lambda: y.backward())
    record.grad("a.grad after second", a)
    record.call("y.backward() third time", lambda: y.backward())
    record.grad("a.grad after third", a)
    z = (a.exp() * w).sum()
    record.call("autograd.grad(z, a, retain_graph=True)",
                lambda: T.autograd.grad(z, a, retain_graph=True))  # fmt: skip
    record.call("autograd.grad(z, a)", lambda: T.autograd.grad(z, a))
    record.call("autograd.grad(z, a) after free", lambda: T.autograd.grad(z, a))


# -- L8: accumulation and zeroing ----------------------------------------------------------


@scenario(id="leaf.gradients_accumulate", rules=["L8"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def gradients_accumulate(T, record, rng):
    a = _leaf(T, record, rng)
    w1 = _leaf(T, record, rng, requires_grad=False)
    w2 = _leaf(T, record, rng, requires_grad=False)
    record.call("(a * w1).sum().backward()", lambda: (a * w1).sum().backward())
    first = a.grad
    record.grad("a.grad after first", a)
    record.call("(a * a * w2).sum().backward()", lambda: (a * a * w2).sum().backward())
    record.grad("a.grad after second", a)
    record.same("a.grad is the same object", a.grad, first)
    record.value("values of the first grad object", first.tolist())


@scenario(id="leaf.zero_and_none", rules=["L8"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def zero_and_none(T, record, rng):
    a = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    (a * w).sum().backward()
    g = a.grad
    record.call("a.grad.zero_() is a.grad", lambda: a.grad.zero_() is g)
    record.grad("a.grad after zero_()", a)
    record.call("backward after zero_()", lambda: (a * w).sum().backward())
    record.grad("a.grad after zero_() + backward", a)
    record.call("a.grad = None", lambda: setattr(a, "grad", None))
    record.grad("a.grad after a.grad = None", a)
    record.call("a.grad.zero_() when a.grad is None", lambda: a.grad.zero_())
    record.call("backward after grad = None", lambda: (a * a).sum().backward())
    record.grad("a.grad after grad = None + backward", a)


@scenario(id="leaf.grad_setter_checks", rules=["L8", "L13"], topic="leaf",
          lecture=f"{LECTURE}#setting-grad")  # fmt: skip
def grad_setter_checks(T, record, rng):
    dev = record.device
    a = _leaf(T, record, rng)
    record.call("a.grad = zeros(2)", lambda: setattr(a, "grad", T.zeros(2, device=dev)))
    record.call("a.grad = zeros(3, dtype=float64)",
                lambda: setattr(a, "grad", T.zeros(3, dtype=T.float64, device=dev)))  # fmt: skip
    record.call("a.grad = list", lambda: setattr(a, "grad", floats(rng, 3)))
    record.call("a.grad = a", lambda: setattr(a, "grad", a))
    g = T.tensor(floats(rng, 3), device=dev)
    record.call("a.grad = g", lambda: setattr(a, "grad", g))
    record.same("a.grad is g", a.grad, g)
    record.call("backward after a.grad = g", lambda: (a * 2).sum().backward())
    record.grad("a.grad (g accumulated into)", a)
    record.value("values of g", g.tolist())


@scenario(id="leaf.backward_gradient_is_not_aliased", rules=["L8", "L11"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def backward_gradient_is_not_aliased(T, record, rng):
    a = _leaf(T, record, rng)
    go = T.tensor(floats(rng, 3), device=record.device)
    record.call("a.backward(go)", lambda: a.backward(go))
    record.same("a.grad is go", a.grad, go)
    record.shares("a.grad shares memory with go", a.grad, go)
    record.grad("a.grad", a)


@scenario(id="leaf.optimizer_zero_grad_and_step", rules=["L8", "L2"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def optimizer_zero_grad_and_step(T, record, rng):
    p = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    lr = scalar(rng, 0.01, 0.5)
    opt = T.optim.SGD([p], lr=lr)
    (p * w).sum().backward()
    record.call("opt.step()", lambda: opt.step())
    record.tensor("p after step", p)
    record.call("opt.zero_grad()", lambda: opt.zero_grad())
    record.grad("p.grad after zero_grad()", p)
    (p * w).sum().backward()
    record.call("opt.zero_grad(set_to_none=False)", lambda: opt.zero_grad(set_to_none=False))
    record.grad("p.grad after zero_grad(set_to_none=False)", p)
    record.call("SGD([p * 2])", lambda: T.optim.SGD([p * 2], lr=lr))


# -- L11: who owns a gradient's memory ------------------------------------------------------


@scenario(id="leaf.fresh_grads_own_their_memory", rules=["L11"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def fresh_grads_own_their_memory(T, record, rng):
    # d(a + b)/da and d(a + b)/db are the same incoming gradient; each leaf gets its own copy.
    a, b = _leaf(T, record, rng), _leaf(T, record, rng)
    record.call("(a + b).sum().backward()", lambda: (a + b).sum().backward())
    record.same("a.grad is b.grad", a.grad, b.grad)
    record.shares("a.grad shares memory with b.grad", a.grad, b.grad)
    k = scalar(rng)
    record.call("a.grad.add_(k)", lambda: a.grad.add_(k))
    record.grad("b.grad after a.grad.add_(k)", b)
    # The gradient handed to backward() passes through x * 1 and x.view(...) unchanged.
    for label, f in (("c * 1", lambda c: c * 1), ("c.view(3)", lambda c: c.view(3))):
        c = _leaf(T, record, rng)
        go = T.tensor(floats(rng, 3), device=record.device)
        record.call(f"({label}).backward(go)", lambda c=c, f=f, go=go: f(c).backward(go))
        record.same(f"{label}: c.grad is go", c.grad, go)
        record.shares(f"{label}: c.grad shares memory with go", c.grad, go)
        record.call(f"{label}: go.mul_(k)", lambda go=go: go.mul_(k))
        record.grad(f"{label}: c.grad after go.mul_(k)", c)


@scenario(id="leaf.later_grads_in_place_or_new", rules=["L11"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def later_grads_in_place_or_new(T, record, rng):
    a = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    h = a * w
    h.retain_grad()
    y = (h * h).sum()
    record.call("y.backward(retain_graph=True)", lambda: y.backward(retain_graph=True))
    leaf_first, retained_first = a.grad, h.grad
    record.call("y.backward()", lambda: y.backward())
    record.same("a.grad is the first a.grad (leaf: in place)", a.grad, leaf_first)
    record.same("h.grad is the first h.grad (retained: new)", h.grad, retained_first)
    record.grad("h.grad after two backward", h)
    record.value("the first h.grad, kept", retained_first.tolist())
    # A .grad the user assigned is accumulated into in place, also on a retained non-leaf.
    mine = T.tensor(floats(rng, 3), device=record.device)
    record.call("a.grad = mine", lambda: setattr(a, "grad", mine))
    record.call("(a * w).sum().backward()", lambda: (a * w).sum().backward())
    record.same("a.grad is mine", a.grad, mine)
    record.value("mine after backward", mine.tolist())


# -- L12: the flag is read at backward time --------------------------------------------------


@scenario(id="leaf.requires_grad_off_before_backward", rules=["L12"], topic="leaf",
          lecture=f"{LECTURE}#accumulate-and-zero")  # fmt: skip
def requires_grad_off_before_backward(T, record, rng):
    a, b = _leaf(T, record, rng), _leaf(T, record, rng)
    seen = []
    a.register_hook(lambda g: seen.append(g.tolist()))
    loss = (a * b).sum()
    record.call("a.requires_grad_(False)", lambda: a.requires_grad_(False))
    record.call("loss.backward()", lambda: loss.backward())
    record.grad("a.grad (turned off)", a)
    record.grad("b.grad (still on)", b)
    record.value("the hook on a saw", seen)
    # a .grad already there stays as it was; turning the flag back on before backward counts
    c = _leaf(T, record, rng)
    record.call("c.grad = ones(3)", lambda: setattr(c, "grad", T.ones(3, device=record.device)))
    loss = (c * c).sum()
    record.call("c.requires_grad = False", lambda: setattr(c, "requires_grad", False))
    record.call("(c * c).sum().backward()", lambda: loss.backward())
    record.grad("c.grad (assigned, then turned off)", c)
    d = _leaf(T, record, rng)
    loss = (d * b).sum()
    d.requires_grad_(False)
    record.call("d.requires_grad_(True) again", lambda: d.requires_grad_(True))
    record.call("(d * b).sum().backward()", lambda: loss.backward())
    record.grad("d.grad (back on)", d)


@scenario(id="leaf.retained_nonleaf_grad_accumulates", rules=["L12"], topic="leaf",
          lecture=f"{LECTURE}#retain-grad")  # fmt: skip
def retained_nonleaf_grad_accumulates(T, record, rng):
    a = _leaf(T, record, rng)
    h = a * scalar(rng)
    h.retain_grad()
    y = (h * h).sum()
    record.call("y.backward(retain_graph=True)", lambda: y.backward(retain_graph=True))
    record.grad("h.grad after one backward", h)
    record.value("h.grad._version after one (a fresh tensor)", h.grad._version)
    record.call("y.backward() again", lambda: y.backward())
    record.grad("h.grad after two", h)
    record.value("h.grad._version after two (a new tensor again)", h.grad._version)
    record.grad("a.grad after two", a)


# -- L13: assigning .grad ---------------------------------------------------------------------


@scenario(id="leaf.grad_setter_on_nonleaves_and_refusals", rules=["L13"], topic="leaf",
          lecture=f"{LECTURE}#setting-grad")  # fmt: skip
def grad_setter_on_nonleaves_and_refusals(T, record, rng):
    dev = record.device
    h = _leaf(T, record, rng, (2, 3)) * scalar(rng)
    g = T.tensor(floats(rng, (2, 3)), device=dev)
    record.call("h.grad = g (non-leaf)", lambda: setattr(h, "grad", g))
    record.grad("h.grad (no warning once set)", h)
    record.same("h.grad is g", h.grad, g)
    refusals = {
        "zeros(3, 2)": lambda: T.zeros(3, 2, device=dev),
        "zeros(6)": lambda: T.zeros(6, device=dev),
        "zeros(1, 2, 3)": lambda: T.zeros(1, 2, 3, device=dev),
        "zeros(2, 3, dtype=float64)": lambda: T.zeros(2, 3, dtype=T.float64, device=dev),
        "zeros(2, 3, dtype=int64)": lambda: T.zeros(2, 3, dtype=T.int64, device=dev),
        "zeros(2, 3, dtype=bool)": lambda: T.zeros(2, 3, dtype=T.bool, device=dev),
        "a nested list": lambda: floats(rng, (2, 3)),
        "a number": lambda: scalar(rng),
        "an ndarray": lambda: np.zeros((2, 3), dtype=np.float32),
        "h itself": lambda: h,
    }
    if dev != "cpu":
        refusals["zeros(2, 3) on the cpu"] = lambda: T.zeros(2, 3)
    for label, make in refusals.items():
        record.call(f"h.grad = {label}", lambda make=make: setattr(h, "grad", make()))
    record.same("h.grad is still g", h.grad, g)
    record.call("h.grad = None", lambda: setattr(h, "grad", None))
    record.grad("h.grad after None", h)


# -- L9: no_grad and friends ---------------------------------------------------------------


@scenario(id="leaf.no_grad_records_nothing", rules=["L9"], topic="leaf",
          lecture=f"{LECTURE}#no-grad")  # fmt: skip
def no_grad_records_nothing(T, record, rng):
    a = _leaf(T, record, rng)
    record.value("is_grad_enabled() outside", T.is_grad_enabled())
    with T.no_grad():
        record.value("is_grad_enabled() inside no_grad", T.is_grad_enabled())
        y = record.call("y = a * 2 under no_grad", lambda: a * 2)
        record.call("factory requires_grad=True under no_grad",
                    lambda: T.ones(2, requires_grad=True, device=record.device))  # fmt: skip
        record.call("a.view(3) under no_grad", lambda: a.view(3))
        record.call("a.sum() under no_grad", lambda: a.sum())
    record.value("is_grad_enabled() after", T.is_grad_enabled())
    record.call("y.sum().backward()", lambda: y.sum().backward())

    @T.no_grad()
    def doubled(t):
        return t * 2

    record.call("@no_grad() decorated function", lambda: doubled(a))


@scenario(id="leaf.set_grad_enabled", rules=["L9"], topic="leaf",
          lecture=f"{LECTURE}#no-grad")  # fmt: skip
def set_grad_enabled(T, record, rng):
    a = _leaf(T, record, rng)
    with T.set_grad_enabled(False):
        record.call("a * 2 under set_grad_enabled(False)", lambda: a * 2)
        record.value("is_grad_enabled() inside", T.is_grad_enabled())
    with T.set_grad_enabled(True):
        record.call("a * 2 under set_grad_enabled(True)", lambda: a * 2)
    T.set_grad_enabled(False)
    record.value("is_grad_enabled() after set_grad_enabled(False) call", T.is_grad_enabled())
    record.call("a * 3 after the call", lambda: a * 3)
    T.set_grad_enabled(True)
    record.call("a * 4 after set_grad_enabled(True)", lambda: a * 4)


@scenario(id="leaf.enable_grad_inside_no_grad", rules=["L9"], topic="leaf",
          lecture=f"{LECTURE}#no-grad")  # fmt: skip
def enable_grad_inside_no_grad(T, record, rng):
    a = _leaf(T, record, rng)
    with T.no_grad():
        with T.enable_grad():
            record.value("is_grad_enabled() inside enable_grad", T.is_grad_enabled())
            y = record.call("a * k inside enable_grad", lambda: a * scalar(rng))
        record.call("a * k back in no_grad", lambda: a * scalar(rng))
    record.call("y.sum().backward()", lambda: y.sum().backward())
    record.grad("a.grad", a)


@scenario(id="leaf.sgd_step_under_no_grad", rules=["L9", "I1"], topic="leaf",
          lecture=f"{LECTURE}#no-grad")  # fmt: skip
def sgd_step_under_no_grad(T, record, rng):
    a = _leaf(T, record, rng)
    w = _leaf(T, record, rng, requires_grad=False)
    (a * w).sum().backward()
    lr = scalar(rng, 0.01, 0.5)
    with T.no_grad():
        record.call("a.sub_(lr * a.grad) under no_grad", lambda: a.sub_(lr * a.grad))
        record.call("a -= lr under no_grad", lambda: isub(a, lr))
    record.tensor("a after the steps", a)
    record.grad("a.grad unchanged", a)


# -- L10: .data ------------------------------------------------------------------------------


@scenario(id="leaf.data_is_an_untracked_alias", rules=["L10"], topic="leaf",
          lecture=f"{LECTURE}#dot-data")  # fmt: skip
def data_is_an_untracked_alias(T, record, rng):
    a = _leaf(T, record, rng)
    d = a.data
    record.tensor("a.data", d)
    record.shares("a.data shares memory with a", d, a)
    record.same("a.data is a", d, a)
    k = scalar(rng)
    record.call("a.data.add_(k)", lambda: d.add_(k))
    record.tensor("a after a.data.add_(k)", a)
    record.tensor("the .data alias after add_", d)


@scenario(id="leaf.data_edit_after_forward_is_silent", rules=["L10"], topic="leaf",
          lecture=f"{LECTURE}#dot-data")  # fmt: skip
def data_edit_after_forward_is_silent(T, record, rng):
    a = _leaf(T, record, rng)
    y = (a * a).sum()
    k = scalar(rng)
    record.call("a.data.mul_(k) after forward", lambda: a.data.mul_(k))
    record.value("a._version", a._version)
    record.call("y.backward() (no version error)", lambda: y.backward())
    record.grad("a.grad (computed with the new values)", a)


@scenario(id="leaf.data_setter", rules=["L10"], topic="leaf",
          lecture=f"{LECTURE}#dot-data")  # fmt: skip
def data_setter(T, record, rng):
    dev = record.device
    a = _leaf(T, record, rng)
    new = T.tensor(floats(rng, 3), device=dev)
    record.call("a.data = new", lambda: setattr(a, "data", new))
    record.tensor("a after a.data = new", a)
    record.shares("a shares memory with new", a, new)
    longer = T.tensor(floats(rng, 5), device=dev)
    record.call("a.data = longer (other shape)", lambda: setattr(a, "data", longer))
    record.tensor("a after a.data = longer", a)
    record.call("(a * a).sum().backward()", lambda: (a * a).sum().backward())
    record.grad("a.grad", a)


@scenario(id="leaf.data_copy_through_a_slice", rules=["L10", "I5"], topic="leaf",
          lecture=f"{LECTURE}#dot-data")  # fmt: skip
def data_copy_through_a_slice(T, record, rng):
    # Source document 002: a slice is a view, so writing its .data writes the parameter;
    # a clone is a copy, so writing its .data leaves the parameter alone.
    dev = record.device
    v1 = T.nn.Parameter(T.tensor(floats(rng, 10), device=dev))
    part = v1[:4]
    record.call("v1[:4].data.copy_(x)",
                lambda: part.data.copy_(T.tensor(floats(rng, 4), device=dev)))  # fmt: skip
    record.tensor("v1 after writing the slice", v1)
    record.tensor("the slice", part)
    v2 = T.nn.Parameter(T.tensor(floats(rng, 10), device=dev))
    copy = v2[:4].clone()
    record.call("v2[:4].clone().data.copy_(x)",
                lambda: copy.data.copy_(T.tensor(floats(rng, 4), device=dev)))  # fmt: skip
    record.tensor("v2 after writing the clone", v2)
    record.tensor("the clone", copy)
    record.call("setitem through .data", lambda: setitem(v2.data, 0, scalar(rng)))
    record.tensor("v2 after v2.data[0] = s", v2)


# -- the NumPy-then-.float() story (source document 000) -----------------------------------


@scenario(id="leaf.numpy_then_float_story", rules=["D4", "L3", "L4"], topic="leaf",
          lecture=f"{LECTURE}#why-grad-is-none")  # fmt: skip
def numpy_then_float_story(T, record, rng):
    values = rng.uniform(0.5, 2.0, size=2)
    k = scalar(rng)
    dev = record.device
    go = T.tensor(floats(rng, 2), device=dev)

    z = T.tensor(values, requires_grad=True, device=dev).float()
    record.tensor("z = tensor(float64 array, requires_grad=True).float()", z)
    record.call("(z * k).backward(go)", lambda: (z * k).backward(go))
    record.grad("z.grad", z)

    fixed = T.tensor(values.astype(np.float32), requires_grad=True, device=dev)
    record.call("fix 1: float32 array, backward", lambda: (fixed * k).backward(go))
    record.grad("fix 1: z.grad", fixed)

    kept = T.tensor(values, requires_grad=True, device=dev).float()
    record.call("fix 2: z.retain_grad()", lambda: kept.retain_grad())
    record.call("fix 2: backward", lambda: (kept * k).backward(go))
    record.grad("fix 2: z.grad", kept)

    wrapped = T.FloatTensor(values)
    record.call("fix 3: FloatTensor(array).requires_grad = True",
                lambda: setattr(wrapped, "requires_grad", True))  # fmt: skip
    record.tensor("fix 3: z", wrapped)

    as64 = T.tensor(values, dtype=T.float64, requires_grad=True, device=dev)
    record.call("fix 4: dtype=float64, backward", lambda: (as64 * k).backward(go))
    record.grad("fix 4: z.grad", as64)
