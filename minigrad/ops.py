"""Every operation of the course subset, written once for NumPy and CuPy alike.

An op computes its result array, then, when grad mode is on and an input requires grad,
builds its node (functions.py) with the edges of its inputs. In-place ops reuse the same
out-of-place code on an alias of the old values and then rewrite history (`_inplace`).
"""

import builtins
import functools
import math
import operator
import types

import numpy as np

from . import _dtypes, _signatures, return_types
from . import _messages as msg
from . import functions as F
from ._size import wrap_dim
from ._warnings import warn
from .autograd import grad_mode
from .tensor import Tensor

_NO_EDGE = (None, 0)
_SCALARS = (builtins.int, builtins.float, builtins.bool, np.number, np.bool_)


def _meta(x):
    return (x._data.shape, x._data.dtype)


def _edge(x):
    return x._edge() if isinstance(x, Tensor) else _NO_EDGE


def _needs_grad(*xs):
    if not grad_mode._enabled:
        return False
    for x in xs:
        if isinstance(x, Tensor) and x.requires_grad:
            return True
    return False


def _result(data, device, node=None):
    t = Tensor._make(data, device)
    if node is not None:
        if t._dtype.is_floating_point:
            t._grad_fn = node
        else:
            node = None
    return t


def _check_devices(a, b):
    """PyTorch lets a 0-d CPU tensor join a tensor on any device; nothing else mixes."""
    if a._device != b._device:
        if a._data.ndim == 0 and a._device.type == "cpu":
            return b._device
        if b._data.ndim == 0 and b._device.type == "cpu":
            return a._device
        raise RuntimeError(msg.devices_differ(a._device, b._device))
    return a._device


def _as_operand(x, dtype, device):
    """The array (or Python scalar) to compute with, in the result dtype."""
    if isinstance(x, Tensor):
        data = x._data
        if x._device != device:  # a 0-d CPU tensor joining a CUDA one
            from ._device import to_device_array

            data = to_device_array(data, device)
        return data if data.dtype == dtype.np else data.astype(dtype.np)
    return x.item() if isinstance(x, np.generic) else x  # PyTorch reads NumPy numbers as Python's


def _check_broadcast(a, b):
    """PyTorch's error for shapes that do not broadcast (NumPy's text differs)."""
    _check_shapes(a._data.shape, b._data.shape)


def _check_shapes(sa, sb):
    n = builtins.max(len(sa), len(sb))
    for i in range(n - 1, -1, -1):
        da = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        db = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )


def _prepare(a, b):
    """Result dtype, device and operand arrays of a binary elementwise op."""
    if isinstance(b, Tensor):
        if a._data.shape != b._data.shape:
            _check_broadcast(a, b)
        device = _check_devices(a, b)
        dtype = a._dtype if a._dtype is b._dtype else _dtypes.result_type(a, b)
    elif isinstance(b, _SCALARS):
        device = a._device
        if a._dtype.is_floating_point and not isinstance(b, (builtins.bool, np.bool_)):
            dtype = a._dtype
        else:
            dtype = _dtypes.result_type(a, b)
        if b.__class__ is int:
            _refuse_uint64_with_bool(a._dtype, b)
            b = _int_scalar(b, dtype)
    else:
        return NotImplemented
    return dtype, device, _as_operand(a, dtype, device), _as_operand(b, dtype, device)


def _refuse_uint64_with_bool(dtype, v):
    """An int from 2**63 up is a uint64 Scalar to PyTorch, which will not promote with bool."""
    if dtype is _dtypes.bool and v.__class__ is int and (1 << 63) <= v < (1 << 64):
        raise RuntimeError(msg.promotion_unsigned("Bool", "UInt64"))


def _int_scalar(v, dtype):
    """A Python int operand as PyTorch reads it: an int64 Scalar (a uint64 one from 2**63 up,
    past that OverflowError), then cast to an integer tensor's dtype keeping the low bits as
    C++ does, so int32 + 2**40 adds 0. No OverflowError from NumPy, no exact comparison."""
    if not -(1 << 63) <= v < (1 << 64):
        raise OverflowError(msg.INT_NEGATIVE_UNSIGNED if v < 0 else msg.INT_TOO_BIG)
    if dtype.is_floating_point or dtype is _dtypes.bool:
        return v
    bits = dtype.itemsize * 8
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) and dtype.is_signed else v


# The C++ type names PyTorch's checked conversion of a Scalar argument prints.
_CHECKED_NAME = {
    _dtypes.int32: "int",
    _dtypes.int64: "int64_t",
    _dtypes.uint8: "uint8_t",
    _dtypes.float16: "c10::Half",
    _dtypes.float32: "float",
    _dtypes.float64: "double",
}


def _checked_scalar(v, dtype, half=True):
    """A Python number argument (fill_, clamp, full, pow, alpha, where, __setitem__) converted
    to `dtype` as PyTorch does: read as a Scalar (OverflowError past uint64 or below int64),
    then refused if the dtype cannot hold it. bool holds anything; float16 is checked only by
    the ops that pass `half` (where and __setitem__ let it become inf). A NumPy number counts
    as the Python number it holds."""
    if isinstance(v, (np.floating, np.integer)):  # PyTorch reads a NumPy number as Python's
        v = v.item()
    cls = v.__class__
    if cls is builtins.int:
        _int_scalar(v, _dtypes.float64)
    elif cls is not builtins.float:
        return v
    if dtype is _dtypes.bool:
        return builtins.bool(v)
    if dtype is _dtypes.float16 and not half:
        return v
    if dtype.is_floating_point:
        bad = math.isfinite(v) and builtins.abs(v) > float(np.finfo(dtype.np).max)
    else:
        info = np.iinfo(dtype.np)
        bad = not info.min <= v <= info.max  # also inf and nan
    if bad:
        raise RuntimeError(msg.VALUE_OVERFLOW.format(_CHECKED_NAME[dtype]))
    return v


def _wrap_int64(v):
    """A Python int as a C++ int64 holds it (two's complement, wrapping)."""
    return ((v + (1 << 63)) % (1 << 64)) - (1 << 63)


def _check_alpha(alpha, dtype):
    if alpha.__class__ is builtins.float and not dtype.is_floating_point:
        raise RuntimeError(msg.ALPHA_FLOAT_INTEGRAL)
    return _checked_scalar(alpha, dtype)


def _binary(node_cls, a, b, data, dtype, device, save=None, **kw):
    data = data if data.dtype == dtype.np else data.astype(dtype.np)
    if not _needs_grad(a, b) or not dtype.is_floating_point:
        return Tensor._make(data, device, dtype)
    node = node_cls(
        (_edge(a), _edge(b)),
        _meta(a) if isinstance(a, Tensor) else None,
        _meta(b) if isinstance(b, Tensor) else None,
        **kw,
    )
    if save:
        node.save(**save)
    out = Tensor._make(data, device, dtype)
    out._grad_fn = node
    return out


# -- arithmetic ----------------------------------------------------------------------------


def _scalar_fast_path(self, other):
    """Whether `self op other` is a float tensor with a Python number (the common case)."""
    cls = other.__class__
    if cls is builtins.int:  # one PyTorch cannot read as a Scalar takes the checked path
        return self._dtype.is_floating_point and -(1 << 63) <= other < (1 << 63)
    return cls is builtins.float and self._dtype.is_floating_point


