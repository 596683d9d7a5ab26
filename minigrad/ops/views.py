"""Views: tensors sharing their base's memory and version counter (view, reshape, t,
transpose, permute, (un)squeeze, expand, narrow, unbind, chunk), and the gradient scattered
back into the region a view shows."""

import builtins

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from .._size import wrap_dim
from .._warnings import warn
from ..autograd import grad_mode
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import _needs_grad, add_at, array_module, quiet_functions, unbroadcast
from .linalg import UnsafeViewBackward0


def _view(self, data, node_cls, view_fn, *node_args, flags=None):
    """A tensor sharing `self`'s memory and version counter, recorded as a view."""
    base = self._base if self._base is not None else self
    out = Tensor._make(data, self._device, self._dtype)
    _versions.share_version(out, self)
    out._base = base
    parent_fn = self._view_fn
    out._view_fn = view_fn if parent_fn is None else (lambda a: view_fn(parent_fn(a)))
    out._view_version = self._version_counter.value
    # PyTorch's creation meta: made under no_grad, or one of several outputs; a view of such
    # a view keeps its base view's mark unless it gets one of its own.
    if not grad_mode._enabled:
        flags = "no_grad"
    out._view_flags = flags if flags is not None else self._view_flags
    if node_cls is not None and grad_mode._enabled and self.requires_grad:
        out._grad_fn = node_cls((self._edge(),), *node_args)
    return out


class _Reshaping(Node):
    """Views that only rearrange elements: the gradient is rearranged back."""

    def __init__(self, edges, in_shape, back):
        super().__init__(edges)
        self.in_shape, self.back = in_shape, back

    def apply(self, g):
        return (self.back(g),)


class ViewBackward0(_Reshaping):
    pass


def view(self, *shape):
    from .._size import normalize_size

    if len(shape) == 1 and isinstance(shape[0], _dtypes.dtype):
        raise NotImplementedError("view(dtype) is outside the course subset")
    target = _shape_for(self, normalize_size(shape))
    data = _reshape_no_copy(self._data, target)
    if data is None:
        raise RuntimeError(msg.VIEW_NOT_COMPATIBLE)
    src_shape = self._data.shape
    return _view(
        self,
        data,
        ViewBackward0,
        lambda a: a.reshape(target),
        src_shape,
        lambda g: g.reshape(src_shape),
    )


def _shape_for(self, shape):
    numel = self._data.size
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        shape[shape.index(-1)] = numel // known if known and numel % known == 0 else -1
    n = 1
    for s in shape:
        n *= s
    if numel == 0 and -1 in shape:  # -1 next to a 0 could be any size
        raise RuntimeError(msg.reshape_ambiguous(list(shape)))
    if n != numel or -1 in shape:
        shown = [s for s in shape]
        raise RuntimeError(f"shape '{shown}' is invalid for input of size {numel}")
    return tuple(shape)


def _reshape_no_copy(arr, shape):
    try:
        return arr.reshape(shape, copy=False)
    except (ValueError, TypeError):
        return None


def view_as(self, other):
    return view(self, *other.shape)


def reshape(self, *shape):
    from .._size import normalize_size

    target = _shape_for(self, normalize_size(shape))
    if _reshape_no_copy(self._data, target) is not None:
        return view(self, *target)
    out = Tensor._make(self._data.reshape(target), self._device, self._dtype)
    if _needs_grad(self):
        out._grad_fn = UnsafeViewBackward0((self._edge(),), self._data.shape)
    return out


def flatten(self, start_dim=0, end_dim=-1):
    shape = self._data.shape
    if not shape:
        return reshape(self, 1)
    s, e = wrap_dim(start_dim, len(shape)), wrap_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    n = 1
    for d in shape[s : e + 1]:
        n *= d
    return reshape(self, *(shape[:s] + (n,) + shape[e + 1 :]))


def _perm_view(self, perm, node_cls):
    inverse = tuple(np.argsort(perm))
    data = self._data.transpose(perm)
    return _view(
        self,
        data,
        node_cls,
        lambda a: a.transpose(perm),
        self._data.shape,
        lambda g: g.transpose(inverse),
    )


class TBackward0(_Reshaping):
    pass


def t(self):
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    perm = tuple(reversed(range(nd)))
    return _perm_view(self, perm, TBackward0)


class PermuteBackward0(_Reshaping):
    pass


def T(self):
    nd = self._data.ndim
    if nd == 0:  # PyTorch warns once per process for each of the two deprecations
        warn(msg.T_ON_ZERO_DIM, once_key="T-on-0-d")
    elif nd != 2:
        warn(msg.T_NOT_2D, once_key="T-not-2-d")
    return _perm_view(self, tuple(reversed(range(nd))), PermuteBackward0)


