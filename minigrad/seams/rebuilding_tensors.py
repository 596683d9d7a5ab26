"""Assignment 4, rebuilding_tensors: putting values together, and which ways keep the graph.

`tensor()` always copies values into a new leaf (the graph is cut); `stack` and `cat` build
one tensor out of several and keep the graph (one edge per input); `x[i] = v` fills a
tensor in place and records the fill in its history (CopySlices, IndexPutBackward0).

The engine calls these eight functions; the exercise `exercises/rebuilding_tensors` is where
you write them. In the self-paced edition the bodies below are the reference answers (read
them after you tried); in the class edition they are stubs that say which assignment builds
them.

Where the engine calls them:
- `tensor_from_data` is `minigrad.tensor(data, ...)` (minigrad/factories.py, once it has checked the
  `dtype` and `requires_grad` arguments), and every factory built on it (`new_tensor`, the
  wrapped numbers a node shows as saved, ...);
- `to_python` turns nested data into Python values for `tensor_from_data` and for the legacy
  constructors (`FloatTensor([...])`, minigrad/factories.py);
- `stack` and `cat` are `minigrad.stack` and `minigrad.cat` (minigrad/ops/joining.py);
- `stack_backward` and `cat_backward` are the backward of StackBackward0 and CatBackward0
  (`apply` in minigrad/ops/joining.py), with the gradient of the result as an array;
- `setitem` is `tensor[index] = value` (`setitem` in minigrad/ops/indexing.py, once it has checked
  the value and the index), and `index_put` is its write through an advanced index.
"""

import numpy as np

from .. import _messages as msg
from .. import factories
from .._size import wrap_dim
from .._warnings import warn
from ..ops._common import _edge, _meta, _needs_grad
from ..ops.indexing import IndexPutBackward0, _fit_value, _is_basic, getitem
from ..ops.inplace import _inplace, copy_
from ..ops.joining import CatBackward0, StackBackward0, _join_prepare
from ..tensor import Tensor
from . import not_built  # noqa: F401  (what the class edition's stubs raise)

# What an exercise notebook imports (`from minigrad.seams.rebuilding_tensors import *`) to
# write these functions: the helpers, never the graded functions themselves.
__all__ = [
    "CatBackward0",
    "IndexPutBackward0",
    "StackBackward0",
    "Tensor",
    "check_ragged",
    "copy_",
    "edge",
    "finish",
    "fit_value",
    "getitem",
    "infer_dtype",
    "inplace",
    "is_basic",
    "join_prepare",
    "meta",
    "msg",
    "needs_grad",
    "np",
    "values_tensor",
    "warn",
    "wrap_dim",
]

# Operations the functions below use as they are (imported above): `getitem(t, index)` is
# `t[index]` (a view for a basic index), `copy_(t, src)` is `t.copy_(src)`, PyTorch's
# in-place copy.


def finish(array, device, dtype, requires_grad):
    """A new leaf holding `array` (moved to `device`, a device or a string or None for the
    CPU) in `dtype` (None: the array's), requiring grad if asked; `requires_grad=True` is
    refused for a dtype that is not floating point, with PyTorch's text."""
    return factories._finish(array, device, dtype, requires_grad)


def infer_dtype(data):
    """PyTorch's dtype for nested data: a Python float gives float32, an int int64, a bool
    bool, NumPy values and tensors their own; the elements' dtypes promote together."""
    return factories._infer_dtype(data)


def check_ragged(data):
    """Refuse nested lists whose lengths differ within a dimension (PyTorch's text)."""
    factories._check_ragged(data)


def values_tensor(values, dtype, device, requires_grad):
    """A new leaf holding a copy of plain values (numbers, nested lists of them, NumPy
    arrays) in `dtype` (None: inferred), refusing ints that overflow it as PyTorch does."""
    return factories._values_tensor(values, dtype, device, requires_grad)


def join_prepare(tensors, what):
    """The checks stack and cat share (`what` is "stack" or "cat"): a sequence of tensors,
    not empty, all on one device. Returns (the tensors as a list, their promoted dtype, the
    device)."""
    return _join_prepare(tensors, what)


def needs_grad(*tensors):
    """Whether an operation on these tensors is recorded: grad mode on and one of them
    requires grad (numbers and None are ignored)."""
    return _needs_grad(*tensors)


def meta(tensor):
    """What a node keeps of an input instead of the tensor: (shape, NumPy dtype)."""
    return _meta(tensor)


def edge(value):
    """Where a gradient for `value` goes: `value._edge()` for a tensor, (None, 0) for a
    number or None."""
    return _edge(value)


