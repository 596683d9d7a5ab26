"""Reductions: sum, mean, max, min (whole or along dims), argmax, argmin, norm and argsort,
with PyTorch's dim/keepdim parsing (and NumPy's axis/keepdims aliases)."""

import builtins
import math
import operator

import numpy as np

from .. import _dtypes, return_types
from .. import _messages as msg
from .._size import is_index, wrap_dim
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import _arr, _needs_grad, array_module, masked, opmath, quiet_functions
from .arithmetic import maximum, minimum
from .copies import to


class SumBackward0(Node):
    def __init__(self, edges, shape):
        super().__init__(edges)
        self.shape = shape

    def apply(self, g):
        return (array_module(g).broadcast_to(g, self.shape),)


class MaxBackward1(Node):
    """Full reduction max/min: the gradient is shared evenly among tied extremes."""

    grad_version = 1  # PyTorch builds it with masked_fill_

    def apply(self, g):
        s = self.unpack()
        x, result = s["self"], s["result"]
        # a NaN extreme shares the gradient among the NaNs, as PyTorch does
        mask = array_module(x).isnan(x) if result != result else x == result
        share = (g / mask.sum()).astype(g.dtype, copy=False)  # NumPy would widen to float64
        return (masked(share, mask),)


_ALL = object()  # no dim given: PyTorch's full reduction overload (SumBackward0, MaxBackward1)


def _dims(name, dim, ndim):
    """The dims a reduction over `dim` reduces, sorted (None and () mean all of them)."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    if not builtins.all(is_index(d) for d in dims):
        raise TypeError(msg.PARSER_REFUSED.format(name))
    dims = [wrap_dim(operator.index(d), ndim) for d in dims]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(msg.dim_repeated(d))
    return tuple(sorted(dims)) if ndim else ()


def _reduction_args(name, dim, keepdim):
    """dim (_ALL for the full-reduction overload) and keepdim, refused as PyTorch refuses."""
    if dim is _ALL:
        if keepdim is not _ALL:
            raise TypeError(msg.PARSER_REFUSED.format(name))
        return _ALL, False
    keepdim = False if keepdim is _ALL else keepdim
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.must_be_bool(name, "keepdim", 2, keepdim))
    return dim, keepdim


def _keepdims_alias(name, dim, keepdim, keepdims, *, dim_needed):
    """NumPy's `keepdims=`, PyTorch's alias of `keepdim=`; both at once are refused, in the
    words of PyTorch's parser (which first misses the dim where only dim takes keepdim)."""
    if keepdim is not _ALL:
        if dim_needed and dim is _ALL:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        raise TypeError(f"{name}() got an unexpected keyword argument 'keepdims'")
    return keepdims


def _axis_alias(name, dim, axis, default):
    """NumPy's `axis=`, PyTorch's alias of `dim=`; both at once are refused as PyTorch does."""
    if dim is not default:
        raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
    return axis


class SumBackward1(Node):
    def __init__(self, edges, shape, dims, keepdim):
        super().__init__(edges)
        self.shape, self.dims, self.keepdim = shape, dims, keepdim

    def _expand(self, g):
        xp = array_module(g)
        if not self.keepdim:
            g = xp.expand_dims(g, self.dims)
        return xp.broadcast_to(g, self.shape)

    def apply(self, g):
        return (self._expand(g),)


def sum(self, dim=_ALL, keepdim=_ALL, *, dtype=None, axis=_ALL, keepdims=_ALL):  # noqa: A001
    if axis is not _ALL:
        dim = _axis_alias("sum", dim, axis, _ALL)
    if keepdims is not _ALL:
        keepdim = _keepdims_alias("sum", dim, keepdim, keepdims, dim_needed=True)
    dim, keepdim = _reduction_args("sum", dim, keepdim)
    data = self._data
    out_dtype = dtype or (self._dtype if self._dtype.is_floating_point else _dtypes.int64)
    if dim is _ALL:
        result = _arr(data.sum(dtype=out_dtype.np), out_dtype)
        return _unary_shape(SumBackward0, self, result, shape=data.shape)
    dims = _dims("sum", dim, data.ndim)
    result = _arr(data.sum(axis=dims, keepdims=keepdim, dtype=out_dtype.np), out_dtype)
    return _unary_shape(SumBackward1, self, result, shape=data.shape, dims=dims, keepdim=keepdim)


