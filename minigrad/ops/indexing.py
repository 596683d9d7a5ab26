"""Indexing: `t[index]` (a view for a basic index, a copy for an advanced one) and
`t[index] = value`, with PyTorch's reading of the index and its refusals."""

import builtins

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from .._warnings import warn
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import (
    _SCALARS,
    _checked_scalar,
    _needs_grad,
    array_module,
    quiet_functions,
    unbroadcast,
)
from .copies import AliasBackward0
from .views import (
    IndexUnsqueezeBackward0,
    SelectBackward0,
    SliceBackward0,
    _expanded_shape,
    _index_fn,
    _view,
)


def _is_basic(index):
    for part in index:
        if part is None or part is Ellipsis or isinstance(part, slice):
            continue
        if isinstance(part, (builtins.int, np.integer)) and not isinstance(part, builtins.bool):
            continue
        return False
    return True


def _normalize_index(index):
    """The index parts as NumPy understands them, the index tensors among them, and whether the
    index was a tuple (PyTorch treats a lone int or slice apart; a lone tensor counts as one)."""
    index = _sequence_as_tuple(index)
    is_tuple = isinstance(index, (tuple, Tensor))
    out, tensors = [], []
    for part in index if isinstance(index, tuple) else (index,):
        if isinstance(part, Tensor):
            if part._dtype.is_floating_point:
                raise IndexError(msg.INDEX_TENSOR_DTYPE)
            if part._data.ndim == 0 and part._dtype is not _dtypes.bool:
                # PyTorch selects with a 0-d integer tensor as with an int: a view.
                part = builtins.int(part._data)
            else:
                tensors.append(part)
                part = part._data
        elif isinstance(part, list):
            part = np.asarray(part)
        elif isinstance(part, (builtins.float, np.floating)):
            raise IndexError(msg.invalid_index_type(type(part).__name__))
        out.append(part)
    return tuple(out), tensors, is_tuple


def _sequence_as_tuple(index):
    """A short list holding a sequence, tensor, slice, None or Ellipsis is read as a tuple of
    indices (NumPy's old rule, which PyTorch 2.13 keeps with a deprecation warning): x[[[0, 1]]]
    is x[[0, 1]], not x[tensor([[0, 1]])]."""
    if not isinstance(index, list) or len(index) >= 32:
        return index
    for part in index:
        if isinstance(part, _SEQUENCE_LIKE) or part is None or part is Ellipsis:
            warn(msg.SEQUENCE_INDEX_DEPRECATED)
            return tuple(index)
    return index


# What PyTorch's check counts as a sequence or a tensor inside a list index (PySequence_Check)
_SEQUENCE_LIKE = (Tensor, list, tuple, range, str, bytes, np.ndarray, slice)


def _dims_taken(part):
    """How many dimensions of the indexed tensor an index part consumes."""
    if part is None or part is Ellipsis or isinstance(part, (builtins.bool, np.bool_)):
        return 0
    if hasattr(part, "dtype") and part.dtype == np.bool_:
        return part.ndim
    return 1


def _check_index(parts, shape, is_tuple):
    """PyTorch's refusals, with its texts, before NumPy sees the index."""
    ndim = len(shape)
    taken = [_dims_taken(p) for p in parts]
    if builtins.sum(taken) > ndim:
        if ndim == 0 and not is_tuple:
            if isinstance(parts[0], slice):
                raise IndexError(msg.SLICE_0D)
            if not hasattr(parts[0], "dtype") or parts[0].ndim == 0:
                raise IndexError(msg.INDEX_0D)
        raise IndexError(msg.too_many_indices(ndim))
    dim = 0  # the dimension of self the next part applies to
    arrays = 0  # index arrays seen so far (PyTorch numbers their errors by them)
    for i, (part, n) in enumerate(zip(parts, taken)):
        if part is Ellipsis:
            dim = ndim - builtins.sum(taken[i + 1 :])
            continue
        if isinstance(part, slice):
            if part.step is not None and part.step < 0:
                raise ValueError(msg.NEGATIVE_STEP)
        elif hasattr(part, "dtype") and part.dtype == np.bool_:
            for j in range(n):
                if part.shape[j] != shape[dim + j]:
                    raise IndexError(msg.mask_shape(part.shape, j, shape, dim + j))
            arrays += n
        elif hasattr(part, "dtype") and part.ndim > 0:
            size = shape[dim]
            bad = (part >= size) | (part < -size)
            if bad.any():
                raise IndexError(msg.index_out_of_bounds(builtins.int(part[bad][0]), arrays, size))
            arrays += 1
        elif isinstance(part, (builtins.int, np.integer)):
            size = shape[dim]
            if not -size <= part < size:
                raise IndexError(msg.index_out_of_bounds(part, i, size))
        dim += n