def inplace(tensor, op, others=()):
    """minigrad's one path for in-place operations: PyTorch's checks, then `op(old)` (an
    out-of-place operation on an alias of `tensor`'s old values) written into `tensor`, one
    version bump, and `tensor`'s history rewritten to `op`'s node (CopySlices on the base
    when `tensor` is a view). `others` are the operands that may require grad."""
    return _inplace(tensor, op, others)


def fit_value(value, shape):
    """A tensor assigned into a region of `shape`, fitted as PyTorch fits it (viewed without
    its leading size-1 dims, then expanded to the region); refused with PyTorch's text when it
    cannot expand to the region."""
    return _fit_value(value, shape)


def is_basic(index):
    """Whether a tuple of index parts is basic (ints, slices, None, ...): then `t[index]` is
    a view; an index array or tensor among them makes it advanced."""
    return _is_basic(index)


def to_python(values):
    """Nested lists and tuples with every tensor inside replaced by its Python number
    (`t._scalar(warn_if_grad=True)`: refuses a tensor of more than one element, warns once
    per process when it requires grad). That is where the graph is cut (R1)."""
    ### BEGIN SOLUTION
    if isinstance(values, (list, tuple)):
        return [to_python(v) for v in values]
    if isinstance(values, Tensor):
        return values._scalar(warn_if_grad=True)
    return values
    ### END SOLUTION


def tensor_from_data(data, dtype, device, requires_grad):
    """`minigrad.tensor(data, dtype=..., device=..., requires_grad=...)` of a tensor, or of
    nested lists holding tensors (the engine makes tensors of plain values itself, with
    `values_tensor`): a new leaf holding a copy of the values, never part of a graph.
    - a tensor: copied (values only) with the warning `msg.COPY_CONSTRUCT` (formatted with
      the factory's name, f"{msg.LIB}.tensor"), keeping its dtype and device unless given
      (`finish` makes the leaf);
    - nested lists: dtype inferred from the elements (`infer_dtype`, the tensors' dtypes
      included) unless given, lengths checked (`check_ragged`), then the tensors inside
      turned into numbers (`to_python`) and the values made a tensor by
      `values_tensor(values, dtype, device, requires_grad)` (R1)."""
    ### BEGIN SOLUTION
    if isinstance(data, Tensor):
        warn(msg.COPY_CONSTRUCT.format(f"{msg.LIB}.tensor"))
        src = data.detach()
        arr = src._data.astype((dtype or src._dtype).np, copy=True)
        if device is None:
            device = src._device
        return finish(arr, device, dtype or src._dtype, requires_grad)
    target = dtype or infer_dtype(data)
    check_ragged(data)
    return values_tensor(to_python(data), target, device, requires_grad)
    ### END SOLUTION


def stack(tensors, dim):
    """`minigrad.stack(tensors, dim)`: equally shaped tensors (`join_prepare` checks the
    rest) put along a new dimension `dim` of the result (wrapped with `wrap_dim` over one
    dimension more), in their promoted dtype, with the array module of their device
    (`tensor._xp`). Unequal shapes are refused with PyTorch's text. The graph is kept: when
    recorded and floating point, the result's `_grad_fn` is
    `StackBackward0(edges of the inputs, dim, [meta(t) for each input])` (R2)."""
    ### BEGIN SOLUTION
    tensors, dtype, device = join_prepare(tensors, "stack")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != shape:
            raise RuntimeError(
                "stack expects each tensor to be equal size, but got "
                f"{list(shape)} at entry 0 and {list(t._data.shape)} at entry {i}"
            )
    xp = tensors[0]._xp
    d = wrap_dim(dim, len(shape) + 1)
    data = xp.stack([t._data.astype(dtype.np, copy=False) for t in tensors], axis=d)
    out = Tensor._make(data, device, dtype)
    if needs_grad(*tensors) and dtype.is_floating_point:
        out._grad_fn = StackBackward0(
            tuple(t._edge() for t in tensors), d, [meta(t) for t in tensors]
        )
    return out
    ### END SOLUTION


def stack_backward(grad, dim, metas, next_nodes):
    """StackBackward0's backward: for each input, its slice of `grad` along `dim` (a view,
    as PyTorch's unbind) in the input's dtype (`metas[i]` is its (shape, NumPy dtype)), or
    None where the input needs no gradient (its entry of `next_nodes` is None) (R2)."""
    ### BEGIN SOLUTION
    lead = (slice(None),) * dim
    return tuple(  # views of grad, as PyTorch's unbind
        grad[lead + (i,)].astype(dt, copy=False) if node is not None else None
        for i, (node, (_, dt)) in enumerate(zip(next_nodes, metas))
    )
    ### END SOLUTION