class MeanBackward0(SumBackward0):
    def apply(self, g):
        n = builtins.max(1, math.prod(self.shape))
        return (array_module(g).broadcast_to(g, self.shape) / n,)


class MeanBackward1(SumBackward1):
    def apply(self, g):
        n = math.prod([self.shape[d] for d in self.dims])
        return (self._expand(g) / n,)  # a fresh array, as PyTorch's (its .grad can take it)


def mean(self, dim=_ALL, keepdim=_ALL, *, dtype=None, axis=_ALL, keepdims=_ALL):
    if axis is not _ALL:
        dim = _axis_alias("mean", dim, axis, _ALL)
    if keepdims is not _ALL:
        keepdim = _keepdims_alias("mean", dim, keepdim, keepdims, dim_needed=True)
    dim, keepdim = _reduction_args("mean", dim, keepdim)
    out_dtype = dtype or self._dtype  # PyTorch averages in `dtype` when one is given
    if not out_dtype.is_floating_point:
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(msg.mean_dtype(which, _dtypes.SCALAR_TYPE_NAME[out_dtype]))
    data = self._data
    acc = None if out_dtype is self._dtype else out_dtype.np  # None: float16 sums in float32
    if dim is _ALL:
        result = _arr(_mean(data, None, False, acc), out_dtype)
        return _unary_shape(MeanBackward0, self, result, shape=data.shape)
    dims = _dims("mean", dim, data.ndim)
    result = _arr(_mean(data, dims, keepdim, acc), out_dtype)
    return _unary_shape(MeanBackward1, self, result, shape=data.shape, dims=dims, keepdim=keepdim)


def _mean(data, axis, keepdims, dtype):
    if data.size == 0:  # 0 / 0 is nan, where NumPy's mean warns "Mean of empty slice"
        return data.sum(axis=axis, keepdims=keepdims, dtype=dtype) / 0
    return data.mean(axis=axis, keepdims=keepdims, dtype=dtype)


def _unary_shape(node_cls, self, data, **kw):
    out = Tensor._make(data, self._device)
    if _needs_grad(self) and out._dtype.is_floating_point:
        out._grad_fn = node_cls((self._edge(),), **kw)
    return out


def _extreme(self, name, dim, keepdim, pick, arg, full_node, dim_node, result_type):
    if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
        if keepdim is not _ALL:
            raise TypeError(msg.PARSER_REFUSED.format(name))
        return (maximum if name == "max" else minimum)(self, dim)
    data = self._data
    if dim is _ALL:
        if keepdim is not _ALL:
            raise TypeError(msg.PARSER_REFUSED.format(name))
        if data.size == 0:
            raise RuntimeError(msg.reduce_empty(name) + msg.SPECIFY_DIM)
        out = Tensor._make(_arr(pick(data), self._dtype), self._device)
        if _needs_grad(self) and out._dtype.is_floating_point:
            node = full_node((self._edge(),))
            node.save(self=self)
            node.save_output("result", out)
            out._grad_fn = node
        return out
    if dim is None:
        raise TypeError(msg.PARSER_REFUSED.format(name))
    keepdim = False if keepdim is _ALL else keepdim
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.must_be_bool(name, "keepdim", 2, keepdim))
    d = wrap_dim(dim, data.ndim)
    _refuse_empty_dim(name, data, d)
    idx = arg(data, axis=d, keepdims=True) if data.ndim else self._xp.zeros((), np.int64)
    values = self._xp.take_along_axis(data, idx, axis=d) if data.ndim else data.copy()
    if not keepdim and data.ndim:
        idx, values = idx.squeeze(d), values.squeeze(d)
    out = Tensor._make(_arr(values, self._dtype), self._device)
    if _needs_grad(self) and out._dtype.is_floating_point:
        node = dim_node((self._edge(),), data.shape, d, keepdim)
        node.save(indices=idx)
        out._grad_fn = node
    indices = Tensor._make(idx.astype(np.int64), self._device)
    return result_type(out, indices)


