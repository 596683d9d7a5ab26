"""Scenarios: shapes, dims and indexing corners students meet (index tensors, dims out of
range, the error texts of indexing, joining and matmul, writes through expanded tensors,
reduction arguments, torch.Size and max(dim)'s result)."""

import numpy as np

from autograder.catalogue._data import floats, scalar
from autograder.catalogue._statements import iadd, setitem
from autograder.scenarios import scenario

LECTURE = "course/01_tensors_memory.ipynb"


def _shape(rng, ndim, low=2, high=5):
    return tuple(int(n) for n in rng.integers(low, high, size=ndim))


@scenario(id="basics.index_with_a_0d_index_tensor", rules=["N1", "L2", "I5"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def index_with_a_0d_index_tensor(T, record, rng):
    # x[x.argmax()] selects as x[int] does: a view recorded as SelectBackward0.
    dev = record.device
    n, k = _shape(rng, 2, 3, 6)
    x = T.tensor(floats(rng, n, -2, 2), requires_grad=True, device=dev)
    m = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    i, j = int(rng.integers(0, n)), int(rng.integers(0, k))
    it, jt = T.tensor(i, device=dev), T.tensor(j, device=dev)
    y = record.call("x[x.argmax()]", lambda: x[x.argmax()])
    record.call("x[x.argmax()] + 1", lambda: y + 1)
    record.call("x[T.tensor(i)]", lambda: x[it])
    record.call("x[T.tensor(i, dtype=int32)]", lambda: x[T.tensor(i, dtype=T.int32, device=dev)])
    record.call("m[T.tensor(i)] (a row)", lambda: m[it])
    record.call("m[T.tensor(i), T.tensor(j)]", lambda: m[it, jt])
    record.call("m[:, T.tensor(j)]", lambda: m[:, jt])
    record.call("m[T.tensor([i])] (1-D index: a copy)", lambda: m[T.tensor([i], device=dev)])
    w = T.tensor(floats(rng, k, -2, 2), device=dev)
    loss = x[x.argmax()] * scalar(rng) + (m[it] * w).sum() + m[it, jt] * x[it]
    record.call("backward through 0-d index tensors", lambda: loss.backward())
    record.grad("x.grad", x)
    record.grad("m.grad", m)
    d = m.detach()
    record.shares("m.detach()[T.tensor(i)] shares memory", d[it], d)
    record.call("write through d[T.tensor(i)]", lambda: d[it].mul_(scalar(rng, 2, 3)))
    record.tensor("m after the write", m)


@scenario(id="basics.view_node_names_of_indexing", rules=["L2", "N1"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def view_node_names_of_indexing(T, record, rng):
    dev = record.device
    n, k = _shape(rng, 2)
    m = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    i = int(rng.integers(0, n))
    record.call("m[...]", lambda: m[...])
    record.call("m[()]", lambda: m[()])
    record.call("m[:] (a lone slice)", lambda: m[:])
    record.call("m[:, :]", lambda: m[:, :])
    record.call("m[0:n, :]", lambda: m[0:n, :])
    record.call("m[i, 0:k]", lambda: m[i, 0:k])
    record.call("m[0:9, i]", lambda: m[0:9, min(i, k - 1)])
    record.call("m[i][...]", lambda: m[i][...])
    record.call("m[:, ::2]", lambda: m[:, ::2])
    y = m[...] * 2 + m[:, :] + m[i][...].sum()
    record.call("backward through aliases", lambda: y.sum().backward())
    record.grad("m.grad", m)


@scenario(id="basics.dims_out_of_range", rules=["N1"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def dims_out_of_range(T, record, rng):
    dev = record.device
    shape = _shape(rng, 2)
    x = T.tensor(floats(rng, shape), requires_grad=True, device=dev)
    s = T.tensor(scalar(rng), requires_grad=True, device=dev)
    record.tensor("x", x)
    big, low = 2 + int(rng.integers(0, 3)), -3 - int(rng.integers(0, 3))
    for d in (big, low):
        record.call(f"x.sum({d})", lambda d=d: x.sum(d))
        record.call(f"x.mean({d})", lambda d=d: x.mean(d))
        record.call(f"x.max({d})", lambda d=d: x.max(d))
        record.call(f"x.min({d})", lambda d=d: x.min(d))
        record.call(f"x.argmax({d})", lambda d=d: x.argmax(d))
        record.call(f"x.transpose(0, {d})", lambda d=d: x.transpose(0, d))
        record.call(f"x.squeeze({d})", lambda d=d: x.squeeze(d))
        record.call(f"x.size({d})", lambda d=d: x.size(d))
        record.call(f"x.unsqueeze({d + 1})", lambda d=d: x.unsqueeze(d + 1 if d > 0 else d - 1))
        record.call(
            f"stack([x, x], {d + 1})", lambda d=d: T.stack([x, x], d + 1 if d > 0 else d - 1)
        )
        record.call(f"cat([x, x], {d})", lambda d=d: T.cat([x, x], d))
        record.call(f"x.sum((0, {d}))", lambda d=d: x.sum((0, d)))
    record.call("x.unsqueeze(2) (in range)", lambda: x.unsqueeze(2))
    record.call("x.size(-1)", lambda: x.size(-1))
    for d in (0, -1):  # a 0-d tensor takes dim 0 and -1 in reductions
        record.call(f"s.sum({d})", lambda d=d: s.sum(d))
        record.call(f"s.mean({d}, True)", lambda d=d: s.mean(d, True))
        record.call(f"s.argmax({d})", lambda d=d: s.argmax(d))
        record.call(f"s.unsqueeze({d})", lambda d=d: s.unsqueeze(d))
        record.call(f"s.squeeze({d})", lambda d=d: s.squeeze(d))
    record.call("s.max(0).values", lambda: s.max(0).values)
    record.call(f"s.sum({big})", lambda: s.sum(big))
    record.call("s.size(0)", lambda: s.size(0))
    record.call("backward through s.sum(0)", lambda: (s.sum(0) * 3).backward())
    record.grad("s.grad", s)


@scenario(id="basics.indexing_error_texts", rules=["N1"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def indexing_error_texts(T, record, rng):
    dev = record.device
    n, k = _shape(rng, 2)
    m = T.tensor(floats(rng, (n, k)), device=dev)
    s = T.tensor(scalar(rng), device=dev)
    record.tensor("m", m)
    record.call("m[n] (out of bounds)", lambda: m[n])
    record.call("m[-n - 1]", lambda: m[-n - 1])
    record.call("m[0, k]", lambda: m[0, k])
    record.call("m[..., k]", lambda: m[..., k])
    record.call("m[T.tensor(n)]", lambda: m[T.tensor(n, device=dev)])
    record.call("m[T.tensor([0, n])]", lambda: m[T.tensor([0, n], device=dev)])
    record.call("m[:, T.tensor([k])]", lambda: m[:, T.tensor([k], device=dev)])
    record.call("m[0, 0, 0] (too many)", lambda: m[0, 0, 0])
    record.call("m[None, 0, 0, 0]", lambda: m[None, 0, 0, 0])
    record.call("s[0] (0-d)", lambda: s[0])
    record.call("s[:] (0-d)", lambda: s[:])
    record.call("s[..., 0] (0-d)", lambda: s[..., 0])
    record.call("s[None]", lambda: s[None])
    mask = T.tensor((rng.random(n + 1) > 0.5).tolist(), device=dev)
    wide = T.tensor((rng.random((n, k + 1)) > 0.5).tolist(), device=dev)
    record.call("m[mask of n + 1]", lambda: m[mask])
    record.call("m[:, mask of k + 1]", lambda: m[:, wide[0]])
    record.call("m[mask of shape (n, k + 1)]", lambda: m[wide])
    record.call("m[float index tensor]", lambda: m[T.tensor([scalar(rng)], device=dev)])
    record.call("m[1.5]", lambda: m[scalar(rng)])
    record.call("m[::-1]", lambda: m[::-1])
    record.call("m[:, ::-2]", lambda: m[:, ::-2])
    record.call("m[[0, 1], ::-1]", lambda: m[[0, 1], ::-1])


@scenario(id="basics.join_and_matmul_error_texts", rules=["N1"], topic="basics",
          lecture=f"{LECTURE}#broadcasting")  # fmt: skip
def join_and_matmul_error_texts(T, record, rng):
    dev = record.device
    n, k = _shape(rng, 2)
    a = T.tensor(floats(rng, (n, k)), device=dev)
    b = T.tensor(floats(rng, (n, k + 1)), device=dev)
    v = T.tensor(floats(rng, k), device=dev)
    u = T.tensor(floats(rng, k + 1), device=dev)
    s = T.tensor(scalar(rng), device=dev)
    record.tensor("a", a)
    record.call("cat([a, b]) (sizes differ)", lambda: T.cat([a, b]))
    record.call("cat([a, a, b])", lambda: T.cat([a, a, b]))
    record.call("cat([a, b.t()], 1)", lambda: T.cat([a, b.t()], 1))
    record.call("cat([a, b], 1) (fine)", lambda: T.cat([a, b], 1))
    record.call("cat([v, a]) (ndim differ)", lambda: T.cat([v, a]))
    record.call("cat([a, v])", lambda: T.cat([a, v]))
    record.call("cat([])", lambda: T.cat([]))
    record.call("stack([])", lambda: T.stack([]))
    record.call("stack([v, u])", lambda: T.stack([v, u]))
    record.call("stack(v) (no list)", lambda: T.stack(v))
    record.call("cat(a) (no list)", lambda: T.cat(a))
    record.call("stack([v, a list])", lambda: T.stack([v, floats(rng, k)]))
    record.call("a @ u (mv sizes)", lambda: a @ u)
    record.call("a.mv(u)", lambda: a.mv(u))
    record.call("a.mv(a)", lambda: a.mv(a))
    record.call("a @ v.double()", lambda: a @ v.double())
    record.call("v @ u (dot sizes)", lambda: v @ u)
    record.call("v.dot(u)", lambda: v.dot(u))
    record.call("v.dot(v.long())", lambda: v.dot(v.long()))
    record.call("v.double().dot(v)", lambda: v.double().dot(v))
    record.call("s @ v (0-d)", lambda: s @ v)
    record.call("v @ s (0-d)", lambda: v @ s)
    record.call("matmul(s, a)", lambda: T.matmul(s, a))
    record.call("a @ v (fine)", lambda: a @ v)


@scenario(id="basics.reduction_arguments", rules=["N1", "L2"], topic="basics",
          lecture=f"{LECTURE}#operations-and-in-place")  # fmt: skip
def reduction_arguments(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, _shape(rng, 2), -2, 2), requires_grad=True, device=dev)
    record.call("x.sum(())", lambda: x.sum(()))
    record.call("x.sum([])", lambda: x.sum([]))
    record.call("x.mean(())", lambda: x.mean(()))
    record.call("x.sum()", lambda: x.sum())
    record.call("x.sum(dim=None)", lambda: x.sum(dim=None))
    record.call("x.mean(dim=None)", lambda: x.mean(dim=None))
    record.call("x.sum(None, True)", lambda: x.sum(None, True))
    record.call("x.sum((0, 1), True)", lambda: x.sum((0, 1), True))
    record.call("x.sum((1, -1)) (repeated)", lambda: x.sum((1, -1)))
    record.call("x.sum(keepdim=True)", lambda: x.sum(keepdim=True))
    record.call("x.mean(keepdim=True)", lambda: x.mean(keepdim=True))
    record.call("x.sum(0, 1) (keepdim an int)", lambda: x.sum(0, 1))
    record.call("x.max(1, 2)", lambda: x.max(1, 2))
    record.call("x.max(keepdim=True)", lambda: x.max(keepdim=True))
    record.call("x.argmax(dim=None, keepdim=True)", lambda: x.argmax(dim=None, keepdim=True))
    k = int(rng.integers(2, 5))
    z = T.zeros(0, k, device=dev)
    record.call("zeros(0, k).argmax()", lambda: z.argmax())
    record.call("zeros(0, k).min()", lambda: z.min())
    record.call("zeros(0, k).max(0)", lambda: z.max(0))
    record.call("zeros(0, k).argmin(0)", lambda: z.argmin(0))
    record.call("zeros(0, k).max(1)", lambda: z.max(1))
    record.call("x.flatten(1, 0)", lambda: x.flatten(1, 0))
    record.call("x.sum(a float)", lambda: x.sum(scalar(rng)))
    loss = x.sum(()) + x.mean(dim=None) * scalar(rng)
    record.call("backward", lambda: loss.backward())
    record.grad("x.grad", x)


@scenario(id="basics.max_with_dim_returns_a_named_pair", rules=["N1", "N3"], topic="basics",
          lecture=f"{LECTURE}#operations-and-in-place")  # fmt: skip
def max_with_dim_returns_a_named_pair(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, _shape(rng, 2), -2, 2), requires_grad=True, device=dev)
    d = int(rng.integers(0, 2))
    r = record.call(f"x.max({d})", lambda: x.max(d))
    record.call("type name", lambda: type(r).__name__)
    record.call("repr", lambda: repr(r))
    record.call("has _fields", lambda: hasattr(r, "_fields"))
    record.call("values, indices", lambda: (r.values, r.indices))
    record.call("unpacked", lambda: tuple(r))
    record.call("x.min(d) type name and repr", lambda: (type(x.min(d)).__name__, repr(x.min(d))))


@scenario(id="basics.sizes_stay_sizes", rules=["N1", "N3"], topic="basics",
          lecture=f"{LECTURE}#creating-tensors")  # fmt: skip
def sizes_stay_sizes(T, record, rng):
    dev = record.device
    x = T.tensor(floats(rng, _shape(rng, 3)), device=dev)
    record.tensor("x", x)
    record.call("repr(x.shape[0:1])", lambda: repr(x.shape[0:1]))
    record.call("repr(x.shape[1:])", lambda: repr(x.shape[1:]))
    record.call("repr(x.shape + (1,))", lambda: repr(x.shape + (1,)))
    record.call("repr((1,) + x.shape)", lambda: repr((1,) + x.shape))
    record.call("repr(x.shape * 2)", lambda: repr(x.shape * 2))
    record.call("x.shape[-1] (an int)", lambda: (type(x.shape[-1]).__name__, x.shape[-1]))
    record.call("x.view(x.shape[1:] + (-1,))", lambda: x.view(x.shape[1:] + (-1,)))
    record.call("bool(empty tensor)", lambda: bool(x[x > 9]))
    record.call("tensor(ragged lists)", lambda: T.tensor([floats(rng, 2), floats(rng, 1)]))
    record.call("tensor([list, number])", lambda: T.tensor([floats(rng, 2), scalar(rng)]))


@scenario(id="basics.type_names_in_messages", rules=["N3"], topic="basics",
          lecture=f"{LECTURE}#creating-tensors")  # fmt: skip
def type_names_in_messages(T, record, rng):
    # Python's own messages name Size, dtype and device as PyTorch's C classes are named
    # (torch.Size), while their __name__ is the bare one; size, dim, item... are built-in
    # methods to Python, as PyTorch's are.
    x = T.tensor(floats(rng, _shape(rng, 2)), device=record.device)
    record.tensor("x", x)
    record.call("x.shape()", lambda: x.shape())
    record.call("x.size()()", lambda: x.size()())
    record.call("x.dtype()", lambda: x.dtype())
    record.call("x.device()", lambda: x.device())
    record.call("x.shape.foo", lambda: x.shape.foo)
    record.call("x.dtype.foo", lambda: x.dtype.foo)
    record.call("len(x.dtype)", lambda: len(x.dtype))
    record.call("x.device[0]", lambda: x.device[0])
    record.call("x.dtype < x.dtype", lambda: x.dtype < x.dtype)
    k = int(rng.integers(1, 4))
    record.call("x.shape + k", lambda: x.shape + k)
    record.call("x.shape + [k]", lambda: x.shape + [k])
    record.call("[k] + x.shape", lambda: [k] + x.shape)
    record.call("float(x.shape)", lambda: float(x.shape))
    record.call("x.foo", lambda: x.foo)
    record.call("x.size[0]", lambda: x.size[0])
    record.call("x.dim[0]", lambda: x.dim[0])
    record.call("x.item[0]", lambda: x.item[0])
    record.call("x.numel + 1", lambda: x.numel + 1)
    record.call("x.size.__name__", lambda: x.size.__name__)
    for name, obj in (("Tensor", x), ("Size", x.shape), ("dtype", x.dtype), ("device", x.device)):
        record.call(f"type of {name}: names",
                    lambda obj=obj: (type(obj).__name__, type(obj).__qualname__,
                                     str(type(obj))))  # fmt: skip


@scenario(id="basics.writes_through_expand", rules=["I5", "N1"], topic="basics",
          lecture=f"{LECTURE}#indexing-and-views")  # fmt: skip
def writes_through_expand(T, record, rng):
    # An expanded tensor shows its source's memory several times: PyTorch lets zero_, fill_
    # and a write into one select through, and refuses the rest.
    dev = record.device
    n, k = _shape(rng, 2)
    v = T.tensor(floats(rng, k), device=dev)
    e = v.expand(n, k)
    record.shares("e shares memory with v", e, v)
    record.call("e[0] = s", lambda: setitem(e, 0, scalar(rng, 3, 4)))
    record.tensor("v after e[0] = s", v)
    record.call("e[1] = t", lambda: setitem(e, 1, T.tensor(floats(rng, k), device=dev)))
    record.tensor("v after e[1] = t", v)
    record.call("e.add_(1)", lambda: e.add_(1))
    record.call("e += 1", lambda: iadd(e, 1))
    record.call("e.mul_(s)", lambda: e.mul_(scalar(rng)))
    record.call("e.copy_(ones)", lambda: e.copy_(T.ones(n, k, device=dev)))
    record.call("e[:] = s", lambda: setitem(e, slice(None), scalar(rng)))
    record.call("e.clamp_(0, 1)", lambda: e.clamp_(0, 1))
    record.call("e.fill_(s)", lambda: e.fill_(scalar(rng)))
    record.tensor("v after e.fill_", v)
    record.call("e.zero_()", lambda: e.zero_())
    leaf = T.tensor(floats(rng, k), requires_grad=True, device=dev)
    record.call("leaf.expand(n, k).add_(1)", lambda: leaf.expand(n, k).add_(1))
    record.tensor("v after e.zero_()", v)
    record.call(f"v.expand({n + 1}, {k + 1})", lambda: v.expand(n + 1, k + 1))
    record.call("e.expand(k)", lambda: e.expand(k))
    record.call("e.expand(-1, k)", lambda: e.expand(-1, k))
    record.call("e.expand(-1, n, k)", lambda: e.expand(-1, n, k))
    record.call("e.permute(0)", lambda: e.permute(0))
    record.call("e.permute(1, 1)", lambda: e.permute(1, 1))
    record.call(f"e.permute(0, {2 + n % 2})", lambda: e.permute(0, 2 + n % 2))
    record.call("e.permute(-1, 0)", lambda: e.permute(-1, 0))


@scenario(id="basics.assigning_values_by_index", rules=["N1", "I5"], topic="basics",
          lecture=f"{LECTURE}#operations-and-in-place")  # fmt: skip
def assigning_values_by_index(T, record, rng):
    dev = record.device
    n, k = _shape(rng, 2)
    z = T.zeros(n, k, device=dev)
    row = floats(rng, k)
    record.call(
        "z[0, 0] = tensor([s])", lambda: setitem(z, (0, 0), T.tensor([scalar(rng)], device=dev))
    )
    record.call(
        "z[0, 1] = tensor([[s]])", lambda: setitem(z, (0, 1), T.tensor([[scalar(rng)]], device=dev))
    )
    record.call("z[1] = tensor([row])", lambda: setitem(z, 1, T.tensor([row], device=dev)))
    record.tensor("z after the writes", z)
    record.call(
        "z[0] = tensor of k + 1", lambda: setitem(z, 0, T.tensor(floats(rng, k + 1), device=dev))
    )
    record.call(
        "z[0, 0] = tensor of 2", lambda: setitem(z, (0, 0), T.tensor(floats(rng, 2), device=dev))
    )
    record.call(
        "z[0] = tensor of 2 rows", lambda: setitem(z, 0, T.tensor(floats(rng, (2, k)), device=dev))
    )
    record.call("z[0] = list", lambda: setitem(z, 0, row))
    record.call("z[0] = tuple", lambda: setitem(z, 0, tuple(row)))
    record.call("z[0] = ndarray", lambda: setitem(z, 0, np.array(row)))
    record.call("z[0] = np.float64", lambda: setitem(z, 0, np.float64(scalar(rng))))
    record.call("z.long()[0] = ndarray", lambda: setitem(z.long(), 0, np.array(row)))
    record.call("z[[0]] = list", lambda: setitem(z, [0], row))
    record.call("z[0] = None", lambda: setitem(z, 0, None))
    record.call("z[0].copy_(list)", lambda: z[0].copy_(row))
    record.call("z[0].copy_(ndarray)", lambda: z[0].copy_(np.array(row)))
    record.call("z[0].copy_(s)", lambda: z[0].copy_(scalar(rng)))
    record.call(
        "z[0].copy_(tensor of k + 1)", lambda: z[0].copy_(T.tensor(floats(rng, k + 1), device=dev))
    )
    record.call("z.copy_(tensor of shape (2, n, k))",
                lambda: z.copy_(T.tensor(floats(rng, (2, n, k)), device=dev)))  # fmt: skip
    record.tensor("z at the end", z)