def _basic_node_class(parts, is_tuple, shape):
    """The view node PyTorch names: a lone index names its own op (a lone slice is a Slice even
    when it keeps everything, `...` an Alias); in a tuple, a slice keeping its whole dimension
    is skipped, the last op applied names the node, and none applied leaves an Alias."""
    if not is_tuple:
        parts = parts[:1]
    node = AliasBackward0
    dim = 0
    for i, part in enumerate(parts):
        if part is Ellipsis:
            dim = len(shape) - builtins.sum(_dims_taken(p) for p in parts[i + 1 :])
        elif part is None:
            node = IndexUnsqueezeBackward0
        elif isinstance(part, slice):
            keeps_all = part.indices(shape[dim]) == (0, shape[dim], 1)
            if not (keeps_all and is_tuple):
                node = SliceBackward0
            dim += 1
        else:
            node = SelectBackward0
            dim += 1
    return node


class IndexBackward0(Node):
    """Advanced indexing copies; repeated indices add up their gradients.

    The index tensors are saved too, so changing one in place fails at backward (I2).
    """

    grad_version = 1  # PyTorch builds it with index_put_

    def __init__(self, edges, in_shape, index, index_tensors):
        super().__init__(edges)
        self.in_shape = in_shape
        self.save(indices=index, **{f"indices{i}": t for i, t in enumerate(index_tensors)})

    def apply(self, g):
        xp = array_module(g)
        index = self.unpack()["indices"]
        out = xp.zeros(self.in_shape, dtype=g.dtype)
        xp.add.at(out, index, g)
        return (out,)


def getitem(self, index):
    parts, index_tensors, is_tuple = _normalize_index(index)
    _check_index(parts, self._data.shape, is_tuple)
    if _is_basic(parts):
        index = parts + (Ellipsis,) if Ellipsis not in parts else parts
        data = self._data[index]  # with an Ellipsis, 0-d results stay arrays (views)
        fn = _index_fn(index)
        node = _basic_node_class(parts, is_tuple, self._data.shape)
        args = () if node is AliasBackward0 else (self._data.shape, self._data.dtype, fn)
        return _view(self, data, node, fn, *args)
    data = self._xp.asarray(self._data[parts])  # an array even where NumPy gives a scalar
    out = Tensor._make(data, self._device, self._dtype)
    if _needs_grad(self):
        out._grad_fn = IndexBackward0((self._edge(),), self._data.shape, parts, index_tensors)
    return out


def setitem(self, index, value):
    if not isinstance(value, (Tensor, *_SCALARS)):
        raise TypeError(msg.cant_assign(value, self.type()))
    if value.__class__ is builtins.int and not -(1 << 63) <= value < (1 << 63):
        raise ValueError(msg.OVERFLOW_LONG_LONG)  # read as a C long long first
    value = _checked_scalar(value, self._dtype, half=False)
    parts, _, is_tuple = _normalize_index(index)
    _check_index(parts, self._data.shape, is_tuple)
    _rebuild.setitem(self, parts, value)


def _fit_value(value, shape):
    """A value assigned by index loses its leading size-1 dims, then must expand to the
    region (PyTorch's texts); `z[0, 0] = t` takes a one-element `t`."""
    vshape = value._data.shape
    lead = 0
    while lead < len(vshape) - len(shape) and vshape[lead] == 1:
        lead += 1
    if lead:
        value = value.view(vshape[lead:])
    _expanded_shape(value, shape)
    return value


class IndexPutBackward0(Node):
    """`base[advanced_index] = values`: the overwritten positions pass no gradient back."""

    def __init__(self, edges, index, values_meta):
        super().__init__(edges)
        self.index, self.values_meta = index, values_meta

    def apply(self, g):
        xp = array_module(g)
        gbase = g.copy()
        gbase[self.index] = 0
        gvals = None
        if self._next_nodes[1] is not None:
            gvals = unbroadcast(xp.asarray(g[self.index]), *self.values_meta)
        return gbase, gvals


quiet_functions(globals())

METHODS = {"__getitem__": getitem, "__setitem__": setitem}

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import rebuilding_tensors as _rebuild  # noqa: E402
