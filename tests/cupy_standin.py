"""A strict CuPy stand-in for tests: NumPy underneath, CuPy 14's manners on top.

minigrad's "cuda" otherwise runs on plain NumPy (`standin_cuda()`), which accepts all NumPy
accepts. This module refuses what CuPy 14.2 refuses, so a CUDA-path bug shows on a CPU
(`standin_cuda(cupy_standin)`):
- its `ndarray` is its own type, not a NumPy subclass: `np.asarray(x)` raises CuPy's TypeError;
  NumPy functions and ufuncs given one dispatch here as they dispatch to CuPy, and fail with
  TypeError where CuPy has no such function;
- a NumPy array in an operation or a function is refused (TypeError); NumPy and Python scalars
  are fine; `asarray`/`array` copy a NumPy array in, `asnumpy`/`.get()` copy one out;
- reductions, indexing and arithmetic give 0-d arrays, never NumPy scalars; `float()`,
  `.item()`, `.tolist()`, `bool()`, `len()` and iteration behave as CuPy's;
- only names CuPy 14.2 has exist (NumPy's own objects where CuPy re-exports them); `ufunc.at`,
  `reduce` and `accumulate` only where CuPy implements them.
What it cannot mimic: the numerics of real kernels (summation order, fused operations, float16
arithmetic), dtype rules where CuPy differs from NumPy, memory (no device, streams or
allocation failures; views are NumPy's), and CuPy's acceptance of NumPy arrays function by
function: it refuses them everywhere but conversions, dtype queries, indices and values written
through an index, where CuPy copies them in. CuPy's submodules (linalg, random, fft...) are not
modelled: using one raises NotImplementedError.
"""

import functools
import sys
import types
import warnings

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

