"""Scenarios: views whose numbers go silently wrong in a wrong engine: a view that shows one
memory location several times (an expanded tensor) whose base then changes in place, and list
indices PyTorch 2.13 still reads as a tuple of indices.

Every value is drawn from the seed; gradients are taken against random weights `w`.
"""

from autograder.catalogue._data import floats, scalar
from autograder.catalogue._statements import setitem
from autograder.scenarios import scenario

INPLACE = "course/04_inplace_versions.ipynb"
MEMORY = "course/01_tensors_memory.ipynb"


# Views of h (shape (1, k)) that show each of its elements several times, by label.
REPEATING_VIEWS = {
    "h.expand(n, k)": lambda h, n, k, j: h.expand(n, k),
    "h.expand(n, k).t()": lambda h, n, k, j: h.expand(n, k).t(),
    "h.expand(n, k)[j:]": lambda h, n, k, j: h.expand(n, k)[j:],
    "h.expand(2, n, k)": lambda h, n, k, j: h.expand(2, n, k),
    "h.t().expand(k, n)": lambda h, n, k, j: h.t().expand(k, n),
    "h[0].expand(n, k)": lambda h, n, k, j: h[0].expand(n, k),
}


@scenario(
    id="values.repeating_view_after_its_base_changes",
    rules=["I4", "N1"],
    topic="values",
    lecture=f"{INPLACE}#setitem-and-copyslices",
)
def repeating_view_after_its_base_changes(T, record, rng):
    # After an in-place change of its base, a view's history is rebuilt (AsStridedBackward0).
    # Where the view shows one element of the base several times, each showing's gradient is
    # added into that element: an engine that writes them back one over another keeps only the
    # last one's, with no error.
    dev = record.device
    n, k = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    s = scalar(rng, 1.5, 3.0)
    j = int(rng.integers(1, n))
    for label, make in REPEATING_VIEWS.items():
        x = T.tensor(floats(rng, (1, k), -2, 2), requires_grad=True, device=dev)
        h = x * 1.0
        y = make(h, n, k, j)
        record.call(f"{label}, then h.mul_(s)", lambda h=h: h.mul_(s))
        record.tensor(f"y = {label} after h.mul_(s)", y)
        w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
        record.call(f"backward through y = {label}", lambda y=y, w=w: (y * w).sum().backward())
        record.grad(f"x.grad through y = {label}", x)

    # a write through a detached alias bumps the same version: the view is rebuilt as well
    x = T.tensor(floats(rng, (1, k), -2, 2), requires_grad=True, device=dev)
    h = x * 1.0
    y = h.expand(n, k)
    record.call("h.detach().mul_(1.0)", lambda: h.detach().mul_(1.0))
    w = T.tensor(floats(rng, (n, k), -2, 2), device=dev)
    record.call("backward through h.expand(n, k)", lambda: (y * w).sum().backward())
    record.grad("x.grad after a write through h.detach()", x)


@scenario(
    id="values.list_index_read_as_a_tuple",
    rules=["N1", "I5"],
    topic="values",
    lecture=f"{MEMORY}#indexing-and-views",
)
def list_index_read_as_a_tuple(T, record, rng):
    # A list holding a list, slice, tensor, None or Ellipsis is a tuple of indices in PyTorch
    # 2.13 (with a deprecation warning): x[[[0, 1]]] is x[[0, 1]], one index per dimension,
    # not a 2-D index. A list of plain ints stays one index, without warning.
    dev = record.device
    n, k = int(rng.integers(3, 6)), int(rng.integers(2, 5))
    x = T.tensor(floats(rng, (n, k), -2, 2), requires_grad=True, device=dev)
    i, j = (int(v) for v in rng.integers(0, n, size=2))
    c = int(rng.integers(0, k))
    indices = {
        "x[[[i, j]]]": [[i, j]],
        "x[[[i, j], [c, c]]]": [[i, j], [c, c]],
        "x[[[i, j], c]]": [[i, j], c],
        "x[[[[i, j]]]]": [[[i, j]]],
        "x[[i, [c]]]": [i, [c]],
        "x[[slice(None), [c]]]": [slice(None), [c]],
        "x[[None, [i]]]": [None, [i]],
        "x[[Ellipsis, [c]]]": [Ellipsis, [c]],
        "x[[(i, j)]]": [(i, j)],
        "x[[T.tensor([i, j])]]": [T.tensor([i, j], device=dev)],
        "x[[i, j]] (ints: one index)": [i, j],
        "x[([i, j],)] (a tuple)": ([i, j],),
    }
    for label, index in indices.items():
        record.call(label, lambda index=index: x[index])
    y = x[[[i, j]]]
    w = T.tensor(floats(rng, tuple(y.shape), -2, 2), device=dev)
    record.call("backward through x[[[i, j]]]", lambda: (y * w).sum().backward())
    record.grad("x.grad through x[[[i, j]]]", x)
    z = T.zeros(n, k, device=dev)
    v = scalar(rng)
    record.call("z[[[i, j]]] = v", lambda: setitem(z, [[i, j]], v))
    record.tensor("z after z[[[i, j]]] = v", z)