class MaxBackward0(Node):
    """max/min along a dim: the gradient goes to the selected index."""

    grad_version = 2  # PyTorch builds it with zeros() and scatter_

    def __init__(self, edges, shape, dim, keepdim):
        super().__init__(edges)
        self.shape, self.dim, self.keepdim = shape, dim, keepdim

    def apply(self, g):
        xp = array_module(g)
        idx = self.unpack()["indices"]
        if not self.keepdim:
            g = xp.expand_dims(g, self.dim)
            idx = xp.expand_dims(idx, self.dim)
        out = xp.zeros(self.shape, dtype=g.dtype)
        xp.put_along_axis(out, idx, g, axis=self.dim)
        return (out,)


def max(self, dim=_ALL, keepdim=_ALL, *, axis=_ALL, keepdims=_ALL):  # noqa: A001
    if axis is not _ALL:
        dim = _axis_alias("max", dim, axis, _ALL)
    if keepdims is not _ALL:
        keepdim = _keepdims_alias("max", dim, keepdim, keepdims, dim_needed=True)
    return _extreme(
        self,
        "max",
        dim,
        keepdim,
        _pick_max,
        _argmax_keep,
        MaxBackward1,
        MaxBackward0,
        return_types.max,
    )


class MinBackward1(MaxBackward1):
    pass


class MinBackward0(MaxBackward0):
    pass


def min(self, dim=_ALL, keepdim=_ALL, *, axis=_ALL, keepdims=_ALL):  # noqa: A001
    if axis is not _ALL:
        dim = _axis_alias("min", dim, axis, _ALL)
    if keepdims is not _ALL:
        keepdim = _keepdims_alias("min", dim, keepdim, keepdims, dim_needed=True)
    return _extreme(
        self,
        "min",
        dim,
        keepdim,
        _pick_min,
        _argmin_keep,
        MinBackward1,
        MinBackward0,
        return_types.min,
    )


def _pick_max(a):
    return a.max()


def _pick_min(a):
    return a.min()


def _argmax_keep(a, axis, keepdims):
    return a.argmax(axis=axis, keepdims=keepdims)


def _argmin_keep(a, axis, keepdims):
    return a.argmin(axis=axis, keepdims=keepdims)


def _arg_extreme(self, name, dim, keepdim):
    if self._dtype is _dtypes.bool:
        raise RuntimeError(msg.BOOL_ARG.format(name))
    data = self._data
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.must_be_bool(name, "keepdim", 2, keepdim))
    if dim is None:
        if data.size == 0:
            raise IndexError(msg.reduce_empty(name))
        flat = data.argmax() if name == "argmax" else data.argmin()
        shape = (1,) * data.ndim if keepdim else ()
        return Tensor._make(self._xp.asarray(flat, dtype=np.int64).reshape(shape), self._device)
    d = wrap_dim(dim, data.ndim)
    if not data.ndim:
        return Tensor._make(self._xp.zeros((), np.int64), self._device)
    _refuse_empty_dim(name, data, d)
    pick = data.argmax if name == "argmax" else data.argmin
    return Tensor._make(pick(axis=d, keepdims=keepdim).astype(np.int64), self._device)


def _refuse_empty_dim(name, data, d):
    if data.ndim and data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def argmax(self, dim=None, keepdim=_ALL, *, axis=_ALL, keepdims=_ALL):
    if axis is not _ALL:
        dim = _axis_alias("argmax", dim, axis, None)
    if keepdims is not _ALL:
        keepdim = _keepdims_alias("argmax", dim, keepdim, keepdims, dim_needed=False)
    return _arg_extreme(self, "argmax", dim, False if keepdim is _ALL else keepdim)


