"""Joining: stack and cat (the rebuilding_tensors assignment's seams), where, and repeat."""

import builtins

from .. import _dtypes
from .. import _messages as msg
from .._size import wrap_dim
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import (
    _arr,
    _as_operand,
    _check_devices,
    _checked_scalar,
    _edge,
    _meta,
    _needs_grad,
    _refuse_uint64_with_bool,
    _saved_on,
    array_module,
    quiet_functions,
    unbroadcast,
)


def _join_prepare(tensors, what):
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{what}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {msg.type_name(t)}"
            )
    if not tensors:
        if what == "cat":
            raise ValueError(msg.CAT_EMPTY)
        raise RuntimeError(msg.STACK_EMPTY)
    device = tensors[0]._device
    for t in tensors[1:]:
        if t._device != device:
            raise RuntimeError(msg.devices_differ(device, t._device))
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote(dtype, t._dtype)
    return tensors, dtype, device


def stack(tensors, dim=0):
    return _rebuild.stack(tensors, dim)


def cat(tensors, dim=0):
    tensors, skipped, dtype = _without_legacy_empty(tensors)
    out = _rebuild.cat(tensors, dim)
    if not skipped:
        return out
    if dtype is not out._dtype:  # a skipped tensor's dtype promoted the result
        out = Tensor._make(_arr(out._data.astype(dtype.np), dtype), out._device, dtype)
    out._grad_fn = None
    if dtype.is_floating_point and _needs_grad(*tensors, *(t for _, t in skipped)):
        out._grad_fn = _CatWithLegacyEmpty(tensors, skipped, wrap_dim(dim, out._data.ndim))
    return out


def _without_legacy_empty(tensors):
    """PyTorch's cat skips an empty 1-D tensor (its legacy "no data" placeholder) among
    tensors of other ranks; its dtype still joins the promotion. Returns the tensors to join,
    the skipped ones with their positions, and the result's dtype."""
    unchanged = tensors, [], None
    if isinstance(tensors, Tensor) or not builtins.all(isinstance(t, Tensor) for t in tensors):
        return unchanged  # refused by the seam, with PyTorch's text
    tensors = list(tensors)
    kept = [t for t in tensors if t._data.shape != (0,)]
    if len(kept) == len(tensors) or builtins.all(t._data.ndim == 1 for t in kept):
        return unchanged
    if builtins.any(t._data.ndim == 0 for t in kept):
        return unchanged  # refused by the seam, which counts the positions
    dtype = _join_prepare(tensors, "cat")[1]
    return kept, [(i, t) for i, t in enumerate(tensors) if t._data.shape == (0,)], dtype


_ONLY_CONDITION = object()


class WhereBackward0(Node):
    def __init__(self, edges, a_meta, b_meta):
        super().__init__(edges)
        self.a_meta, self.b_meta = a_meta, b_meta

    def apply(self, g):
        xp = array_module(g)
        cond = self.unpack()["condition"]
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = unbroadcast(xp.where(cond, g, 0), *self.a_meta)
        if self._next_nodes[1] is not None:
            gb = unbroadcast(xp.where(cond, 0, g), *self.b_meta)
        return ga, gb


