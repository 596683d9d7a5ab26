"""What every family of operations shares: reading operands (dtype promotion, devices,
broadcasting, Python numbers as PyTorch reads them), building a result and its node, the
float16 "opmath" rule, reducing a broadcast gradient, and running ops with NumPy's
floating-point warnings off."""

import builtins
import functools
import math
import types

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from .._device import CUDA0, to_device_array, xp
from ..autograd import grad_mode
from ..autograd.graph import Saved
from ..tensor import Tensor

_NO_EDGE = (None, 0)
_SCALARS = (builtins.int, builtins.float, builtins.bool, np.number, np.bool_)


def _meta(x, device=None):
    """(shape, dtype) to reduce an operand's gradient to; and its device where that is not the
    op's `device` (a 0-d CPU tensor joining a CUDA op), where its gradient goes back."""
    if device is None or x._device is device or x._device == device:
        return (x._data.shape, x._data.dtype)
    return (x._data.shape, x._data.dtype, x._device)


def _saved_on(node, device):
    """The arrays `node` saved, held on the op's `device`: a 0-d CPU tensor that joined a CUDA
    op is computed with there in backward too (CuPy takes no NumPy array)."""
    if device.type == "cpu":
        return
    for s in node._saved.values():
        if isinstance(s, Saved) and s.data.__class__ is np.ndarray:
            s.data = to_device_array(s.data, device)


def _edge(x):
    return x._edge() if isinstance(x, Tensor) else _NO_EDGE


def _needs_grad(*xs):
    if not grad_mode._enabled:
        return False
    for x in xs:
        if isinstance(x, Tensor) and x.requires_grad:
            return True
    return False


def _check_devices(a, b):
    """PyTorch lets a 0-d CPU tensor join a tensor on any device; nothing else mixes."""
    if a._device != b._device:
        if a._data.ndim == 0 and a._device.type == "cpu":
            return b._device
        if b._data.ndim == 0 and b._device.type == "cpu":
            return a._device
        raise RuntimeError(msg.devices_differ(a._device, b._device))
    return a._device


def _check_kernel_devices(method, **arguments):
    """The device check PyTorch generates for a kernel (gather, mm, nll_loss_forward...), before
    any of the kernel's own checks: every tensor argument, in the kernel's order, on the first
    one's device, with no exception for a 0-d CPU tensor (that is an elementwise kernel's)."""
    common = None
    for name, t in arguments.items():
        if not isinstance(t, Tensor):
            continue
        if common is None:
            common = t._device
        elif t._device != common:
            raise RuntimeError(msg.argument_on_another_device(name, t._device, common, method))


def _as_operand(x, dtype, device):
    """The array (or Python scalar) to compute with, in the result dtype."""
    if isinstance(x, Tensor):
        data = x._data
        if x._device != device:  # a 0-d CPU tensor joining a CUDA one
            from .._device import to_device_array

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


def _arr(data, dtype):
    """Op results in the result dtype (NumPy may widen; Tensor._make turns its scalars back
    into 0-d arrays)."""
    if not hasattr(data, "dtype"):
        return np.asarray(data, dtype=dtype.np)
    if data.dtype != dtype.np:
        return data.astype(dtype.np)
    return data


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


HALF = np.dtype(np.float16)


def opmath(a):
    """float16 arrays as float32: PyTorch computes half-precision kernels in float and rounds
    the result once (its "opmath" type)."""
    return a.astype(np.float32) if a.dtype == HALF else a


def with_number(op, a, number):
    """op(a, number) for an array and a Python or NumPy number: PyTorch applies a number to
    half-precision values in float and rounds once, where NumPy would round it to half first."""
    if a.dtype == HALF and (not hasattr(number, "shape") or isinstance(number, np.generic)):
        return op(a.astype(np.float32), np.float32(number)).astype(HALF)
    return op(a, number)


def array_module(a):
    """NumPy or CuPy, whichever holds `a` (CuPy as `_device` chose it)."""
    return np if isinstance(a, np.ndarray | np.generic) else xp(CUDA0)


# The dtypes CuPy's ufunc.at adds in: CUDA's atomic adds (cupy/_core/_routines_indexing.pyx)
_ATOMIC_ADD = frozenset(map(np.dtype, "int32 int64 uint32 uint64 float16 float32 float64".split()))


def add_at(a, index, values):
    """`np.add.at(a, index, values)` on either module. CuPy's refuses dtypes CUDA cannot add
    atomically (uint8, bool): those add in int32, cast back as NumPy's would wrap them."""
    module = array_module(a)
    if module is np or a.dtype in _ATOMIC_ADD:
        module.add.at(a, index, values)
        return
    wide = a.astype(np.int32)
    module.add.at(wide, index, values.astype(np.int32))
    a[...] = wide.astype(a.dtype)


def unbroadcast(g, shape, dtype=None, device=None):
    """Sum a broadcast gradient back down to `shape` (and cast it to the input's dtype, move
    it to the input's device)."""
    if g.shape != tuple(shape):
        extra = g.ndim - len(shape)
        axes = tuple(range(extra)) + tuple(
            i + extra for i, n in enumerate(shape) if n == 1 and g.shape[i + extra] != 1
        )
        g = g.sum(axis=axes).reshape(shape)
    if dtype is not None and g.dtype != dtype:
        g = g.astype(dtype)
    return g if device is None else to_device_array(g, device)


def masked(g, keep):
    """`g` where `keep`, else 0: PyTorch writes a true 0 (never -0.0), so add +0.0 after the
    product (-0.0 + 0.0 == +0.0). Several times faster than NumPy's where() with a scalar."""
    out = g * keep
    out += 0.0
    return out


def _errors_ignored():
    """NumPy's division warnings off. CuPy has no errstate (and never warns): NumPy's, whatever
    module computes."""
    return np.errstate(divide="ignore", invalid="ignore")
