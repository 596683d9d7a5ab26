"""Scenarios: the tensor operations course code reaches for beyond arithmetic (rule N5).

all/any, std/var (correction, unbiased and the degrees-of-freedom warning), amax/amin (ties
share the gradient), logsumexp, log_softmax (as a method, and F.log_softmax without dim,
which warns), gather, scatter/scatter_ (with the legacy reduce=, which has no derivative),
index_add/index_add_, one_hot, nonzero, one-argument where, squeeze of several dims, and the
smaller differences found with them: t[...] = v on a non-leaf and a value of another size, a
broadcast batched matmul's node, cat with a legacy empty tensor and a size or dim given as a
one-element tensor (a bool one included).
"""

from autograder.catalogue._data import floats, ints
from autograder.catalogue._statements import setitem
from autograder.scenarios import scenario

LECTURE = "course/01_tensors_memory.ipynb"


def _backward(y):
    (y if y.dim() == 0 else y.sum()).backward()


@scenario(
    id="values.boolean_and_spread_reductions",
    rules=["N5"],
    topic="values",
    lecture=f"{LECTURE}#broadcasting",
)
def boolean_and_spread_reductions(T, record, rng):
    dev = record.device
    n, k = (int(v) for v in rng.integers(2, 5, size=2))
    b = T.tensor(ints(rng, (n, k), 0, 3), device=dev)
    record.call("b.all()", lambda: b.all())
    record.call("b.any(1)", lambda: b.any(1))
    record.call("b.all(0, keepdim=True)", lambda: b.all(0, keepdim=True))
    record.call("torch.any(b, (0, 1))", lambda: T.any(b, (0, 1)))
    record.call("b.all(())", lambda: b.all(()))
    record.call("uint8 all", lambda: b.to(T.uint8).all(1))
    record.call("b.all(0, 1)", lambda: b.all(0, 1))

    x = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    for name in ("std", "var"):
        for label, args, kwargs in (
            ("()", (), {}),
            ("(1)", (1,), {}),
            ("(0, keepdim=True)", (0,), {"keepdim": True}),
            ("(correction=0)", (), {"correction": 0}),
            ("(unbiased=False)", (), {"unbiased": False}),
            ("(False)", (False,), {}),
            ("(dim=-1, correction=0.5)", (), {"dim": -1, "correction": 0.5}),
        ):
            y = record.call(f"x.{name}{label}", lambda: getattr(x, name)(*args, **kwargs))
            x.grad = None
            record.call(f"backward of {name}{label}", lambda: _backward(y))
            record.grad(f"x.grad after {name}{label}", x)
        record.call(f"{name} dof <= 0", lambda: getattr(x, name)(0, correction=n))
        record.call(f"torch.{name}(x, 1, True)", lambda: getattr(T, name)(x, 1, True))
        record.call(f"{name} of one element", lambda: getattr(x[0, 0], name)())
        record.call(f"{name} of ints", lambda: getattr(b, name)())
        record.call(
            f"{name} unbiased and correction", lambda: getattr(x, name)(0, True, correction=1)
        )
        record.call(f"{name}(0, 1)", lambda: getattr(x, name)(0, 1))
    z = x.detach() * 0
    z.requires_grad_()
    y = record.call("std of constants", lambda: z.std(1))
    record.call("backward of std of constants", lambda: _backward(y))
    record.grad("z.grad", z)