def _scalar_result(self, data, node_cls, save_other=None):
    out = Tensor._make(data, self._device, self._dtype)
    # grad_fn (a property: a view may rebuild its history) only when the fields cannot tell
    records = self._requires_grad or self._grad_fn is not None
    if not records and self._base is not None:
        records = self.requires_grad
    if records and grad_mode._enabled:
        fn = self._grad_fn
        if fn is not None and self._base is None:  # a result of an op, the common case
            nr = self._output_nr
        else:
            fn, nr = self._edge()
        node = node_cls._of_scalar(fn, nr, (self._data.shape, self._data.dtype))
        if save_other is not None:
            node._saved = {"other": save_other}
        out._grad_fn = node
    return out


def add(self, other, *, alpha=1):
    if alpha == 1 and _scalar_fast_path(self, other):
        return _scalar_result(self, self._data + other, F.AddBackward0)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    if alpha != 1:
        alpha = _check_alpha(alpha, dtype)
    data = a + b if alpha == 1 else a + alpha * b
    return _binary(F.AddBackward0, self, other, _arr(data, dtype), dtype, device, alpha=alpha)


def _refuse_bool_sub(self, other):
    """PyTorch refuses `-` with a bool operand; a Python bool counts (a NumPy bool_ is a float
    to PyTorch)."""
    a = self._dtype is _dtypes.bool
    b = (
        other._dtype is _dtypes.bool
        if isinstance(other, Tensor)
        else isinstance(other, builtins.bool)
    )
    if a or b:
        if other.__class__ is builtins.int:
            _int_scalar(other, _dtypes.float64)  # the number is read (OverflowError) first
        raise RuntimeError(msg.BOOL_SUBTRACTION_TWO if a and b else msg.BOOL_SUBTRACTION)


def sub(self, other, *, alpha=1):
    if alpha == 1 and _scalar_fast_path(self, other):
        return _scalar_result(self, self._data - other, F.SubBackward0)
    _refuse_bool_sub(self, other)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    data = None
    if alpha.__class__ is builtins.int and alpha != 1:
        _int_scalar(alpha, _dtypes.float64)  # read as a Scalar first (OverflowError)
        # PyTorch adds -alpha, negated as a C++ int64 (wrapping): that is the value checked
        # against the dtype (int32 takes alpha=2**31) and added
        added = _check_alpha(_wrap_int64(-_wrap_int64(alpha)), dtype)
        alpha, data = -added, a + added * b
    elif alpha != 1:
        alpha = _check_alpha(alpha, dtype)
    if data is None:
        data = a - b if alpha == 1 else a - alpha * b
    return _binary(F.SubBackward0, self, other, _arr(data, dtype), dtype, device, alpha=alpha)


def rsub(self, other, *, alpha=1):
    """`other - self` for a Python scalar `other`."""
    _refuse_bool_sub(self, other)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    data = _arr(b - a * alpha, dtype)
    node = F.RsubBackward1((self._edge(),), alpha) if _needs_grad(self) else None
    return _result(data, device, node)


def mul(self, other):
    if _scalar_fast_path(self, other):
        data = self._data
        if self._dtype is _dtypes.float16:
            data = F.with_number(operator.mul, data, other)
        else:
            data = data * other
        return _scalar_result(self, data, F.MulBackward0, save_other=other)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    save = {}
    if _needs_grad(self, other):
        if isinstance(other, Tensor) and other.requires_grad:
            save["self"] = self
        if self.requires_grad:
            save["other"] = other
    data = a * b if isinstance(other, Tensor) else F.with_number(operator.mul, a, b)
    return _binary(F.MulBackward0, self, other, _arr(data, dtype), dtype, device, save=save)


def div(self, other):
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    if not dtype.is_floating_point:  # true division of integers gives the default float
        dtype = _dtypes.float32
        a = a.astype(dtype.np) if hasattr(a, "astype") else a
        # a Python int divides as a number (int32 / 2**40 is tiny, not x / 0 after wrapping)
        b = b.astype(dtype.np) if hasattr(b, "astype") else other
    data = a / b if isinstance(other, Tensor) else F.with_number(operator.truediv, a, b)
    data = _arr(data, dtype)
    save = {}
    if _needs_grad(self, other):
        save["other"] = other
        if isinstance(other, Tensor) and other.requires_grad:
            save["self"] = self
    return _binary(F.DivBackward0, self, other, data, dtype, device, save=save)


def rdiv(self, other):
    """`other / self` for a Python scalar: PyTorch computes reciprocal(self) * other."""
    return mul(reciprocal(self), other)


def reciprocal(self):
    x = self if self._dtype.is_floating_point else self.float()
    data = 1 / x._data
    return _unary(F.ReciprocalBackward0, x, data, result=True)


def neg(self):
    if self._dtype is _dtypes.bool:
        raise RuntimeError(msg.BOOL_NEGATION)
    return _unary(F.NegBackward0, self, -self._data)


def pow(self, exponent):  # noqa: A001 - PyTorch's name
    if isinstance(exponent, Tensor):
        p = _prepare(self, exponent)
        dtype, device, a, b = p
        data = _arr(_power(a, b, dtype), dtype)
        out = _binary(F.PowBackward1, self, exponent, data, dtype, device)
        if out._grad_fn is not None:
            out._grad_fn.save(self=self, exponent=exponent)
            out._grad_fn.save_output("result", out)
        return out
    checked = exponent
    if checked.__class__ is int and not self._dtype.is_floating_point:
        _checked_scalar(checked, _dtypes.int64)  # an integer tensor reads it as int64 first
        if checked < 0 and self._dtype is not _dtypes.bool:
            raise RuntimeError(msg.INT_NEGATIVE_POWER)
    p = _prepare(self, exponent)
    if p is NotImplemented:
        return p
    dtype, device, a, exponent = p  # a NumPy number as exponent is now a Python one
    if checked.__class__ is int or dtype is _dtypes.float16:  # half's kernel reads it as half
        _checked_scalar(checked, dtype)
    data = _arr(_power(a, exponent, dtype), dtype)
    node = None
    if _needs_grad(self) and dtype.is_floating_point:
        node = F.PowBackward0((self._edge(),), exponent)
        node.save(self=self)
    return _result(data, device, node)


def rpow(self, base):
    """`base ** self` for a Python scalar `base`."""
    p = _prepare(self, base)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    if not dtype.is_floating_point and isinstance(base, builtins.float):
        dtype = _dtypes.float32
    data = _arr(_power(b, a, dtype), dtype)
    out = _result(data, device)
    if _needs_grad(self):
        out._grad_fn = F.PowBackward2((self._edge(),), base)
        out._grad_fn.save(exponent=self)
        out._grad_fn.save_output("result", out)
    return out


def _power(base, exponent, dtype):
    """base ** exponent (arrays or numbers of the result dtype). Integers as PyTorch: a
    negative number as exponent is refused; negative exponents in a tensor give 1 ** e = 1,
    (-1) ** e = +-1 and 0 otherwise (NumPy refuses both)."""
    if dtype.is_floating_point:
        return base**exponent
    if isinstance(exponent, _SCALARS):  # a Python or NumPy number
        if exponent < 0:
            raise RuntimeError(msg.INT_NEGATIVE_POWER)
        return base**exponent
    xp = _xp_of(base, exponent)
    result = xp.asarray(base) ** xp.maximum(exponent, 0)
    negative = xp.where(base == 1, 1, xp.where(base == -1, 1 - 2 * (exponent % 2), 0))
    return xp.where(exponent < 0, negative, result)