def cat(tensors, dim):
    """`minigrad.cat(tensors, dim)`: tensors joined along their dimension `dim`, in their
    promoted dtype. Refused, with PyTorch's texts: a 0-d tensor (`msg.CAT_ZERO_DIM` with its
    position), tensors of different ranks (`msg.cat_ndim`), sizes that differ outside `dim`
    (`msg.cat_sizes`). The graph is kept: when recorded and floating point, the result's
    `_grad_fn` is `CatBackward0(edges of the inputs, dim, [meta(t) for each input])` (R2)."""
    ### BEGIN SOLUTION
    tensors, dtype, device = join_prepare(tensors, "cat")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(msg.CAT_ZERO_DIM.format(i))
    first = tensors[0]._data.shape
    d = wrap_dim(dim, len(first))
    for i, t in enumerate(tensors[1:], 1):
        shape = t._data.shape
        if len(shape) != len(first):
            raise RuntimeError(msg.cat_ndim(len(first), len(shape)))
        for k, (want, got) in enumerate(zip(first, shape)):
            if k != d and want != got:
                raise RuntimeError(msg.cat_sizes(d, want, got, i))
    xp = tensors[0]._xp
    data = xp.concatenate([t._data.astype(dtype.np, copy=False) for t in tensors], axis=d)
    out = Tensor._make(data, device, dtype)
    if needs_grad(*tensors) and dtype.is_floating_point:
        out._grad_fn = CatBackward0(
            tuple(t._edge() for t in tensors), d, [meta(t) for t in tensors]
        )
    return out
    ### END SOLUTION


def cat_backward(grad, dim, metas, next_nodes):
    """CatBackward0's backward: for each input, its part of `grad` along `dim` (a view, as
    PyTorch's narrow; `metas[i]` is the input's (shape, NumPy dtype)) in the input's dtype,
    or None where the input needs no gradient (its entry of `next_nodes` is None) (R2)."""
    ### BEGIN SOLUTION
    lead = (slice(None),) * dim
    out, start = [], 0
    for node, (shape, dt) in zip(next_nodes, metas):
        n = shape[dim]
        if node is not None:  # views of grad, as PyTorch's narrow
            out.append(grad[lead + (slice(start, start + n),)].astype(dt, copy=False))
        else:
            out.append(None)
        start += n
    return tuple(out)
    ### END SOLUTION


def setitem(tensor, index, value):
    """`tensor[index] = value`, once the value and the index are checked: `index` is a tuple
    of index parts, `value` a tensor or a Python number. An in-place write, recorded in
    `tensor`'s history. With a basic index (`is_basic`), the region `getitem(tensor, index)`
    (with a trailing Ellipsis, so that a 0-d region is a view too) is a view of `tensor`, and
    the value (a tensor fitted to the region, `fit_value`) is copied into it with `copy_`:
    a write through a view, which the in-place path records on the base as CopySlices. Any
    other index goes to `index_put` (R3, I4)."""
    ### BEGIN SOLUTION
    if is_basic(index):
        index = index + (Ellipsis,) if Ellipsis not in index else index
        region = getitem(tensor, index)  # a view of tensor, refused as PyTorch refuses it
        if isinstance(value, Tensor):
            value = fit_value(value, region._data.shape)
        copy_(region, value)
        return
    index_put(tensor, index, value)
    ### END SOLUTION


def index_put(tensor, index, value):
    """`tensor[index] = value` for an advanced index (tuple of parts, index arrays among
    them): an in-place operation (`inplace(tensor, op, others=(the value tensor or None,))`)
    whose `op(old)` returns a copy of `old`'s values with the indexed ones replaced (the
    value cast to `old`'s dtype), recorded, when `needs_grad(old, value)`, as
    `IndexPutBackward0((edge(old), edge(value)), index, meta(value) or None)` (R3, I4)."""
    ### BEGIN SOLUTION
    value_t = value if isinstance(value, Tensor) else None

    def op(old):
        data = old._data.copy()
        data[index] = value_t._data.astype(data.dtype) if value_t is not None else value
        out = Tensor._make(data, old._device, old._dtype)
        if needs_grad(old, value_t):
            value_meta = meta(value_t) if value_t is not None else None
            out._grad_fn = IndexPutBackward0((old._edge(), edge(value_t)), index, value_meta)
        return out

    inplace(tensor, op, others=(value_t,))
    ### END SOLUTION


# The graded functions and the rules whose scenarios each decides (a test cell for a rule
# binds the student's functions of that rule and keeps the engine's for the others).
GRADED = {
    "tensor_from_data": ("R1",),
    "to_python": ("R1",),
    "stack": ("R2",),
    "stack_backward": ("R2",),
    "cat": ("R2",),
    "cat_backward": ("R2",),
    "setitem": ("R3",),
    "index_put": ("R3",),
}