@scenario(
    id="values.extremes_and_log_sums",
    rules=["N5"],
    topic="values",
    lecture=f"{LECTURE}#broadcasting",
)
def extremes_and_log_sums(T, record, rng):
    dev = record.device
    n, k = (int(v) for v in rng.integers(2, 5, size=2))
    # small integers as floats, each row ending in a copy of its maximum and of its minimum:
    # every reduction along rows or over all has tied extremes
    rows = [[*r, max(r), min(r)] for r in ints(rng, (n, k), -2, 3)]
    x = T.tensor(rows, dtype=T.float32, requires_grad=True, device=dev)
    for name in ("amax", "amin"):
        for label, args in (
            ("()", ()),
            ("(1)", (1,)),
            ("(0, True)", (0, True)),
            ("((0, 1))", ((0, 1),)),
        ):
            y = record.call(f"x.{name}{label}", lambda: getattr(x, name)(*args))
            x.grad = None
            record.call(f"backward of {name}{label}", lambda: _backward(y))
            record.grad(f"x.grad after {name}{label}", x)
        record.call(f"torch.{name}(x, -1)", lambda: getattr(T, name)(x, -1))
        record.call(f"{name} of empty", lambda: getattr(T.zeros(0, k, device=dev), name)())
        record.call(f"{name}(0) of empty", lambda: getattr(T.zeros(0, k, device=dev), name)(0))
        record.call(f"{name}('a')", lambda: getattr(x, name)("a"))
        record.call(f"{name}((0, 0))", lambda: getattr(x, name)((0, 0)))

    w = T.tensor(floats(rng, (n, k), -3, 3), requires_grad=True, device=dev)
    y = record.call("w.logsumexp(1)", lambda: w.logsumexp(1))
    record.call("backward of logsumexp", lambda: _backward(y))
    record.grad("w.grad after logsumexp", w)
    record.call("torch.logsumexp(w, (0, 1), True)", lambda: T.logsumexp(w, (0, 1), True))
    record.call("logsumexp of large values", lambda: (w.detach() + 1000).logsumexp(0))
    record.call("logsumexp of ints", lambda: T.tensor(ints(rng, k), device=dev).logsumexp(0))
    record.call("logsumexp()", lambda: w.logsumexp())
    record.call("logsumexp(0, 1)", lambda: w.logsumexp(0, 1))

    w.grad = None
    y = record.call("w.log_softmax(0)", lambda: w.log_softmax(0))
    record.call("backward of log_softmax", lambda: (y * T.arange(k, device=dev)).sum().backward())
    record.grad("w.grad after log_softmax", w)
    record.call("torch.log_softmax(w, -1, dtype)", lambda: T.log_softmax(w, -1, dtype=T.float64))
    record.call("F.log_softmax(w) without dim", lambda: T.nn.functional.log_softmax(w))
    record.call("F.log_softmax(3-d) without dim", lambda: T.nn.functional.log_softmax(w[None]))
    record.call("log_softmax of ints", lambda: T.tensor(ints(rng, k), device=dev).log_softmax(0))
    record.call("log_softmax('a')", lambda: w.log_softmax("a"))