def _xp_of(*arrays):
    return next(F.array_module(a) for a in arrays if hasattr(a, "shape"))


def _arr(data, dtype):
    """Op results in the result dtype (NumPy may widen; Tensor._make turns its scalars back
    into 0-d arrays)."""
    if not hasattr(data, "dtype"):
        return np.asarray(data, dtype=dtype.np)
    if data.dtype != dtype.np:
        return data.astype(dtype.np)
    return data


# -- unary ---------------------------------------------------------------------------------


def _unary(node_cls, self, data, *, save_self=False, result=False, **kw):
    data = _arr(data, _dtypes._BY_NP.get(getattr(data, "dtype", None), self._dtype))
    out = Tensor._make(data, self._device)
    if _needs_grad(self) and out._dtype.is_floating_point:
        node = node_cls((self._edge(),), **kw)
        if save_self:
            node.save(self=self)
        if result:
            node.save_output("result", out)
        out._grad_fn = node
    return out


def _float_unary(node_cls):
    """An elementwise function computed in floating point (integers are promoted first); the
    node class holds both its forward kernel and its gradient (functions._ElementwiseFloat)."""
    saves = {"save_self": True} if node_cls.saves == "self" else {"result": True}

    def op(self):
        x = self if self._dtype.is_floating_point else to(self, _dtypes.float32)
        data = x._data
        data = node_cls.forward(x._xp, F.opmath(data)).astype(data.dtype, copy=False)
        return _unary(node_cls, x, data, **saves)

    return op


exp = _float_unary(F.ExpBackward0)
log = _float_unary(F.LogBackward0)
sqrt = _float_unary(F.SqrtBackward0)
tanh = _float_unary(F.TanhBackward0)
sigmoid = _float_unary(F.SigmoidBackward0)
sin = _float_unary(F.SinBackward0)
cos = _float_unary(F.CosBackward0)


def relu(self):
    if self._dtype is _dtypes.bool:
        raise RuntimeError(msg.BOOL_RELU)
    return _unary(F.ReluBackward0, self, F.ReluBackward0.forward(self._xp, self._data), result=True)


def abs(self):  # noqa: A001
    if self._dtype is _dtypes.bool:
        raise NotImplementedError(msg.bool_not_implemented("abs", self._device))
    return _unary(F.AbsBackward0, self, self._xp.abs(self._data), save_self=True)


def _clamp_overload(min, max):  # noqa: A002
    """Which of PyTorch's clamp overloads the bounds pick: "tensor" when every given bound is
    a Tensor, else "number", where a 0-d tensor stands for its number (a larger one is
    refused)."""
    given = [b for b in (min, max) if b is not None]
    if given and builtins.all(isinstance(b, Tensor) for b in given):
        return "tensor"
    if builtins.any(isinstance(b, Tensor) and b.ndim > 0 for b in given):
        raise TypeError(msg.PARSER_REFUSED.format("clamp"))
    return "number"


def _clamp_tensors(self, min, max):  # noqa: A002
    """clamp with tensor bounds: broadcast, promoted, NaN in any operand propagates."""
    bounds = [b for b in (min, max) if b is not None]
    shape = self._data.shape
    for b in bounds:
        probe = Tensor._make(self._xp.empty(shape, dtype=bool), self._device)
        if b._data.shape != shape:
            _check_broadcast(probe, b)
            shape = np.broadcast_shapes(shape, b._data.shape)
        _check_devices(self, b)
    dtype = _dtypes.result_type(self, *bounds)
    xp = self._xp
    data = _as_operand(self, dtype, self._device)
    lo = None if min is None else _as_operand(min, dtype, self._device)
    hi = None if max is None else _as_operand(max, dtype, self._device)
    if lo is not None:
        data = xp.maximum(data, lo)
    if hi is not None:
        data = xp.minimum(data, hi)
    out = Tensor._make(_arr(xp.broadcast_to(data, shape), dtype), self._device)
    if _needs_grad(self, min, max) and dtype.is_floating_point:
        metas = tuple(None if t is None else _meta(t) for t in (self, min, max))
        node = F.ClampBackward0((self._edge(), _edge(min), _edge(max)), metas)
        node.save(self=self, min=min, max=max)
        out._grad_fn = node
    return out