def argmin(self, dim=None, keepdim=_ALL, *, axis=_ALL, keepdims=_ALL):
    if axis is not _ALL:
        dim = _axis_alias("argmin", dim, axis, None)
    if keepdims is not _ALL:
        keepdim = _keepdims_alias("argmin", dim, keepdim, keepdims, dim_needed=False)
    return _arg_extreme(self, "argmin", dim, False if keepdim is _ALL else keepdim)


_NORMS = {"fro": 2, 2: 2, 1: 1, math.inf: math.inf}  # 2.0 and 1.0 hash as 2 and 1


class LinalgVectorNormBackward0(Node):
    """vector_norm's gradient: x/|x| for p=2 (0 where the norm is 0), sign(x) for p=1, the
    gradient split among the elements reaching the maximum for p=inf."""

    def __init__(self, edges, ord, dims, keepdim):  # noqa: A002
        super().__init__(edges)
        self.ord, self.dims, self.keepdim = ord, dims, keepdim

    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        x, norm = s["self"], s["result"]
        if not self.keepdim:
            g = xp.expand_dims(g, self.dims)
            norm = xp.expand_dims(norm, self.dims)
        if self.ord == 2:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = xp.where(norm == 0, 0, x / norm) * g
        elif self.ord == 1:
            out = xp.sign(x) * g
        else:
            hit = (xp.abs(x) == norm).astype(x.dtype)
            count = hit.sum(axis=self.dims, keepdims=True)
            out = xp.sign(x) * hit / count * g
        return (out.astype(x.dtype, copy=False),)


def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm of a vector norm (p = 'fro', 2, 1 or inf): linalg.vector_norm's node."""
    if dtype is not None:
        self = to(self, dtype)  # noqa: PLW0642
    if not isinstance(p, (str, builtins.int, builtins.float)) or p not in _NORMS:
        raise NotImplementedError(f"norm with p={p!r} is outside the course subset")
    ord = _NORMS[p]  # noqa: A001
    if not self._dtype.is_floating_point:
        name = _dtypes.SCALAR_TYPE_NAME[self._dtype]
        raise RuntimeError(msg.VECTOR_NORM_NOT_FLOAT.format(name))
    nd = self._data.ndim
    dims = tuple(range(nd)) if dim is None else _dims("norm", dim, nd)
    x = self._data
    with np.errstate(all="ignore"):
        if ord == 2:
            data = self._xp.sqrt((opmath(x) * opmath(x)).sum(axis=dims, keepdims=keepdim))
        elif ord == 1:
            data = self._xp.abs(opmath(x)).sum(axis=dims, keepdims=keepdim)
        else:
            if x.size == 0:
                raise RuntimeError(msg.VECTOR_NORM_INF_EMPTY)
            data = self._xp.abs(x).max(axis=dims, keepdims=keepdim)
    out = Tensor._make(_arr(data, self._dtype), self._device, self._dtype)
    if _needs_grad(self):
        node = LinalgVectorNormBackward0((self._edge(),), ord, dims, keepdim)
        node.save(self=self)
        node.save_output("result", out)
        out._grad_fn = node
    return out


def argsort(self, dim=-1, descending=False, stable=False):
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if nd == 0:
        return Tensor._make(self._xp.zeros((), np.int64), self._device)
    x = self._data
    if x.dtype == np.bool_:
        x = x.astype(np.int8)
    if descending:  # stable among equal values, as PyTorch's
        n = x.shape[d]
        flipped = self._xp.flip(x, axis=d)
        idx = self._xp.flip(self._xp.argsort(flipped, axis=d, kind="stable"), axis=d)
        idx = n - 1 - idx
    else:
        idx = self._xp.argsort(x, axis=d, kind="stable")
    return Tensor._make(idx.astype(np.int64), self._device)


def _bool_reduction(self, name, dim, keepdim):
    """all / any: bool results (uint8 for uint8 input, as PyTorch keeps it); `dim=()` reduces
    nothing."""
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.PARSER_REFUSED.format(name))
    data = self._data
    if isinstance(dim, (list, tuple)) and not dim:
        axes = ()
    elif dim is _ALL or dim is None:
        axes = None
    else:
        axes = _dims(name, dim, data.ndim)
    if data.ndim == 0 and axes not in (None, ()):
        axes = None
    fn = self._xp.all if name == "all" else self._xp.any
    result = fn(data.astype(np.bool_, copy=False), axis=axes, keepdims=keepdim)
    dtype = _dtypes.uint8 if self._dtype is _dtypes.uint8 else _dtypes.bool
    return Tensor._make(_arr(result, dtype), self._device)