class TransposeBackward0(_Reshaping):
    pass


def transpose(self, dim0, dim1):
    nd = self._data.ndim
    perm = list(range(nd))
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    if perm:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _perm_view(self, tuple(perm), TransposeBackward0)


def permute(self, *dims):
    from .._size import normalize_dims

    nd = self._data.ndim
    dims = normalize_dims(dims)
    if len(dims) != nd:
        raise RuntimeError(msg.permute_length(nd, len(dims)))
    perm = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(perm)) != nd:
        raise RuntimeError(msg.PERMUTE_DUPLICATE)
    return _perm_view(self, perm, PermuteBackward0)


class UnsqueezeBackward0(_Reshaping):
    pass


def unsqueeze(self, dim):
    d = wrap_dim(dim, self._data.ndim + 1)
    shape = self._data.shape
    new = shape[:d] + (1,) + shape[d:]
    return _view(
        self,
        self._data.reshape(new),
        UnsqueezeBackward0,
        lambda a: a.reshape(new),
        shape,
        lambda g: g.reshape(shape),
    )


class SqueezeBackward0(_Reshaping):
    pass


class SqueezeBackward1(_Reshaping):
    pass


class SqueezeBackward2(_Reshaping):
    """squeeze with a tuple of dims."""


def squeeze(self, dim=None):
    shape = self._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
        node = SqueezeBackward0
    elif isinstance(dim, (tuple, list)):
        dims = [wrap_dim(d, len(shape)) for d in dim]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(msg.dim_repeated(d))
        new = tuple(s for i, s in enumerate(shape) if i not in dims or s != 1)
        node = SqueezeBackward2
    else:
        d = wrap_dim(dim, len(shape))
        new = shape[:d] + shape[d + 1 :] if shape and shape[d] == 1 else shape
        node = SqueezeBackward1
    return _view(
        self,
        self._data.reshape(new),
        node,
        lambda a: a.reshape(new),
        shape,
        lambda g: g.reshape(shape),
    )


class ExpandBackward0(Node):
    def __init__(self, edges, in_shape):
        super().__init__(edges)
        self.in_shape = in_shape

    def apply(self, g):
        return (unbroadcast(g, self.in_shape),)


def expand(self, *sizes):
    from .._size import normalize_size

    shape = self._data.shape
    target = _expanded_shape(self, normalize_size(sizes))
    data = _broadcast_view(self._data, target)
    return _view(self, data, ExpandBackward0, lambda a: _broadcast_view(a, target), shape)


def _expanded_shape(self, sizes):
    """The shape `self.expand(*sizes)` has, refused with PyTorch's texts."""
    shape = self._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(msg.expand_too_few(self.type(), shape, sizes))
    lead = len(sizes) - len(shape)
    out = list(sizes)
    for i in reversed(range(len(sizes))):  # PyTorch checks from the last dim
        if i < lead:
            if sizes[i] < 0:
                raise RuntimeError(msg.expand_leading(sizes[i], i))
        else:
            have = shape[i - lead]
            if sizes[i] == -1:
                out[i] = have
            elif have != 1 and sizes[i] != have:
                raise RuntimeError(msg.expand_mismatch(sizes[i], have, i, sizes, shape))
    return tuple(out)


def _broadcast_view(a, shape):
    """A broadcast view that can be written through, as PyTorch's expanded tensors can (by
    zero_, fill_ or a select of them); NumPy's broadcast_to is read-only."""
    out = array_module(a).broadcast_to(a, shape)
    if isinstance(out, np.ndarray) and a.flags.writeable:
        out = np.lib.stride_tricks.as_strided(a, out.shape, out.strides, writeable=True)
    return out


def _overlaps_itself(data):
    """Whether several elements share one memory location (an expanded dimension). An empty
    array has none, though NumPy gives it zero strides."""
    return data.size > 0 and builtins.any(
        st == 0 and n > 1 for st, n in zip(data.strides, data.shape)
    )


def expand_as(self, other):
    return expand(self, *other.shape)


class UnbindBackward0(Node):
    """unbind (also behind `for row in t`): one output per slice along `dim`."""

    def __init__(self, edges, in_shape, dim, n):
        super().__init__(edges)
        self.in_shape, self.dim = in_shape, dim
        self.n_outputs = n

    def apply(self, *grads):
        xp = array_module(next(g for g in grads if g is not None))
        dtype = next(g for g in grads if g is not None).dtype
        parts = [
            xp.zeros(self.in_shape[: self.dim] + self.in_shape[self.dim + 1 :], dtype=dtype)
            if g is None
            else g
            for g in grads
        ]
        return (xp.stack(parts, axis=self.dim),)