def clamp(self, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _clamp_overload(min, max) == "tensor":
        return _clamp_tensors(self, min, max)
    min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
    for b in (min, max):
        _refuse_uint64_with_bool(self._dtype, b)
    dtype = _dtypes.result_type(self, *(b for b in (min, max) if b is not None))
    if dtype is _dtypes.bool:  # PyTorch has no bool clamp kernel
        kernel = (
            "clamp"
            if min is not None and max is not None
            else "clamp_min"
            if max is None
            else "clamp_max"
        )
        raise NotImplementedError(
            msg.not_implemented_for(f"{kernel}_scalar_{self._device.type}", dtype)
        )
    min, max = (b if b is None else _checked_scalar(b, dtype) for b in (min, max))
    if dtype is not self._dtype:  # an integer tensor clamped to float bounds
        return clamp(to(self, dtype), min, max)
    data, xp = self._data, self._xp
    # PyTorch keeps x unless it lies beyond a bound: -0.0 and NaN pass unchanged; a NaN
    # bound makes every element NaN
    for bound, beyond in ((min, xp.less), (max, xp.greater)):
        if bound is not None:
            data = xp.where(beyond(data, bound) | (bound != bound), data.dtype.type(bound), data)
    return _unary(F.ClampBackward1, self, data, save_self=True, lo=min, hi=max)


def softplus(self, beta=1.0, threshold=20.0):
    if not self._dtype.is_floating_point:  # PyTorch's kernel has no integer or bool version
        raise NotImplementedError(
            msg.not_implemented_for(f"softplus_{self._device.type}", self._dtype)
        )
    xp = self._xp
    x = F.opmath(self._data)
    z = x * beta
    soft = xp.log1p(xp.exp(-xp.abs(z))) + xp.maximum(z, 0)
    data = xp.where(z > threshold, x, soft / beta).astype(self._data.dtype, copy=False)
    return _unary(F.SoftplusBackward0, self, data, save_self=True, beta=beta, threshold=threshold)


# -- comparisons (never require grad) ------------------------------------------------------


def _compare(ufunc):
    def compare(self, other):
        p = _prepare(self, other)
        if p is NotImplemented:
            return p
        dtype, device, a, b = p
        return Tensor._make(_arr(ufunc(a, b), _dtypes.bool), device)

    compare.__name__ = ufunc.__name__
    return compare


lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
eq = _compare(np.equal)
ne = _compare(np.not_equal)


def eq_operator(self, other):
    """`t == array`: PyTorch's __eq__, alone among the operators, reads a NumPy array as a
    tensor of its dtype (`!=`, `<` and eq() refuse one)."""
    if isinstance(other, np.ndarray):
        from .factories import as_tensor

        other = as_tensor(other)
    return eq(self, other)


# -- reductions ----------------------------------------------------------------------------


_ALL = object()  # no dim given: PyTorch's full reduction overload (SumBackward0, MaxBackward1)


def _dims(name, dim, ndim):
    """The dims a reduction over `dim` reduces, sorted (None and () mean all of them)."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    if not builtins.all(isinstance(d, (builtins.int, np.integer)) for d in dims):
        raise TypeError(msg.PARSER_REFUSED.format(name))
    dims = [wrap_dim(d, ndim) for d in dims]
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
        return _unary_shape(F.SumBackward0, self, result, shape=data.shape)
    dims = _dims("sum", dim, data.ndim)
    result = _arr(data.sum(axis=dims, keepdims=keepdim, dtype=out_dtype.np), out_dtype)
    return _unary_shape(F.SumBackward1, self, result, shape=data.shape, dims=dims, keepdim=keepdim)


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
        return _unary_shape(F.MeanBackward0, self, result, shape=data.shape)
    dims = _dims("mean", dim, data.ndim)
    result = _arr(_mean(data, dims, keepdim, acc), out_dtype)
    return _unary_shape(F.MeanBackward1, self, result, shape=data.shape, dims=dims, keepdim=keepdim)


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
        F.MaxBackward1,
        F.MaxBackward0,
        return_types.max,
    )


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
        F.MinBackward1,
        F.MinBackward0,
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


# -- linear algebra ------------------------------------------------------------------------


def _same_device(self, other):
    if self._device != other._device:
        raise RuntimeError(msg.mm_devices_differ(self._device, other._device))


def _matmul_prepare(self, other):
    _same_device(self, other)
    if self._dtype is not other._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{_dtypes.CPP_NAME[self._dtype]} != {_dtypes.CPP_NAME[other._dtype]}"
        )


def _check_mm(self, mat2, mat1_shape=None):
    """mm's checks in PyTorch's order: devices, matrices, inner sizes, then dtypes (so a
    float64 input of the wrong width reports the sizes). `mat1_shape`: the 2-D shape a
    batch is folded into (matmul of a batch with a matrix, nn.Linear)."""
    a, b = mat1_shape or self._data.shape, mat2._data.shape
    if self._device == mat2._device:  # a device mismatch is reported first, below
        if len(a) != 2:
            raise RuntimeError("self must be a matrix")
        if len(b) != 2:
            raise RuntimeError("mat2 must be a matrix")
        if a[1] != b[0]:
            raise RuntimeError(msg.mm_shapes(a, b))
    _matmul_prepare(self, mat2)


def _type_name(t):
    return _dtypes.SCALAR_TYPE_NAME[t._dtype]


def mm(self, mat2):
    _check_mm(self, mat2)
    a, b = self._data, mat2._data
    out = Tensor._make(a @ b, self._device, self._dtype)
    if _needs_grad(self, mat2) and self._dtype.is_floating_point:
        node = F.MmBackward0((self._edge(), mat2._edge()), (F.column_major(a), F.column_major(b)))
        save = {}
        if mat2.requires_grad:
            save["self"] = self
        if self.requires_grad:
            save["mat2"] = mat2
        node.save(**save)
        out._grad_fn = node
    return out


def dot(self, other):
    _same_device(self, other)
    if self._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {self._data.ndim}D and {other._data.ndim}D tensors"
        )
    if self._dtype is not other._dtype:
        raise RuntimeError(msg.dot_dtypes(_type_name(self), _type_name(other)))
    if self._data.shape != other._data.shape:
        raise RuntimeError(msg.dot_sizes(self._data.shape[0], other._data.shape[0]))
    out = Tensor._make(_arr(self._data @ other._data, self._dtype), self._device)
    if _needs_grad(self, other) and self._dtype.is_floating_point:
        node = F.DotBackward0((self._edge(), other._edge()))
        node.save(self=self, tensor=other)
        out._grad_fn = node
    return out


def mv(self, vec):
    _same_device(self, vec)
    (n, *k), (m, *_) = self._data.shape or (0,), vec._data.shape or (0,)
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if k[0] != m:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k[0]}), vec ({m})")
    if self._dtype is not vec._dtype:
        raise RuntimeError(msg.mv_dtypes(_type_name(self), _type_name(vec)))
    out = Tensor._make(self._data @ vec._data, self._device, self._dtype)
    if _needs_grad(self, vec) and self._dtype.is_floating_point:
        node = F.MvBackward0((self._edge(), vec._edge()))
        node.save(self=self, vec=vec)
        out._grad_fn = node
    return out


def matmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    da, db = self._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 2 and db == 2:
        return mm(self, other)
    if da == 1 and db == 1:
        return dot(self, other)
    if da == 2 and db == 1:
        return mv(self, other)
    if da == 1 and db == 2:
        out = mm(self.unsqueeze(0), other)
        out._data = out._data.reshape(out._data.shape[1:])
        _versions.bump_version(out)  # PyTorch squeezes the mm result in place
        if out._grad_fn is not None:
            out._grad_fn = F.SqueezeBackward4((out._edge(),), (1,) + out._data.shape)
        return out
    if da >= 3 and db == 2:  # PyTorch folds the batch into one mm
        *batch, k = self._data.shape
        _check_mm(self, other, (math.prod(batch), k))
    elif self._device == other._device:  # a batched product: PyTorch's bmm texts
        sa = self._data.shape if da > 1 else (1,) + self._data.shape
        sb = other._data.shape if db > 1 else other._data.shape + (1,)
        _check_shapes(sa[:-2], sb[:-2])
        if sa[-1] != sb[-2]:
            batch = math.prod(np.broadcast_shapes(sa[:-2], sb[:-2]))
            raise RuntimeError(msg.batch2_size(batch, sa[-1], sb[-2]))
    _matmul_prepare(self, other)
    out = Tensor._make(self._xp.matmul(self._data, other._data), self._device, self._dtype)
    if _needs_grad(self, other) and self._dtype.is_floating_point:
        a_meta, b_meta = _meta(self), _meta(other)
        node_cls = F.BatchedCloneBackward0 if da == 2 else F.UnsafeViewBackward0
        node = node_cls((self._edge(), other._edge()), out._data.shape, a_meta, b_meta)
        node.save(self=self, other=other)
        out._grad_fn = node
    return out


# -- copies, dtype and device --------------------------------------------------------------


def clone(self, *, memory_format=None):
    out = Tensor._make(self._data.copy(), self._device, self._dtype)
    if _needs_grad(self):
        out._grad_fn = F.CloneBackward0((self._edge(),))
    return out


def contiguous(self, memory_format=None):
    if self._data.flags.c_contiguous:
        return self
    return clone(self)


def _parse_to(args, kwargs):
    from ._device import canonical, device

    dev = dtype = None
    flags = [a for a in args if isinstance(a, builtins.bool)]  # non_blocking, then copy
    copy = bool(kwargs.get("copy", False)) or (len(flags) > 1 and flags[1])
    for a in list(args) + [kwargs.get("device"), kwargs.get("dtype")]:
        if a is None or isinstance(a, builtins.bool):
            continue
        if isinstance(a, (_dtypes.dtype, type)):  # Python's float, int and bool name dtypes
            dtype = _dtypes.argument("to", a)
        elif isinstance(a, (str, device)):
            d = a if isinstance(a, device) else device(a)
            dev = canonical(d)
            # PyTorch compares the request with the tensor's device as given: a CPU tensor's
            # device has no index, so "cpu:0" never matches it and to() copies.
            copy = copy or (d.type == "cpu" and d.index is not None)
        elif isinstance(a, Tensor):
            dev, dtype = a._device, a._dtype
        elif isinstance(a, (builtins.int, np.integer)) and not isinstance(a, builtins.bool):
            from ._device import cuda_is_available

            if a < 0:
                raise RuntimeError(msg.NEGATIVE_DEVICE_INDEX)
            if not cuda_is_available():  # an index means the accelerator's device
                raise RuntimeError(msg.NO_ACCELERATOR)
            dev = canonical(device("cuda", a))
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    return dev, dtype, copy


def to(self, *args, **kwargs):
    number = _signatures.number_dtype(args[0]) if args else None
    if number is not None:  # x.to(5.0) is x.to(float64), as PyTorch's parser reads it
        args = (_dtypes._BY_NAME[number],) + args[1:]
    dev, dtype, copy = _parse_to(args, kwargs)
    return _devices.to(self, dev, dtype, copy)


def cuda(self, device=None, non_blocking=False):
    return to(self, "cuda" if device is None else device)


def _floor_op(ufunc, reflected=False):
    """`//` and `%` (PyTorch's floor_divide and remainder: Python's rounding and signs).
    An integer division by zero raises PyTorch's text; float ones give inf or nan. The graph
    is PyTorch's: see _floor_node."""

    def op(self, other):
        p = _prepare(self, other)
        if p is NotImplemented:
            return p
        dtype, device, a, b = p
        if reflected:
            a, b = b, a
        if dtype is _dtypes.bool:  # PyTorch has no bool kernel for either
            kernel = "remainder" if ufunc is np.remainder else "div_floor"
            raise NotImplementedError(msg.not_implemented_for(f"{kernel}_{device.type}", dtype))
        if not dtype.is_floating_point:
            if self._xp.any(self._xp.asarray(b) == 0):
                raise RuntimeError(msg.INT_DIVISION_BY_ZERO)
        if ufunc is np.remainder and dtype.is_floating_point:
            values = _float_remainder(self._xp, a, b)
        else:
            values = ufunc(a, b)
        out = Tensor._make(_arr(values, dtype), device, dtype)
        if dtype.is_floating_point and _needs_grad(self, other):
            first, second = (other, self) if reflected else (self, other)
            out._grad_fn = _floor_node(ufunc, first, second)
        return out

    return op


def _float_remainder(xp, a, b):
    """PyTorch's float kernel: fmod, moved by b where the signs differ. A zero keeps
    fmod's sign (0 % -2.5 is 0., -4. % 2. is -0.), where NumPy's remainder gives b's."""
    mod = xp.fmod(a, b)
    return xp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


def _floor_node(ufunc, a, b):
    """Only `tensor % tensor` (RemainderBackward1) and `tensor % number` (RemainderBackward0)
    have a derivative in PyTorch; `//` and `number % tensor` record a NotImplemented node with
    edges to the inputs that require grad, which fails when backward reaches it."""
    if ufunc is np.remainder and isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            return F.RemainderBackward0((a._edge(),))
        node = F.RemainderBackward1((_edge(a), _edge(b)), _meta(a), _meta(b))
        if b.requires_grad:
            node.save(self=a, other=b)
        return node
    edges = [x._edge() for x in (a, b) if isinstance(x, Tensor) and x.requires_grad]
    return F.NoDerivative(edges, "remainder" if ufunc is np.remainder else "floor_divide")


floor_divide = _floor_op(np.floor_divide)
remainder = _floor_op(np.remainder)
rfloordiv = _floor_op(np.floor_divide, reflected=True)
rremainder = _floor_op(np.remainder, reflected=True)


def cpu(self):
    return to(self, "cpu")


def _cast(dtype):
    def cast(self, memory_format=None):
        return to(self, dtype)

    return cast


def type_as(self, other):
    return to(self, other._dtype)


# -- views ---------------------------------------------------------------------------------


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


def view(self, *shape):
    from ._size import normalize_size

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
        F.ViewBackward0,
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
    from ._size import normalize_size

    target = _shape_for(self, normalize_size(shape))
    if _reshape_no_copy(self._data, target) is not None:
        return view(self, *target)
    out = Tensor._make(self._data.reshape(target), self._device, self._dtype)
    if _needs_grad(self):
        out._grad_fn = F.UnsafeViewBackward0((self._edge(),), self._data.shape)
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


def t(self):
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    perm = tuple(reversed(range(nd)))
    return _perm_view(self, perm, F.TBackward0)


def T(self):
    nd = self._data.ndim
    if nd == 0:  # PyTorch warns once per process for each of the two deprecations
        warn(msg.T_ON_ZERO_DIM, once_key="T-on-0-d")
    elif nd != 2:
        warn(msg.T_NOT_2D, once_key="T-not-2-d")
    return _perm_view(self, tuple(reversed(range(nd))), F.PermuteBackward0)


def transpose(self, dim0, dim1):
    nd = self._data.ndim
    perm = list(range(nd))
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    if perm:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _perm_view(self, tuple(perm), F.TransposeBackward0)


def permute(self, *dims):
    from ._size import normalize_size

    nd = self._data.ndim
    dims = normalize_size(dims)
    if len(dims) != nd:
        raise RuntimeError(msg.permute_length(nd, len(dims)))
    perm = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(perm)) != nd:
        raise RuntimeError(msg.PERMUTE_DUPLICATE)
    return _perm_view(self, perm, F.PermuteBackward0)