def all(self, dim=_ALL, keepdim=False):  # noqa: A001
    return _bool_reduction(self, "all", dim, keepdim)


def any(self, dim=_ALL, keepdim=False):  # noqa: A001
    return _bool_reduction(self, "any", dim, keepdim)


class VarBackward0(Node):
    """2 (x - mean) / (N - correction), times the gradient spread over the reduced dims."""

    def __init__(self, edges, dims, keepdim, dof):
        super().__init__(edges)
        self.dims, self.keepdim, self.dof = dims, keepdim, dof

    def _spread(self, g):
        return g if self.keepdim else array_module(g).expand_dims(g, self.dims)

    def _var_backward(self, g, x):
        centred = x - x.mean(axis=self.dims, keepdims=True).astype(x.dtype, copy=False)
        out = (2.0 / self.dof if self.dof else math.inf) * g * centred
        return out.astype(x.dtype, copy=False)

    def apply(self, g):
        return (self._var_backward(self._spread(g), self.unpack()["self"]),)


class StdBackward0(VarBackward0):
    """var's gradient of g / (2 std), 0 where std is 0 (PyTorch masks it)."""

    def apply(self, g):
        s = self.unpack()
        result = self._spread(s["result"])
        with np.errstate(divide="ignore", invalid="ignore"):
            g = array_module(g).where(result == 0, 0, self._spread(g) / (result * 2))
        return (self._var_backward(g, s["self"]),)


def _var_args(name, dim, unbiased, keepdim, correction):
    """(dim, correction, keepdim) from var/std's three overloads: (dim, unbiased, keepdim),
    (dim, *, correction, keepdim) and (unbiased)."""
    if isinstance(dim, builtins.bool):  # x.var(False): the (bool unbiased) overload
        if unbiased is not _ALL or keepdim is not _ALL or correction is not _ALL:
            raise TypeError(msg.PARSER_REFUSED.format(name))
        dim, unbiased = None, dim
    if unbiased is not _ALL and (correction is not _ALL or not isinstance(unbiased, builtins.bool)):
        raise TypeError(msg.PARSER_REFUSED.format(name))
    if correction is _ALL or correction is None:
        correction = 0 if unbiased is False else 1
    keepdim = False if keepdim is _ALL else keepdim
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.PARSER_REFUSED.format(name))
    return dim, correction, keepdim


def _var(self, name, node_cls, dim, unbiased, keepdim, correction):
    dim, correction, keepdim = _var_args(name, dim, unbiased, keepdim, correction)
    if not self._dtype.is_floating_point:
        raise RuntimeError(msg.STD_VAR_NOT_FLOAT)
    data = self._data
    dims = _dims(name, dim, data.ndim)
    n = math.prod(data.shape[d] for d in dims) if data.ndim else 1
    dof = n - correction
    if dof <= 0:
        from .._warnings import warn

        warn(msg.DOF_NOT_POSITIVE.format(name))
    wide = data.astype(np.float64)  # PyTorch's CPU kernel accumulates in double
    centred = wide - (wide.mean(axis=dims, keepdims=True) if data.size else 0)
    var = (centred * centred).sum(axis=dims, keepdims=keepdim) / builtins.max(0, dof)
    out = _arr(self._xp.sqrt(var) if name == "std" else var, self._dtype)
    out = Tensor._make(out, self._device)
    if _needs_grad(self):
        node = node_cls((self._edge(),), dims, keepdim, dof)
        node.save(self=self)
        if name == "std":
            node.save_output("result", out)
        out._grad_fn = node
    return out


def var(self, dim=None, unbiased=_ALL, keepdim=_ALL, *, correction=_ALL):
    return _var(self, "var", VarBackward0, dim, unbiased, keepdim, correction)