@scenario(
    id="values.gather_scatter_and_index_add",
    rules=["N5"],
    topic="values",
    lecture=f"{LECTURE}#indexing-and-views",
)
def gather_scatter_and_index_add(T, record, rng):
    dev = record.device
    n, k = (int(v) for v in rng.integers(2, 5, size=2))
    x = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    picks = [[i, j, i] for i, j in ints(rng, (n, 2), 0, k)]
    idx = T.tensor(picks, device=dev)  # a column picked twice per row: its gradients add
    y = record.call("x.gather(1, idx)", lambda: x.gather(1, idx))
    record.call("backward of gather", lambda: _backward(y))
    record.grad("x.grad after gather", x)
    record.call("torch.gather(x, 0, rows)", lambda: T.gather(x, 0, T.zeros(1, k, dtype=T.long)))
    record.call("gather int32 index", lambda: x.gather(1, idx.int()))
    record.call("gather float index", lambda: x.gather(1, idx.float()))
    record.call("gather out of bounds", lambda: x.gather(1, idx + k))
    record.call("gather 1-d index", lambda: x.gather(1, idx[0]))
    record.call("gather index too wide", lambda: x.gather(0, T.zeros(1, k + 1, dtype=T.long)))
    record.call("gather('a', idx)", lambda: x.gather("a", idx))

    # distinct columns per row, so that no position is written twice
    cols = T.tensor([list(rng.permutation(k)[:2]) for _ in range(n)], device=dev)
    src = T.tensor(floats(rng, (n, 2), -2, 2), requires_grad=True, device=dev)
    x.grad = None
    h = x * 1
    record.call("h.scatter_(1, cols, src)", lambda: h.scatter_(1, cols, src))
    record.tensor("h after scatter_", h)
    record.call("backward of scatter_", lambda: _backward(h))
    record.grad("x.grad after scatter_", x)
    record.grad("src.grad", src)
    record.call("x.scatter(1, cols, number)", lambda: x.scatter(1, cols, 0.5))
    record.call("torch.scatter(x, 1, cols, value=)", lambda: T.scatter(x, 1, cols, value=2.0))
    record.call("scatter_ on a leaf", lambda: x.scatter_(1, cols, 1.0))
    record.call("scatter src of another dtype", lambda: x.scatter(1, cols, src.double()))
    record.call("scatter src too small", lambda: x.scatter(1, cols, src[:, :1]))
    record.call("scatter float index", lambda: x.scatter(1, cols.float(), 1.0))
    record.call("scatter without src", lambda: x.scatter(1, cols))
    # the legacy reductions: repeated positions combine; no derivative
    h = record.call("x.scatter(1, idx, number, reduce='add')",
                    lambda: x.scatter(1, idx, 0.5, reduce="add"))  # fmt: skip
    record.call("backward of scatter with reduce", lambda: _backward(h))
    record.call("scatter_ reduce='multiply'",
                lambda: x.detach().scatter_(1, idx, 2.0, reduce="multiply"))  # fmt: skip
    record.call("scatter reduce='mean'", lambda: x.scatter(1, idx, 2.0, reduce="mean"))

    rows = T.tensor(ints(rng, 3, 0, n), device=dev)  # repeated rows add up
    t = T.tensor(floats(rng, (3, k), -2, 2), requires_grad=True, device=dev)
    x.grad = None
    h = x * 1
    record.call("h.index_add_(0, rows, t, alpha=2)", lambda: h.index_add_(0, rows, t, alpha=2))
    record.tensor("h after index_add_", h)
    record.call("backward of index_add_", lambda: (h * h).sum().backward())
    record.grad("x.grad after index_add_", x)
    record.grad("t.grad", t)
    record.call("torch.index_add", lambda: T.index_add(x, 0, rows, t))
    record.call("index_add_ count", lambda: x.detach().index_add_(0, rows[:2], t))
    record.call("index_add_ out of range", lambda: x.detach().index_add_(0, rows + n, t))
    record.call("index_add_ 2-d index", lambda: x.detach().index_add_(0, rows[None], t))
    record.call("index_add_ float index", lambda: x.detach().index_add_(0, rows.float(), t))
    record.call("index_add_ dtypes", lambda: x.detach().index_add_(0, rows, t.double()))


@scenario(
    id="values.one_hot_nonzero_and_where",
    rules=["N5"],
    topic="values",
    lecture=f"{LECTURE}#indexing-and-views",
)
def one_hot_nonzero_and_where(T, record, rng):
    dev = record.device
    n, k = (int(v) for v in rng.integers(2, 5, size=2))
    F = T.nn.functional
    labels = T.tensor(ints(rng, n, 0, k), device=dev)
    record.call("one_hot(labels)", lambda: F.one_hot(labels))
    record.call("one_hot(labels, k + 1)", lambda: F.one_hot(labels, k + 1))
    record.call("one_hot(2-d)", lambda: F.one_hot(labels[:, None], num_classes=k))
    record.call("one_hot of floats", lambda: F.one_hot(labels.float()))
    record.call("one_hot negative", lambda: F.one_hot(labels - k))
    record.call("one_hot too few classes", lambda: F.one_hot(labels + k, k))
    record.call("one_hot of empty", lambda: F.one_hot(T.tensor([], dtype=T.long, device=dev)))
    record.call("one_hot('a')", lambda: F.one_hot("a"))

    m = T.tensor(ints(rng, (n, k), -1, 2), device=dev)
    x = T.tensor(floats(rng, (n, k), -2, 2), device=dev)
    record.call("m.nonzero()", lambda: m.nonzero())
    record.call("m.nonzero(as_tuple=True)", lambda: m.nonzero(as_tuple=True))
    record.call("torch.nonzero(x > 0)", lambda: T.nonzero(x > 0))
    record.call("torch.nonzero(x > 0, as_tuple=True)", lambda: T.nonzero(x > 0, as_tuple=True))
    record.call("nonzero of 0-d", lambda: m[0, 0].nonzero())
    record.call("nonzero of 0-d as tuple", lambda: m[0, 0].nonzero(as_tuple=True))
    record.call("torch.where(m)", lambda: T.where(m))
    record.call("torch.where(x > 0)", lambda: T.where(x > 0))
    record.call("x[torch.where(x > 0)]", lambda: x[T.where(x > 0)])
    record.call("torch.where(x > 0, x)", lambda: T.where(x > 0, x))
    record.call("m.nonzero(True)", lambda: m.nonzero(True))