def unsqueeze(self, dim):
    d = wrap_dim(dim, self._data.ndim + 1)
    shape = self._data.shape
    new = shape[:d] + (1,) + shape[d:]
    return _view(
        self,
        self._data.reshape(new),
        F.UnsqueezeBackward0,
        lambda a: a.reshape(new),
        shape,
        lambda g: g.reshape(shape),
    )


def squeeze(self, dim=None):
    shape = self._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
        node = F.SqueezeBackward0
    else:
        d = wrap_dim(dim, len(shape))
        new = shape[:d] + shape[d + 1 :] if shape and shape[d] == 1 else shape
        node = F.SqueezeBackward1
    return _view(
        self,
        self._data.reshape(new),
        node,
        lambda a: a.reshape(new),
        shape,
        lambda g: g.reshape(shape),
    )


def expand(self, *sizes):
    from ._size import normalize_size

    shape = self._data.shape
    target = _expanded_shape(self, normalize_size(sizes))
    data = _broadcast_view(self._data, target)
    return _view(self, data, F.ExpandBackward0, lambda a: _broadcast_view(a, target), shape)


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
    out = F.array_module(a).broadcast_to(a, shape)
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


def unbind(self, dim=0):
    d = wrap_dim(dim, self._data.ndim)
    n = self._data.shape[d]
    node = None
    if _needs_grad(self):
        node = F.UnbindBackward0((self._edge(),), self._data.shape, d, n)
    outs = []
    for i in range(n):
        index = (slice(None),) * d + (i, Ellipsis)
        part = _view(self, self._data[index], None, _index_fn(index), flags="multi:Unbind")
        if node is not None:
            part._grad_fn = node
            part._output_nr = i
        outs.append(part)
    return tuple(outs)


def _index_fn(index):
    return lambda a: a[index]