# dir(cupy) & dir(numpy), CuPy 14.2.0 over NumPy 2.4: the names CuPy takes from NumPy as they
# are (`getattr(cupy, n) is getattr(numpy, n)`), then the names it implements itself
_NUMPYS_OWN = frozenset(
    """
    bool bool_ broadcast_shapes byte cdouble complex128 complex64 complexfloating csingle double
    dtype e euler_gamma finfo float16 float32 float64 floating generic get_printoptions half
    iinfo index_exp inexact inf int16 int32 int64 int8 int_ intc integer intp isdtype issubdtype
    iterable long longlong mintypecode nan ndindex newaxis number pi printoptions promote_types
    s_ set_printoptions short signedinteger single typename ubyte uint uint16 uint32 uint64
    uint8 uintc uintp ulong ulonglong unsignedinteger ushort
""".split()
)
_CUPYS_OWN = frozenset(
    """
    abs absolute acos acosh add all allclose amax amin angle any append apply_along_axis
    apply_over_axes arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin
    argpartition argsort argwhere around array array2string array_equal array_equiv array_repr
    array_split array_str asanyarray asarray asarray_chkfinite ascontiguousarray asfortranarray
    asin asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett
    base_repr binary_repr bincount bitwise_and bitwise_count bitwise_invert bitwise_left_shift
    bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman broadcast broadcast_arrays
    broadcast_to c_ can_cast cbrt ceil choose clip column_stack common_type compress concat
    concatenate conj conjugate convolve copy copysign copyto corrcoef correlate cos cosh
    count_nonzero cov cross cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete
    diag diag_indices diag_indices_from diagflat diagonal diff digitize divide divmod dot dsplit
    dstack ediff1d einsum empty empty_like equal exceptions exp exp2 expand_dims expm1 extract
    eye fabs fft fill_diagonal fix flatiter flatnonzero flip fliplr flipud float_power floor
    floor_divide fmax fmin fmod format_float_positional format_float_scientific frexp
    from_dlpack frombuffer fromfile fromfunction fromiter fromstring full full_like gcd
    genfromtxt gradient greater greater_equal hamming hanning heaviside histogram histogram2d
    histogramdd hsplit hstack hypot i0 identity imag indices inner interp intersect1d invert
    isclose iscomplex iscomplexobj isfinite isfortran isin isinf isnan isneginf isposinf isreal
    isrealobj isscalar ix_ kaiser kron lcm ldexp left_shift less less_equal lexsort lib linalg
    linspace load loadtxt log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not
    logical_or logical_xor logspace mask_indices matmul matrix_transpose max maximum
    may_share_memory mean median meshgrid mgrid min min_scalar_type minimum mod modf moveaxis
    multiply nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin
    nanprod nanstd nansum nanvar ndarray ndim negative nextafter nonzero not_equal ogrid ones
    ones_like outer packbits pad partition percentile permute_dims piecewise place poly poly1d
    polyadd polyfit polymul polynomial polysub polyval positive pow power prod ptp put
    put_along_axis putmask quantile r_ rad2deg radians random ravel ravel_multi_index real
    real_if_close reciprocal remainder repeat require reshape resize result_type right_shift
    rint roll rollaxis roots rot90 round row_stack save savetxt savez savez_compressed
    searchsorted select setdiff1d setxor1d shape shares_memory show_config sign signbit sin sinc
    sinh size sort sort_complex split sqrt square squeeze stack std subtract sum swapaxes take
    take_along_axis tan tanh tensordot testing tile trace transpose trapezoid tri tril
    tril_indices tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide
    trunc typing ufunc union1d unique unique_all unique_counts unique_inverse unique_values
    unpackbits unravel_index unwrap vander var vdot vectorize vsplit vstack where zeros
    zeros_like
""".split()
)
# dir(cupy.ndarray) & dir(numpy.ndarray), public names (but `data`: a device pointer in CuPy)
_NDARRAY_NAMES = frozenset(
    """
    T all any argmax argmin argpartition argsort astype base byteswap choose clip compress conj
    conjugate copy cumprod cumsum device diagonal dot dtype dump dumps fill flat flatten
    imag item itemsize mT max mean min nbytes ndim nonzero partition prod put ravel real repeat
    reshape round searchsorted shape size sort squeeze std strides sum swapaxes take tobytes
    tofile tolist trace transpose var view
""".split()
)
_IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)
_SCALAR_TYPES = (bool, int, float, complex, np.generic)  # what CuPy's kernels take as scalars
_UFUNC_METHODS = {"__call__", "outer", "at", "reduce", "accumulate"}  # those CuPy dispatches
_COMPARISONS = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal"}
# NumPy arrays pass here as CuPy lets them: conversions and dtype queries
_TAKES_NUMPY = {"array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray"}
_TAKES_NUMPY |= {"result_type", "can_cast", "shape", "ndim", "isscalar", "min_scalar_type"}
# ufunc.at: the scatter kernels CuPy has, with its words for the dtypes each takes
_AT_DTYPES = {
    "add": "int32, int64, float16, float32, float64, uint32, uint64",
    "subtract": "int32, uint32,",
    "maximum": "int32, int64, float32, float64, uint32, uint64",
    "minimum": "int32, int64, float32, float64, uint32, uint64",
    "bitwise_and": "int32, int64, uint32, uint64",
    "bitwise_or": "int32, int64, uint32, uint64",
    "bitwise_xor": "int32, int64, uint32, uint64",
}