@scenario(
    id="values.scatter_reduce_of_a_tensor_warns_once",
    rules=["N5"],
    topic="values",
    lecture=f"{LECTURE}#indexing-and-views",
    fresh_process=True,
)
def scatter_reduce_of_a_tensor_warns_once(T, record, rng):
    # The reduce argument with a tensor src is deprecated: PyTorch warns once per process
    # (observed in a fresh process), and has no derivative for it.
    n, k = (int(v) for v in rng.integers(2, 5, size=2))
    x = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=record.device)
    idx = T.tensor(ints(rng, (n, 3), 0, k), device=record.device)
    src = T.tensor(floats(rng, (n, 3), -2, 2), requires_grad=True, device=record.device)
    y = record.call("x.scatter(1, idx, src, reduce='multiply')",
                    lambda: x.scatter(1, idx, src, reduce="multiply"))  # fmt: skip
    record.call("backward of scatter with reduce", lambda: _backward(y))
    h = x * 1
    record.call("h.scatter_(1, idx, src, reduce='add') again",
                lambda: h.scatter_(1, idx, src, reduce="add"))  # fmt: skip
    record.tensor("h after scatter_ with reduce", h)
    record.call("backward of scatter_ with reduce", lambda: _backward(h))


@scenario(
    id="values.squeeze_cat_setitem_matmul_sizes",
    rules=["N5", "I4"],
    topic="values",
    lecture=f"{LECTURE}#indexing-and-views",
)
def squeeze_cat_setitem_matmul_sizes(T, record, rng):
    dev = record.device
    n, k = (int(v) for v in rng.integers(2, 5, size=2))
    x = T.tensor(floats(rng, (1, n, 1, k), -2, 2), requires_grad=True, device=dev)
    y = record.call("x.squeeze((0, 2))", lambda: x.squeeze((0, 2)))
    record.call("backward of squeeze", lambda: _backward(y * y))
    record.grad("x.grad after squeeze", x)
    record.call("torch.squeeze(x, (1,))", lambda: T.squeeze(x, (1,)))
    record.call("squeeze(())", lambda: x.squeeze(()))
    record.call("squeeze((0, 0))", lambda: x.squeeze((0, 0)))
    record.call("squeeze((0, 9))", lambda: x.squeeze((0, 9)))

    empty = T.tensor([], device=dev)
    a = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    record.call("cat([empty, a])", lambda: T.cat([empty, a]))
    record.call("cat([a, empty], 1)", lambda: T.cat([a, empty], 1))
    record.call("cat([empty, a]) dtype", lambda: T.cat([empty.double(), a]))
    record.call("cat([empty, 0-d])", lambda: T.cat([empty, a[0, 0]]))
    lone = T.tensor([], requires_grad=True, device=dev)  # skipped, yet still in the graph
    z = record.call("cat([a.detach(), lone])", lambda: T.cat([a.detach(), lone], 1))
    record.call("backward through cat with a skipped tensor", lambda: _backward(z * z))
    record.grad("lone.grad after cat", lone)
    z = record.call("cat([lone.half(), a])", lambda: T.cat([lone.half(), a]))
    record.call("backward of cat([lone.half(), a])", lambda: _backward(z))
    record.grad("lone.grad after a second cat", lone)
    record.grad("a.grad after cat", a)

    src = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    for label, index, value in (
        ("h[...] = src", Ellipsis, src),
        ("h[:] = row", slice(None), src[0].detach()),
        ("h[...] = number", Ellipsis, float(rng.uniform(-2, 2))),
        ("h[:, :] = 0-d", (slice(None), slice(None)), src[0, 0]),
        ("h[0:n] = src", slice(0, n), src),
        ("h[:1] = number", slice(0, 1), 1.5),
    ):
        a.grad = src.grad = None
        h = a * 2
        record.call(label, lambda: setitem(h, index, value))
        record.tensor(f"h after {label}", h)
        record.call(f"backward after {label}", lambda: (h * h).sum().backward())
        record.grad(f"a.grad after {label}", a)
        record.grad(f"src.grad after {label}", src)
    # A value of another size is viewed without its leading 1s and expanded (both in its
    # graph); through an advanced index it is only viewed (index_put broadcasts it).
    for label, index, vshape in (
        ("h[...] = (1, 1, k)", Ellipsis, (1, 1, k)),
        ("h[...] = (k,)", Ellipsis, (k,)),
        ("h[:1] = (1, 1, k)", slice(0, 1), (1, 1, k)),
        ("h[[0, 1]] = (1, 2, k)", [0, 1], (1, 2, k)),
        ("h[:, [0]] = (1, n, 1)", (slice(None), [0]), (1, n, 1)),
        ("h[..., None] = (1, n, k)", (Ellipsis, None), (1, n, k)),
    ):
        a.grad = None
        v = T.tensor(floats(rng, vshape, -2, 2), requires_grad=True, device=dev)
        h = a * 2
        record.call(label, lambda: setitem(h, index, v))
        record.tensor(f"h after {label}", h)
        record.call(f"backward after {label}", lambda: (h * h).sum().backward())
        record.grad(f"a.grad after {label}", a)
        record.grad(f"v.grad after {label}", v)
    record.call(
        "h[...] = 0-d on an expanded tensor",
        lambda: setitem(a.detach()[0].expand(n, k), Ellipsis, src[0, 0]),
    )

    m = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    batch = T.tensor(floats(rng, (3, k, 2), -2, 2), requires_grad=True, device=dev)
    one = T.tensor(floats(rng, (1, n, k), -2, 2), requires_grad=True, device=dev)
    const = T.tensor(floats(rng, (n, k), -2, 2), device=dev)
    record.call("matrix @ batch", lambda: m @ batch)
    record.call("constant matrix @ batch", lambda: const @ batch)
    record.call("batch of one @ batch", lambda: one @ batch)
    record.call("constant batch of one @ batch", lambda: one.detach() @ batch)
    y = m @ batch
    record.call("backward of matrix @ batch", lambda: _backward(y))
    record.grad("m.grad", m)
    record.grad("batch.grad", batch)

    size = T.tensor([n], device="cpu")
    record.call("zeros(tensor([n]))", lambda: T.zeros(size, device=dev))
    record.call("ones(tensor([n]), k)", lambda: T.ones(size, k, device=dev))
    record.call("zeros((tensor([n]), k))", lambda: T.zeros((size, k), device=dev))
    record.call("zeros(tensor([n, k]))", lambda: T.zeros(T.tensor([n, k]), device=dev))
    record.call("zeros(tensor([2.]))", lambda: T.zeros(T.tensor([2.0]), device=dev))
    record.call("sum(tensor([0]))", lambda: a.sum(T.tensor([0])))
    flag = T.tensor([True])  # the parser takes it as an integer; a size then refuses it
    record.call("zeros(tensor([True]))", lambda: T.zeros(flag, device=dev))
    record.call("view(tensor([True]), -1)", lambda: a.view(flag, -1))
    record.call("sum(tensor([True]))", lambda: a.sum(flag))
    record.call("permute(tensor([True]), 0)", lambda: a.permute(flag, 0))
    record.call("squeeze(tensor([n]))", lambda: a.squeeze(size))