def where(condition, input=_ONLY_CONDITION, other=_ONLY_CONDITION):  # noqa: A002
    if input is _ONLY_CONDITION and other is _ONLY_CONDITION:  # where(cond): its nonzero indices
        return condition.nonzero(as_tuple=True)
    if input is _ONLY_CONDITION or other is _ONLY_CONDITION:
        raise TypeError(msg.PARSER_REFUSED.format("where"))
    if condition._dtype is not _dtypes.bool:
        raise RuntimeError(msg.where_condition(_dtypes.SCALAR_TYPE_NAME[condition._dtype]))
    # Python (or NumPy) numbers on either side promote as in a binary op; with two numbers
    # the result takes the default dtype of their category, on the condition's device.
    ref = condition  # the tensor whose device the result takes (a 0-d CPU one joins others)
    for t in (input, other):
        if isinstance(t, Tensor) and _check_devices(ref, t) is not ref._device:
            ref = t
    for t in (input, other):
        if isinstance(t, Tensor):
            _refuse_uint64_with_bool(t._dtype, other if t is input else input)
    dtype = _dtypes.result_type(*(x for x in (input, other)))
    input, other = (_checked_scalar(x, dtype, half=False) for x in (input, other))
    a = _as_operand(input, dtype, ref._device)
    b = _as_operand(other, dtype, ref._device)
    cond = _as_operand(condition, _dtypes.bool, ref._device)
    data = _arr(ref._xp.where(cond, a, b), dtype)
    out = Tensor._make(data, ref._device, dtype)
    if _needs_grad(input, other) and dtype.is_floating_point:
        node = WhereBackward0(
            (_edge(input), _edge(other)),
            _meta(input, ref._device) if isinstance(input, Tensor) else None,
            _meta(other, ref._device) if isinstance(other, Tensor) else None,
        )
        node.save(condition=condition)
        _saved_on(node, ref._device)
        out._grad_fn = node
    return out


class RepeatBackward0(Node):
    def __init__(self, edges, in_shape, repeats):
        super().__init__(edges)
        self.in_shape, self.repeats = in_shape, repeats

    def apply(self, g):
        # the repeated shape split into (repeat, size) pairs, summed over the repeats
        lead = len(self.repeats) - len(self.in_shape)
        shape = (1,) * lead + tuple(self.in_shape)
        split = []
        for r, n in zip(self.repeats, shape):
            split += [r, n]
        g = g.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return (g.reshape(self.in_shape),)


def repeat(self, *sizes):
    from .._size import normalize_size

    reps = normalize_size(sizes)
    nd = self._data.ndim
    if len(reps) < nd:
        raise RuntimeError(msg.REPEAT_TOO_FEW_DIMS)
    if builtins.any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension {builtins.min(reps)}")
    shape = (1,) * (len(reps) - nd) + self._data.shape
    data = self._xp.tile(self._data.reshape(shape), reps)
    out = Tensor._make(data, self._device, self._dtype)
    if _needs_grad(self) and self._dtype.is_floating_point:
        out._grad_fn = RepeatBackward0((self._edge(),), self._data.shape, reps)
    return out


class StackBackward0(Node):
    def __init__(self, edges, dim, metas):
        super().__init__(edges)
        self.dim, self.metas = dim, metas

    def apply(self, g):
        return _rebuild.stack_backward(g, self.dim, self.metas, self._next_nodes)


class CatBackward0(Node):
    def __init__(self, edges, dim, metas):
        super().__init__(edges)
        self.dim, self.metas = dim, metas

    def apply(self, g):
        return _rebuild.cat_backward(g, self.dim, self.metas, self._next_nodes)


class _CatWithLegacyEmpty(CatBackward0):
    """The CatBackward0 of a cat that skipped legacy empty tensors: PyTorch keeps an edge to
    each of them, and each gets an empty gradient."""

    def __init__(self, joined, skipped, dim):
        edges = [_edge(t) for t in joined]
        for i, t in skipped:
            edges.insert(i, _edge(t))
        super().__init__(tuple(edges), dim, [_meta(t) for t in joined])
        self.skipped = {i: t._data.dtype for i, t in skipped}

    def apply(self, g):
        joined = [n for i, n in enumerate(self._next_nodes) if i not in self.skipped]
        parts = iter(_rebuild.cat_backward(g, self.dim, self.metas, joined))
        xp = array_module(g)
        return tuple(
            (xp.zeros((0,), self.skipped[i]) if node is not None else None)
            if i in self.skipped
            else next(parts)
            for i, node in enumerate(self._next_nodes)
        )


_CatWithLegacyEmpty.__name__ = _CatWithLegacyEmpty.__qualname__ = "CatBackward0"  # as PyTorch

quiet_functions(globals())

METHODS = {"repeat": repeat}

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import rebuilding_tensors as _rebuild  # noqa: E402