# -- indexing ------------------------------------------------------------------------------


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
    node = F.AliasBackward0
    dim = 0
    for i, part in enumerate(parts):
        if part is Ellipsis:
            dim = len(shape) - builtins.sum(_dims_taken(p) for p in parts[i + 1 :])
        elif part is None:
            node = F.IndexUnsqueezeBackward0
        elif isinstance(part, slice):
            keeps_all = part.indices(shape[dim]) == (0, shape[dim], 1)
            if not (keeps_all and is_tuple):
                node = F.SliceBackward0
            dim += 1
        else:
            node = F.SelectBackward0
            dim += 1
    return node


def getitem(self, index):
    parts, index_tensors, is_tuple = _normalize_index(index)
    _check_index(parts, self._data.shape, is_tuple)
    if _is_basic(parts):
        index = parts + (Ellipsis,) if Ellipsis not in parts else parts
        data = self._data[index]  # with an Ellipsis, 0-d results stay arrays (views)
        fn = _index_fn(index)
        node = _basic_node_class(parts, is_tuple, self._data.shape)
        args = () if node is F.AliasBackward0 else (self._data.shape, self._data.dtype, fn)
        return _view(self, data, node, fn, *args)
    data = self._xp.asarray(self._data[parts])  # an array even where NumPy gives a scalar
    out = Tensor._make(data, self._device, self._dtype)
    if _needs_grad(self):
        out._grad_fn = F.IndexBackward0((self._edge(),), self._data.shape, parts, index_tensors)
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


# -- in-place ------------------------------------------------------------------------------


def _refuse_overlap(self):
    if _overlaps_itself(self._data):
        raise RuntimeError(msg.INTERNAL_OVERLAP)


def _inplace(self, op, others=(), overlap_ok=False):
    """Run `op(old)` (an out-of-place op on an alias of self's old values) and write its
    result into self, rewriting self's history as PyTorch does. Only zero_ and fill_ may
    write into an expanded tensor (`overlap_ok`)."""
    tracked = grad_mode._enabled and (
        self.requires_grad or builtins.any(o is not None and o.requires_grad for o in others)
    )
    if tracked:  # PyTorch's refusals, run when the write is recorded
        _versions.check_inplace(self)
    if not overlap_ok:  # after autograd's refusals, as in PyTorch
        _refuse_overlap(self)
    if not tracked:
        with grad_mode.no_grad():
            out = op(self)
        _write(self, out._data)
        return self
    old = Tensor._make(self._data.copy(), self._device, self._dtype)
    if self._base is None:
        old._grad_fn, old._output_nr = self._grad_fn, self._output_nr
        old._requires_grad = self._requires_grad
    else:
        old._requires_grad = self.requires_grad  # placeholder: CopySlices routes its gradient
    out = op(old)
    _write(self, out._data)
    fn = out._grad_fn
    if fn is None:
        return self
    if fn._saved and "result" in fn._saved:
        fn.save_output("result", self)  # the saved output is now self, at its new version
    if self._base is None:
        _move_retained(self, fn)
        self._grad_fn, self._output_nr, self._requires_grad = fn, 0, False
    else:
        base = self._base
        base_edge = base._edge()
        base_fn = F.CopySlices(base_edge, self._view_fn, fn)
        _move_retained(base, base_fn)
        base._grad_fn = base_fn
        base._output_nr, base._requires_grad = 0, False
        self._view_version = -1  # rebuild this view's history from the base's new one
    return self


def _move_retained(t, new_fn):
    """retain_grad() follows the tensor to its new history, as PyTorch moves the retains-grad
    hook to the new grad_fn: .grad is the gradient of the current version. (Hooks from
    register_hook stay with the old node.)"""
    if not t._retains_grad:
        return
    old_fn = t._grad_fn
    if old_fn is not None and old_fn._retained:
        old_fn._retained = [e for e in old_fn._retained if e[1] is not t] or None
    new_fn._retained = (new_fn._retained or []) + [(0, t)]


def _write(self, data):
    if data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(data.shape)}"
        )
    if data.dtype != self._data.dtype:
        src, dst = _dtypes._BY_NP[data.dtype], self._dtype
        if _dtypes.category(src) > _dtypes.category(dst):
            raise RuntimeError(
                msg.cannot_cast_result(_dtypes.SCALAR_TYPE_NAME[src], _dtypes.SCALAR_TYPE_NAME[dst])
            )
        data = data.astype(self._data.dtype)
    self._data[...] = data
    _versions.bump_version(self)


def _inplace_binary(fn, ufunc_name=None):
    def method(self, other, **kw):
        direct = ufunc_name and not kw and not _overlaps_itself(self._data)
        if direct and _write_directly(self, other, ufunc_name):
            return self
        return _inplace(self, lambda old: fn(old, other, **kw), others=(_tensor_or_none(other),))

    method.__name__ = fn.__name__ + "_"
    return method


def _write_directly(self, other, ufunc_name):
    """The untracked case (an optimizer step under no_grad): compute into self's memory
    with no temporary, as `p -= lr * g` does in NumPy. False when it does not apply."""
    if not self._dtype.is_floating_point:
        return False
    if grad_mode._enabled and (
        self.requires_grad or (isinstance(other, Tensor) and other.requires_grad)
    ):
        return False
    p = _prepare(self, other)
    if p is NotImplemented or p[0] is not self._dtype:
        return False
    b = p[3]
    if getattr(b, "ndim", 0) and np.broadcast_shapes(self._data.shape, b.shape) != self._data.shape:
        return False
    getattr(self._xp, ufunc_name)(self._data, b, out=self._data)
    _versions.bump_version(self)
    return True


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


add_ = _inplace_binary(add, "add")
sub_ = _inplace_binary(sub, "subtract")
mul_ = _inplace_binary(mul, "multiply")
div_ = _inplace_binary(div, "divide")
pow_ = _inplace_binary(pow)


def _inplace_floor_op(out_of_place):
    """y //= 2 and y %= 2: in place, counted and recorded; a NotImplemented node they record
    names the in-place op (aten::floor_divide_), as PyTorch's does."""
    method = _inplace_binary(out_of_place)

    def inplace(self, other):
        out = method(self, other)
        if isinstance(out._grad_fn, F.NoDerivative):
            out._grad_fn.op += "_"
        return out

    inplace.__name__ = method.__name__
    return inplace


floor_divide_ = _inplace_floor_op(floor_divide)
remainder_ = _inplace_floor_op(remainder)


def _inplace_unary(fn):
    def method(self, *args, **kw):
        return _inplace(self, lambda old: fn(old, *args, **kw))

    method.__name__ = fn.__name__ + "_"
    return method


relu_ = _inplace_unary(relu)
exp_ = _inplace_unary(exp)
sigmoid_ = _inplace_unary(sigmoid)
tanh_ = _inplace_unary(tanh)


def clamp_(self, min=None, max=None):  # noqa: A002
    if (min is not None or max is not None) and _clamp_overload(min, max) == "number":
        dtype = _dtypes.result_type(self, *(b for b in (min, max) if b is not None))
        if _dtypes.category(dtype) > _dtypes.category(self._dtype):  # clamp names C++ types
            raise RuntimeError(
                msg.cannot_cast_result(
                    _dtypes.SCALAR_TYPE_NAME[dtype], _dtypes.CPP_NAME[self._dtype]
                )
            )
    return _inplace(self, lambda old: clamp(old, min, max))