class ndarray(NDArrayOperatorsMixin):  # noqa: N801 - CuPy's name
    """A CuPy array: a NumPy array inside, reachable only the ways CuPy allows."""

    __slots__ = ("_a",)
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        self._a = np.empty(shape, dtype, order=order)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    def __getattr__(self, name):
        if name not in _NDARRAY_NAMES:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        value = getattr(self._a, name)
        return _function(value, name) if callable(value) else _wrap(value)

    @property
    def device(self):
        return cuda.Device()

    @property
    def flags(self):  # CuPy's Flags: no `writeable` (device arrays are all writable)
        f = self._a.flags
        return types.SimpleNamespace(
            c_contiguous=f.c_contiguous, f_contiguous=f.f_contiguous, owndata=f.owndata
        )

    @property
    def data(self):  # CuPy's MemoryPointer, as far as its device address goes
        return types.SimpleNamespace(ptr=self._a.__array_interface__["data"][0])

    def get(self, stream=None, order="C", out=None, blocking=True):
        return np.array(self._a, order=order)  # a copy: device memory never becomes host's

    def item(self):
        if self._a.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def fill(self, value):
        self._a.fill(_scalar(value._a if isinstance(value, ndarray) else value, self._a.dtype))

    def __getitem__(self, index):
        return _wrap(self._a[_index(index)])

    def __setitem__(self, index, value):
        if isinstance(value, ndarray):
            value = value._a
        elif not _advanced(index):  # CuPy fills: CPU arrays are refused (cupy gh-2079)
            value = _scalar(value, self._a.dtype)
        self._a[_index(index)] = value  # an advanced assignment copies CPU values in

    def __len__(self):
        if self._a.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def __bool__(self):
        if self._a.size == 0:
            warnings.warn(
                "The truth value of an empty array is ambiguous. Returning False, but in future "
                "this will result in an error. Use `array.size > 0` to check that an array is "
                "not empty.",
                DeprecationWarning,
                stacklevel=2,
            )
            return False
        if self._a.size > 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. "
                "Use a.any() or a.all()"
            )
        return bool(self._a.reshape(()).item())

    def __int__(self):
        return int(self.get())

    def __float__(self):
        return float(self.get())

    def __complex__(self):
        return complex(self.get())

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __copy__(self):
        return _wrap(self._a.copy())

    def __deepcopy__(self, memo):
        return _wrap(self._a.copy())

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # CuPy's: its own ufunc of that name, operands it knows, 0-d NumPy arrays compared as
        # numbers; NumPy arrays reach the ufunc, which refuses them
        name = ufunc.__name__
        if name not in _CUPYS_OWN or method not in _UFUNC_METHODS:
            return NotImplemented
        if "out" in kwargs:
            (kwargs["out"],) = kwargs["out"]
        for x in (*inputs, kwargs.get("out")):
            if not isinstance(x, (*_SCALAR_TYPES, ndarray, np.ndarray, type(None))):
                return NotImplemented
        if name in _COMPARISONS:
            inputs = [x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in inputs]
        func = getattr(_module, name)
        return (func if method == "__call__" else getattr(func, method))(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func.__module__ != "numpy" or func.__name__ not in _CUPYS_OWN:
            return NotImplemented  # CuPy lacks it, or has NumPy's own (which refuses)
        if not all(issubclass(t, (ndarray, np.ndarray)) for t in types):
            return NotImplemented
        return getattr(_module, func.__name__)(*args, **kwargs)


ndarray.__module__ = "cupy"


def _wrap(x):
    if isinstance(x, np.ndarray | np.generic):
        out = object.__new__(ndarray)
        out._a = np.asarray(x)
        return out
    if isinstance(x, tuple | list):
        return type(x)(_wrap(v) for v in x)
    return x


def _unwrap(x, numpy_ok=False):
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, np.ndarray) and not numpy_ok:
        raise TypeError(f"Unsupported type {type(x)}")
    if isinstance(x, tuple | list):
        return type(x)(_unwrap(v, numpy_ok) for v in x)
    return x


def _index(index):
    return _unwrap(index, numpy_ok=True)  # CuPy copies NumPy indices in


def _scalar(value, dtype):
    value = np.asarray(value, dtype=dtype)
    if value.shape != ():
        raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
    return value


def _advanced(index):
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (ndarray, np.ndarray, list, bool, np.bool_)) for p in parts)