def std(self, dim=None, unbiased=_ALL, keepdim=_ALL, *, correction=_ALL):
    return _var(self, "std", StdBackward0, dim, unbiased, keepdim, correction)


class _SavesInputAndResult(Node):
    """A reduction over `dims` whose backward reads its input and its result."""

    def __init__(self, edges, dims, keepdim):
        super().__init__(edges)
        self.dims, self.keepdim = dims, keepdim

    def _unpacked(self, g):
        """(xp, input, result, g), result and g with the reduced dims put back."""
        xp = array_module(g)
        s = self.unpack()
        x, result = s["self"], s["result"]
        if not self.keepdim:
            g, result = xp.expand_dims(g, self.dims), xp.expand_dims(result, self.dims)
        return xp, x, result, g


class AmaxBackward0(_SavesInputAndResult):
    """amax/amin: the gradient shared evenly among the elements that reach the extreme."""

    def apply(self, g):
        _, x, result, g = self._unpacked(g)
        hit = x == result
        count = hit.sum(axis=self.dims, keepdims=True)
        return (masked((g / count).astype(g.dtype, copy=False), hit),)


class AminBackward0(AmaxBackward0):
    pass


def _amax(self, name, dim, keepdim, node_cls):
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.must_be_bool(name, "keepdim", 2, keepdim))
    data = self._data
    dims = _dims(name, dim, data.ndim)
    if data.size == 0:
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            raise RuntimeError(msg.reduce_empty(name) + msg.SPECIFY_DIM)
        for d in dims:
            _refuse_empty_dim(name, data, d)
    pick = data.max if name == "amax" else data.min
    out = Tensor._make(_arr(pick(axis=dims or None, keepdims=keepdim), self._dtype), self._device)
    if _needs_grad(self) and out._dtype.is_floating_point:
        node = node_cls((self._edge(),), dims, keepdim)
        node.save(self=self)
        node.save_output("result", out)
        out._grad_fn = node
    return out


def amax(self, dim=(), keepdim=False):
    return _amax(self, "amax", dim, keepdim, AmaxBackward0)


def amin(self, dim=(), keepdim=False):
    return _amax(self, "amin", dim, keepdim, AminBackward0)


class LogsumexpBackward0(_SavesInputAndResult):
    def apply(self, g):
        xp, x, result, g = self._unpacked(g)
        return ((g * xp.exp(x - result)).astype(x.dtype, copy=False),)


def logsumexp(self, dim, keepdim=False):
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(msg.must_be_bool("logsumexp", "keepdim", 2, keepdim))
    if not self._dtype.is_floating_point:  # PyTorch computes an integer input in float
        self = to(self, _dtypes.float32)  # noqa: PLW0642
    data = self._data
    dims = _dims("logsumexp", dim, data.ndim)
    xp, x = self._xp, opmath(data)
    axes = dims or None
    if x.size:
        peak = x.max(axis=axes, keepdims=True)
        peak = xp.where(xp.isinf(peak), 0, peak)  # as PyTorch: infinite maxima shift nothing
    else:
        peak = xp.zeros((1,) * x.ndim, x.dtype)
    total = xp.log(xp.exp(x - peak).sum(axis=axes, keepdims=True)) + peak
    if not keepdim:
        total = total.squeeze(axis=dims) if dims else total.reshape(())
    out = Tensor._make(_arr(total, self._dtype), self._device)
    if _needs_grad(self):
        node = LogsumexpBackward0((self._edge(),), dims, keepdim)
        node.save(self=self)
        node.save_output("result", out)
        out._grad_fn = node
    return out


quiet_functions(globals())

METHODS = {
    "sum": sum,
    "mean": mean,
    "max": max,
    "min": min,
    "argmax": argmax,
    "argmin": argmin,
    "norm": norm,
    "argsort": argsort,
    "all": all,
    "any": any,
    "var": var,
    "std": std,
    "amax": amax,
    "amin": amin,
    "logsumexp": logsumexp,
}