def zero_(self):
    def op(old):
        out = Tensor._make(old._xp.zeros_like(old._data), old._device, old._dtype)
        if _needs_grad(old):
            out._grad_fn = F.ZeroBackward0((old._edge(),))
        return out

    return _inplace(self, op, overlap_ok=True)


def fill_(self, value):
    value_t = _tensor_or_none(value)
    if value_t is None:
        value = _checked_scalar(value, self._dtype)

    def op(old):
        if value_t is None:
            data = old._xp.full_like(old._data, value)
            node = F.FillBackward2((old._edge(),)) if _needs_grad(old) else None
        else:
            # A tensor value is an input of the graph (PyTorch's FillBackward3): the value
            # gets the sum of the incoming gradient, the overwritten elements none.
            if value_t._data.ndim:
                raise RuntimeError(msg.FILL_VALUE_DIMS.format(value_t._data.ndim))
            data = old._xp.full_like(old._data, value_t.item())
            node = None
            if _needs_grad(old, value_t):
                edges = (old._edge(), value_t._edge())
                node = F.FillBackward3(edges, value_t._data.dtype, value_t._device)
        out = Tensor._make(data, old._device, old._dtype)
        out._grad_fn = node
        return out

    return _inplace(self, op, others=(value_t,), overlap_ok=True)


def copy_(self, src, non_blocking=False):
    if not isinstance(src, (Tensor, *_SCALARS)):
        raise TypeError(msg.copy_not_tensor(src))
    src_t = src if isinstance(src, Tensor) else None
    if src_t is not None and src_t._data.shape != self._data.shape:
        _check_broadcast(self, src_t)
        target = np.broadcast_shapes(self._data.shape, src_t._data.shape)
        if target != self._data.shape:
            raise RuntimeError(msg.output_shape(self._data.shape, target))

    def op(old):
        from ._device import to_device_array

        if src_t is not None:
            data = to_device_array(src_t._data, old._device).astype(old._data.dtype)
        else:
            data = old._xp.asarray(src, dtype=old._data.dtype)
        data = old._xp.broadcast_to(data, old._data.shape).copy()
        out = Tensor._make(data, old._device, old._dtype)
        if _needs_grad(old, src_t):
            meta = _meta(src_t) if src_t is not None else None
            src_device = src_t._device if src_t is not None else old._device
            out._grad_fn = F.CopyBackwards((old._edge(), _edge(src_t)), meta, src_device)
        return out

    # As PyTorch's copy_: a value is recorded only into a floating-point tensor (an integer
    # tensor filled from one that requires grad stays a plain leaf).
    tracked_src = src_t if self._dtype.is_floating_point else None
    return _inplace(self, op, others=(tracked_src,))


_RANDOM_PARAMS = {"uniform": (("from", "a"), ("to", "b")), "normal": (("mean",), ("std",))}


def _random_params(kind, args, kwargs):
    """uniform_(from=0, to=1) / normal_(mean=0, std=1), positional or by keyword."""
    names = _RANDOM_PARAMS[kind]
    values = list(args) + [None] * (len(names) - len(args))
    for i, aliases in enumerate(names):
        for name in aliases:
            if name in kwargs:
                values[i] = kwargs[name]
    defaults = (0.0, 1.0)
    return tuple(defaults[i] if v is None else v for i, v in enumerate(values[: len(names)]))


def _random_fill(node_cls, kind, check):
    def method(self, *args, **kwargs):
        strides = self._data.strides if self._device.type == "cpu" else None

        def op(old):
            from .random import sample

            params = _random_params(kind, args, kwargs)
            check(old._dtype, old._device, *params)  # after autograd's refusals
            shape, dtype = old._data.shape, old._data.dtype
            values = sample(kind, shape, dtype, old._device, *params, strides=strides)
            data = old._xp.asarray(values, dtype=old._data.dtype)
            out = Tensor._make(data, old._device, old._dtype)
            if _needs_grad(old):
                out._grad_fn = node_cls((old._edge(),))
            return out

        return _inplace(self, op)

    return method


def check_uniform(dtype, device, a=0.0, b=1.0):
    """PyTorch's uniform_ checks: floating dtypes only, then from <= to."""
    if not dtype.is_floating_point:
        raise NotImplementedError(msg.not_implemented_for("check_uniform_bounds", dtype))
    if a > b:
        raise RuntimeError(msg.UNIFORM_RANGE.format(msg.cpp_number(a), msg.cpp_number(b)))


def check_normal(dtype, device, mean=0.0, std=1.0):
    """PyTorch's normal_ checks: floating dtypes only, then std >= 0 (NaN fails too)."""
    if not dtype.is_floating_point:
        raise NotImplementedError(msg.not_implemented_for(f"normal_kernel_{device.type}", dtype))
    if not std >= 0.0:
        raise RuntimeError(msg.NORMAL_STD.format(msg.cpp_number(std)))


uniform_ = _random_fill(F.UniformBackward0, "uniform", check_uniform)
normal_ = _random_fill(F.NormalBackward0, "normal", check_normal)


# -- joining and selecting -----------------------------------------------------------------


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
    return _rebuild.cat(tensors, dim)


def where(condition, input, other):  # noqa: A002
    if condition._dtype is not _dtypes.bool:
        raise RuntimeError(msg.where_condition(_dtypes.SCALAR_TYPE_NAME[condition._dtype]))
    # Python (or NumPy) numbers on either side promote as in a binary op; with two numbers
    # the result takes the default dtype of their category, on the condition's device.
    ref = input if isinstance(input, Tensor) else other
    if not isinstance(ref, Tensor):
        ref = condition
    for t in (input, other):
        if isinstance(t, Tensor):
            _refuse_uint64_with_bool(t._dtype, other if t is input else input)
    dtype = _dtypes.result_type(*(x for x in (input, other)))
    input, other = (_checked_scalar(x, dtype, half=False) for x in (input, other))
    a = _as_operand(input, dtype, ref._device)
    b = _as_operand(other, dtype, ref._device)
    cond = condition._data
    data = _arr(ref._xp.where(cond, a, b), dtype)
    out = Tensor._make(data, ref._device, dtype)
    if _needs_grad(input, other) and dtype.is_floating_point:
        node = F.WhereBackward0(
            (_edge(input), _edge(other)),
            _meta(input) if isinstance(input, Tensor) else None,
            _meta(other) if isinstance(other, Tensor) else None,
        )
        node.save(condition=condition)
        out._grad_fn = node
    return out


# -- NumPy's floating-point warnings -------------------------------------------------------


# -- the beginner tutorials' operations -------------------------------------------------


def softmax(self, dim, dtype=None):
    if dtype is not None:
        self = to(self, dtype)  # noqa: PLW0642 - PyTorch casts first
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if not self._dtype.is_floating_point:
        kernel = "softmax_lastdim_kernel_impl" if d == nd - 1 or nd == 0 else "softmax_kernel_impl"
        name = _dtypes.SCALAR_TYPE_NAME[self._dtype]
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
    xp, x = self._xp, F.opmath(self._data)
    axis = d if nd else None
    if x.size == 0:
        data = x.copy()
    else:
        e = xp.exp(x - x.max(axis=axis, keepdims=True))
        data = e / e.sum(axis=axis, keepdims=True)
    data = data.astype(self._data.dtype, copy=False)
    return _unary(F.SoftmaxBackward0, self, data, result=True, dim=axis)