def _function(fn, name):
    """`fn` on this module's arrays: NumPy arrays refused, results as this module's arrays."""
    numpy_ok = name in _TAKES_NUMPY

    @functools.wraps(fn)
    def call(*args, **kwargs):
        out = kwargs.get("out")
        result = fn(
            *_unwrap(args, numpy_ok), **{k: _unwrap(v, numpy_ok) for k, v in kwargs.items()}
        )
        if isinstance(out, ndarray) and result is out._a:
            return out
        return _wrap(result)

    return call


class ufunc:  # noqa: N801 - CuPy's name
    """A CuPy ufunc: operands are this module's arrays or scalars, as in CuPy's kernels."""

    def __init__(self, np_ufunc):
        self._f = np_ufunc
        self.__name__ = self.name = np_ufunc.__name__
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs
        self.types = np_ufunc.types

    def __call__(self, *args, **kwargs):
        for x in (*args, kwargs.get("out")):
            if x is not None and not isinstance(x, (*_SCALAR_TYPES, ndarray)):
                raise TypeError(f"Unsupported type {type(x)}")
        return _function(self._f, self.name)(*args, **kwargs)

    def outer(self, a, b, **kwargs):
        return _function(self._f.outer, self.name)(a, b, **kwargs)

    def at(self, a, indices, b=None):
        if self.name not in _AT_DTYPES:
            raise NotImplementedError(f"`cupy_{self.name}.at` is not supported yet")
        allowed = _AT_DTYPES[self.name]
        if _advanced(indices) and a.dtype.name not in allowed.replace(",", " ").split():
            raise TypeError(f"cupy.{self.name}.at only supports {allowed} as data type")
        b = b._a if isinstance(b, ndarray) else b  # values are copied in, as for indices
        self._f.at(a._a, _index(indices), b)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        if self.name not in ("add", "multiply"):
            raise NotImplementedError(f"`cupy_{self.name}.reduce` is not supported yet")
        method = array.sum if self.name == "add" else array.prod
        return method(axis, dtype, out, keepdims)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if self.name not in ("add", "multiply"):
            raise NotImplementedError(f"`cupy_{self.name}.accumulate` is not supported yet")
        method = array.cumsum if self.name == "add" else array.cumprod
        return method(axis, dtype, out)


@functools.cache
def _ufunc(name):
    return ufunc(getattr(np, name))


def __getattr__(name):
    if name in _NUMPYS_OWN:
        return getattr(np, name)
    if name not in _CUPYS_OWN:
        raise AttributeError(f"module 'cupy' has no attribute '{name}'")
    value = getattr(np, name)
    if isinstance(value, np.ufunc) and name != "matmul":
        return _ufunc(name)
    if isinstance(value, type) or not callable(value):  # classes, submodules, index tricks
        raise NotImplementedError(f"the CuPy stand-in does not model cupy.{name}")
    return _function(value, name)


def asarray(a, dtype=None, order=None, *, blocking=False):
    if isinstance(a, ndarray):
        return a if dtype is None or a._a.dtype == dtype else a.astype(dtype)
    # a host-to-device copy; sequences may hold this module's arrays, as CuPy's
    return _wrap(np.array(_unwrap(a, numpy_ok=True), dtype=dtype, order=order or "K"))


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    if isinstance(obj, ndarray) and not copy:
        return asarray(obj, dtype)
    data = _unwrap(obj, numpy_ok=True)
    return _wrap(np.array(data, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def broadcast_to(array, shape):
    """A writable view, as all CuPy's views are (NumPy's broadcast is read-only)."""
    a = _unwrap(array)
    view = np.broadcast_to(a, shape)
    return _wrap(np.lib.stride_tricks.as_strided(a, view.shape, view.strides, writeable=True))


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    return a.get(order=order) if isinstance(a, ndarray) else np.asarray(a, order=order)


def get_array_module(*args):
    return _module if any(isinstance(a, ndarray) for a in args) else np


class _Device:
    id = 0

    def synchronize(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


cuda = types.SimpleNamespace(
    Device=lambda device=None: _Device(),
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
)
_module = sys.modules[__name__]