def unbind(self, dim=0):
    d = wrap_dim(dim, self._data.ndim)
    n = self._data.shape[d]
    node = None
    if _needs_grad(self):
        node = UnbindBackward0((self._edge(),), self._data.shape, d, n)
    outs = []
    for i in range(n):
        index = (slice(None),) * d + (i, Ellipsis)
        part = _view(self, self._data[index], None, _index_fn(index), flags="multi:Unbind")
        if node is not None:
            part._grad_fn = node
            part._output_nr = i
        outs.append(part)
    return tuple(outs)


class SplitBackward0(Node):
    """chunk/split: one output per piece along `dim`; missing gradients are zeros."""

    def __init__(self, edges, in_shape, dim, sizes):
        super().__init__(edges)
        self.in_shape, self.dim, self.sizes = in_shape, dim, sizes
        self.n_outputs = len(sizes)

    def apply(self, *grads):
        first = next(g for g in grads if g is not None)
        xp = array_module(first)
        parts = []
        for g, n in zip(grads, self.sizes):
            if g is None:
                shape = list(self.in_shape)
                shape[self.dim] = n
                g = xp.zeros(shape, dtype=first.dtype)
            parts.append(g)
        return (xp.concatenate(parts, axis=self.dim),)


def chunk(self, chunks, dim=0):
    nd = self._data.ndim
    if nd == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, nd)
    size = self._data.shape[d]
    step = -(-size // chunks)
    sizes = [builtins.min(step, size - i) for i in range(0, size, step)] if step else [0]
    node = None
    if _needs_grad(self):
        node = SplitBackward0((self._edge(),), self._data.shape, d, sizes)
    outs, begin = [], 0
    for i, n in enumerate(sizes):
        index = (slice(None),) * d + (slice(begin, begin + n), Ellipsis)
        begin += n
        part = _view(self, self._data[index], None, _index_fn(index), flags="multi:Split")
        if node is not None:
            part._grad_fn = node
            part._output_nr = i
        outs.append(part)
    return tuple(outs)


def _may_overlap(a):
    """Whether two elements of `a` may share a memory location, decided from its strides as
    PyTorch decides it (sorted by stride, each must step past the span of the smaller ones)."""
    if a.size == 0:
        return False
    span = 0
    for stride, n in sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n > 1):
        if stride <= span:
            return True
        span += stride * (n - 1)
    return False


def _scatter_into_view(view_fn, in_shape, g):
    """A zero gradient of `in_shape` with `g` added through the positions `view_fn` shows.

    Where the view repeats a memory location (an expanded dimension, a view of one), each
    repetition adds its part, as PyTorch's as_strided backward does: assigning through the view
    would keep only the last repetition's part.
    """
    xp = array_module(g)
    out = xp.zeros(in_shape, dtype=g.dtype)
    region = view_fn(out)
    if not _may_overlap(region):
        region[...] = g
        return out
    positions = view_fn(xp.arange(out.size).reshape(in_shape))
    add_at(out.reshape(-1), positions.reshape(-1), g.reshape(-1))
    return out


class _ViewOf(Node):
    """A view: the gradient is scattered back into the region of the input it shows."""

    def __init__(self, edges, in_shape, in_dtype, view_fn):
        super().__init__(edges)
        self.in_shape, self.in_dtype, self.view_fn = in_shape, in_dtype, view_fn

    def apply(self, g):
        return (_scatter_into_view(self.view_fn, self.in_shape, g),)


class SliceBackward0(_ViewOf):
    pass


def narrow(self, dim, start, length):
    nd = self._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, nd)
    size = self._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    index = (slice(None),) * d + (slice(start, start + length), Ellipsis)
    fn = _index_fn(index)
    return _view(
        self, self._data[index], SliceBackward0, fn, self._data.shape, self._data.dtype, fn
    )


def _index_fn(index):
    return lambda a: a[index]


class SelectBackward0(_ViewOf):
    pass


class AsStridedBackward0(_ViewOf):
    pass


# Indexing with None inserts a dimension: PyTorch names that view's node UnsqueezeBackward0.
IndexUnsqueezeBackward0 = type("UnsqueezeBackward0", (_ViewOf,), {"__module__": __name__})


quiet_functions(globals())

METHODS = {
    "view": view,
    "view_as": view_as,
    "reshape": reshape,
    "flatten": flatten,
    "t": t,
    "transpose": transpose,
    "permute": permute,
    "unsqueeze": unsqueeze,
    "squeeze": squeeze,
    "expand": expand,
    "expand_as": expand_as,
    "unbind": unbind,
    "narrow": narrow,
    "chunk": chunk,
}

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import inplace_versions as _versions  # noqa: E402