_NORMS = {"fro": 2, 2: 2, 1: 1, math.inf: math.inf}  # 2.0 and 1.0 hash as 2 and 1


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
            data = self._xp.sqrt((F.opmath(x) * F.opmath(x)).sum(axis=dims, keepdims=keepdim))
        elif ord == 1:
            data = self._xp.abs(F.opmath(x)).sum(axis=dims, keepdims=keepdim)
        else:
            if x.size == 0:
                raise RuntimeError(msg.VECTOR_NORM_INF_EMPTY)
            data = self._xp.abs(x).max(axis=dims, keepdims=keepdim)
    out = Tensor._make(_arr(data, self._dtype), self._device, self._dtype)
    if _needs_grad(self):
        node = F.LinalgVectorNormBackward0((self._edge(),), ord, dims, keepdim)
        node.save(self=self)
        node.save_output("result", out)
        out._grad_fn = node
    return out


def _elementwise_extreme(name, ufunc, node_cls):
    def op(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(msg.arg_type(name, "other", 2, "Tensor", other))
        dtype, device, a, b = _prepare(self, other)
        save = {"self": self, "other": other} if _needs_grad(self, other) else None
        data = _arr(ufunc(a, b), dtype)
        return _binary(node_cls, self, other, data, dtype, device, save=save)

    op.__name__ = name
    return op


maximum = _elementwise_extreme("maximum", np.maximum, F.MaximumBackward0)
minimum = _elementwise_extreme("minimum", np.minimum, F.MinimumBackward0)


def repeat(self, *sizes):
    from ._size import normalize_size

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
        out._grad_fn = F.RepeatBackward0((self._edge(),), self._data.shape, reps)
    return out


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
        self, self._data[index], F.SliceBackward0, fn, self._data.shape, self._data.dtype, fn
    )


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
        node = F.SplitBackward0((self._edge(),), self._data.shape, d, sizes)
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


def _can_cast(src, dst):
    """PyTorch's canCast for an out= tensor: no float into an integer, nothing into bool."""
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return not (dst is _dtypes.bool and src is not _dtypes.bool)


def _into_out(name, result, out, inputs):
    """Write an op's result into `out=` as PyTorch does (resizing it, with its warning)."""
    if not isinstance(out, Tensor):
        raise TypeError(msg.arg_type(name, "out", len(inputs) + 1, "Tensor", out))
    if not _can_cast(result._dtype, out._dtype):
        raise RuntimeError(
            msg.OUT_CANNOT_CAST.format(
                _dtypes.SCALAR_TYPE_NAME[result._dtype], _dtypes.SCALAR_TYPE_NAME[out._dtype]
            )
        )
    data = result._data.astype(out._dtype.np, copy=False)
    if out._data.shape != data.shape:
        if out._data.size:
            warn(msg.out_resized(out._data.shape, data.shape))
        out._data = data.copy() if data is result._data else data
    else:
        out._data[...] = data
    _versions.bump_version(out)
    return out


def _out_variant(name, compute, out, inputs):
    if out is None:
        return compute()
    if grad_mode._enabled and (_requires(out) or builtins.any(_requires(t) for t in inputs)):
        raise RuntimeError(msg.OUT_REQUIRES_GRAD.format(name))
    with grad_mode.no_grad():
        result = compute()
    return _into_out(name, result, out, inputs)


def add_out(input, other, *, alpha=1, out=None):  # noqa: A002
    """torch.add(input, other, alpha=, out=); a number as `input` joins the tensor `other`."""
    _other_readable("add", other)
    if isinstance(input, Tensor):
        return _out_variant("add", lambda: add(input, other, alpha=alpha), out, (input, other))
    if not isinstance(other, Tensor):
        raise TypeError(msg.arg_type("add", "input", 1, "Tensor", input))

    def compute():
        return add(other, input) if alpha == 1 else add(mul(other, alpha), input)

    return _out_variant("add", compute, out, (input, other))


def _other_readable(name, other):
    """torch.add(t, array) and the like: PyTorch's parser refuses what the operator would
    hand back to Python."""
    if not isinstance(other, (Tensor, *_SCALARS)):
        raise TypeError(msg.arg_type(name, "other", 2, "Tensor", other))


def mul_out(input, other, *, out=None):  # noqa: A002
    _other_readable("mul", other)
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise TypeError(msg.arg_type("mul", "input", 1, "Tensor", input))
        input, other = other, input  # noqa: A001
    return _out_variant("mul", lambda: mul(input, other), out, (input, other))


def matmul_out(input, other, *, out=None):  # noqa: A002
    for i, (name, t) in enumerate((("input", input), ("other", other))):
        if not isinstance(t, Tensor):
            raise TypeError(msg.arg_type("matmul", name, i + 1, "Tensor", t))
    return _out_variant("matmul", lambda: matmul(input, other), out, (input, other))


def _requires(t):
    return isinstance(t, Tensor) and t.requires_grad


try:  # NumPy 2 keeps its floating-point error state in a context variable
    from numpy._core import _ufunc_config, umath

    _FP_STATE, _FP_IGNORE = _ufunc_config._extobj_contextvar, umath._make_extobj(all="ignore")
except (ImportError, AttributeError):  # older NumPy: np.errstate below
    _FP_STATE = None


def _quiet(fn):
    """fn with NumPy's floating-point errors ignored. Setting NumPy 2's context variable
    directly costs a tenth of a microsecond per op, np.errstate half a microsecond."""
    if _FP_STATE is None:

        @functools.wraps(fn)
        def quietly(*args, **kwargs):
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)

        return quietly

    @functools.wraps(fn)
    def quietly(*args, **kwargs):
        token = _FP_STATE.set(_FP_IGNORE)
        try:
            return fn(*args, **kwargs)
        finally:
            _FP_STATE.reset(token)

    return quietly


def quiet_operator(fn):
    """fn(self, other) with NumPy's floating-point warnings off, for Tensor's arithmetic
    operators: they are the hot path, and a wrapper of fixed arity costs half as much."""
    raw = getattr(fn, "__wrapped__", fn)
    if _FP_STATE is None:

        def quietly(self, other):
            with np.errstate(all="ignore"):
                return raw(self, other)

    else:

        def quietly(self, other):
            token = _FP_STATE.set(_FP_IGNORE)
            try:
                return raw(self, other)
            finally:
                _FP_STATE.reset(token)

    return functools.wraps(raw)(quietly)


def quiet_functions(namespace):
    """Run every public function of a module with NumPy's floating-point warnings off.

    NumPy warns (RuntimeWarning) on overflow, invalid casts, 0 ** -1 or 0 / 0, where PyTorch
    silently gives inf or nan. CuPy never warns, so this is harmless on the GPU."""
    module = namespace["__name__"]
    for name, fn in list(namespace.items()):
        if isinstance(fn, types.FunctionType) and fn.__module__ == module and name[0] != "_":
            namespace[name] = _quiet(fn)


quiet_functions(globals())

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from .seams import devices as _devices  # noqa: E402
from .seams import inplace_versions as _versions  # noqa: E402
from .seams import rebuilding_tensors as _rebuild  # noqa: E402
