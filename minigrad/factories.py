"""Creating tensors: `tensor`, `from_numpy`, `as_tensor`, `zeros`, ... and the legacy types.

Every factory makes a leaf. `tensor()` always copies (and copies values out of any graph);
`from_numpy()` and `as_tensor()` of a matching ndarray share memory.
"""

import builtins

import numpy as np

from . import _dtypes, _ranges, _signatures
from . import _messages as msg
from . import random as random_values
from ._device import canonical, to_device_array
from ._size import is_index, normalize_size
from ._warnings import warn
from .ops._common import _checked_scalar, _needs_grad, quiet_functions
from .random import sample
from .tensor import Tensor


def _bool_flag(name, requires_grad):
    """PyTorch's argument parser takes only a bool for requires_grad (not 1); tensor() alone
    refuses None, which the other factories read as False."""
    if requires_grad is None and name != "tensor":
        return
    if not isinstance(requires_grad, builtins.bool):
        raise TypeError(msg.FACTORY_FLAG_NOT_BOOL.format(name, msg.type_name(requires_grad)))


def _finish(data, device, dtype, requires_grad):
    dev = canonical(device)
    data = to_device_array(data, dev)
    out = Tensor._make(data, dev, dtype or _dtypes._BY_NP[data.dtype])
    if requires_grad:
        if not out._dtype.is_floating_point:
            raise RuntimeError(msg.FACTORY_INT_REQUIRES_GRAD)
        out._requires_grad = True
    return out


def _infer_dtype(values):
    """PyTorch's dtype for nested data: every element has a dtype (a Python float float32,
    an int int64, a bool bool; NumPy scalars and arrays and tensors their own), and the
    result promotes them all (torch.promote_types: [np.float64(1.5)] is float64)."""
    out = None
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
            continue
        if isinstance(v, Tensor):
            d = v._dtype
        elif isinstance(v, (np.ndarray, np.generic)):
            d = _dtypes.from_numpy_dtype(v.dtype)
        elif isinstance(v, builtins.bool):
            d = _dtypes.bool
        elif isinstance(v, builtins.int):
            d = _dtypes.int64
        elif isinstance(v, builtins.float):
            d = _dtypes.float32
        elif isinstance(v, str):
            raise TypeError("new(): invalid data type 'str'")
        else:  # NumPy would turn None into nan
            raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
        out = d if out is None else _dtypes.promote(out, d)
    return out or _dtypes.float32


def _scalars_dtype(*values):
    """`full` and `arange` read their numbers as Python scalars: the default dtype of the
    highest category (a NumPy float64 gives float32, a NumPy bool_ a float, as in PyTorch)."""
    return _dtypes.result_type(*(v.item() if isinstance(v, Tensor) else v for v in values))


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    dtype = _dtypes.argument("tensor", dtype)
    if isinstance(data, Tensor) or _holds_tensor(data):  # rebuilding: assignment 4's part
        return _rebuild.tensor_from_data(data, dtype, device, requires_grad)
    return _values_tensor(data, dtype, device, requires_grad)


def _holds_tensor(data) -> bool:
    """Whether nested lists and tuples hold a tensor somewhere."""
    if isinstance(data, (list, tuple)):
        return any(isinstance(v, Tensor) or _holds_tensor(v) for v in data)
    return False


def _values_tensor(data, dtype, device, requires_grad):
    """tensor() of values: NumPy or CuPy arrays and scalars, Python numbers, nested lists of
    them (no tensor inside). A new leaf holding a copy, dtype inferred unless given; a Python
    int that overflows the dtype is refused as PyTorch refuses it."""
    if isinstance(data, (np.ndarray, np.generic)):  # a NumPy scalar keeps its dtype too
        target = dtype or _dtypes.from_numpy_dtype(data.dtype)
        return _finish(np.array(data, dtype=target.np, copy=True), device, target, requires_grad)
    if hasattr(data, "__cuda_array_interface__"):
        return _finish(data.copy(), device or "cuda", dtype, requires_grad)
    target = dtype or _infer_dtype(data)
    _check_ragged(data)
    try:
        arr = np.array(data, dtype=target.np)
    except OverflowError:  # PyTorch reads every Python int as a C long long first
        if _any_value(data, lambda v: v.__class__ is builtins.int and not -(2**63) <= v < 2**63):
            raise ValueError(msg.OVERFLOW_LONG_LONG) from None
        raise RuntimeError(msg.VALUE_OVERFLOW.format(target.name)) from None
    except ValueError:  # NumPy's text for a NaN given an integer dtype
        if _any_value(data, lambda v: isinstance(v, builtins.float) and v != v):
            raise RuntimeError(msg.VALUE_OVERFLOW.format(target.name)) from None
        raise
    return _finish(arr, device, target, requires_grad)


def _any_value(values, test):
    """Whether test(v) holds for a number in nested lists and tuples."""
    if isinstance(values, (list, tuple)):
        return builtins.any(_any_value(v, test) for v in values)
    return test(values)


def _check_ragged(data):
    """PyTorch takes each dim's length from the first sequence at that depth."""
    sizes, first = [], data
    while isinstance(first, (list, tuple)):
        sizes.append(len(first))
        first = first[0] if first else None

    def walk(seq, dim):
        if len(seq) != sizes[dim]:
            raise ValueError(
                f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})"
            )
        for item in seq:
            if dim + 1 < len(sizes):
                if not isinstance(item, (list, tuple)):
                    raise TypeError("not a sequence")
                walk(item, dim + 1)

    if sizes:
        walk(data, 0)


def from_numpy(array):
    return _detach_numpy.from_numpy(array)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data.to(*(x for x in (device, dtype) if x is not None))
    if isinstance(data, np.ndarray) and (dtype is None or dtype.np == data.dtype):
        if device is None or canonical(device).type == "cpu":
            return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def factory_size(name, size):
    """The shape given to a factory, whose arguments PyTorch's parser (the table in
    _signatures, checked by the factory's or the method's wrapper) took: no negative sizes."""
    if not size or not builtins.all(is_index(s) for s in _flat_size(size)):
        raise TypeError(f"{name}(): size must be a tuple of ints")  # the wrapper words it
    shape = normalize_size(size)
    negative = [s for s in shape if s < 0]
    if negative:
        if name == "zeros":
            raise RuntimeError(msg.ZEROS_NEGATIVE)
        raise RuntimeError(msg.NEGATIVE_DIMENSION.format(negative[0], list(shape)))
    return shape


def _flat_size(size):
    return size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def _filled(fill, size, dtype, device, requires_grad, name=None):
    shape = factory_size(name, size) if name else normalize_size(size)
    dtype = dtype or _dtypes.float32
    return _finish(np.full(shape, fill, dtype=dtype.np), device, dtype, requires_grad)


def _size_keyword(name, size, kwargs):
    """PyTorch's factories also take the shape as `size=`."""
    if "size" in kwargs:
        size = (kwargs.pop("size"),)
    for key in kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return size


def zeros(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    dtype = _dtypes.argument("zeros", dtype)
    size = _size_keyword("zeros", size, kwargs)
    return _filled(0, size, dtype, device, requires_grad, "zeros")


def ones(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    dtype = _dtypes.argument("ones", dtype)
    size = _size_keyword("ones", size, kwargs)
    return _filled(1, size, dtype, device, requires_grad, "ones")


def empty(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    dtype = _dtypes.argument("empty", dtype)
    size = _size_keyword("empty", size, kwargs)
    # Uninitialised in PyTorch; zeros here, so nothing depends on garbage.
    return _filled(0, size, dtype, device, requires_grad, "empty")


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    dtype = _dtypes.argument("full", dtype)
    # fill_value is a Number: a 0-d tensor that does not require grad passes as its number
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _scalars_dtype(fill_value)
    fill_value = _checked_scalar(fill_value, dtype)
    return _filled(fill_value, (size,), dtype, device, requires_grad, "full")


def _like(fill, name):
    def like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
        dtype = _dtypes.argument(name, dtype)
        return _filled(
            fill, (input.shape,), dtype or input.dtype, device or input.device, requires_grad
        )

    like.__name__ = name
    return like


zeros_like = _like(0, "zeros_like")
ones_like = _like(1, "ones_like")


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    dtype = _dtypes.argument("eye", dtype)
    for arg, value in (("n", n), ("m", m)):
        if value is None:
            continue
        if value < 0:
            raise RuntimeError(msg.EYE_NEGATIVE.format(arg, value))
    dtype = dtype or _dtypes.float32
    return _finish(np.eye(n, m, dtype=dtype.np), device, dtype, requires_grad)


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    dtype = _dtypes.argument("arange", dtype)
    if end is None:  # arange(end)
        start, end = 0, start
    if dtype is None:
        dtype = _scalars_dtype(start, end, step)
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    data = _ranges.arange_values(start, end, step, dtype.np)
    return _finish(data, device, dtype, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    dtype = _dtypes.argument("linspace", dtype)
    if steps < 0:
        raise RuntimeError(msg.LINSPACE_NEGATIVE_STEPS)
    dtype = dtype or _dtypes.float32
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    data = _ranges.linspace_values(start, end, steps, dtype.np)
    return _finish(data, device, dtype, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    dtype = _dtypes.argument("rand", dtype)
    size = _size_keyword("rand", size, kwargs)
    dtype = dtype or _dtypes.float32
    check_uniform(dtype, canonical(device))
    data = sample("uniform", factory_size("rand", size), dtype.np, canonical(device), 0.0, 1.0)
    return _finish(data, device, dtype, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    dtype = _dtypes.argument("randn", dtype)
    size = _size_keyword("randn", size, kwargs)
    dtype = dtype or _dtypes.float32
    check_normal(dtype, canonical(device))
    data = sample("normal", factory_size("randn", size), dtype.np, canonical(device), 0.0, 1.0)
    return _finish(data, device, dtype, requires_grad)


def _random_like(name, factory):
    def like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
        return factory(
            input.shape,
            dtype=dtype or input.dtype,
            device=device or input.device,
            requires_grad=requires_grad,
        )

    like.__name__ = name
    return like


rand_like = _random_like("rand_like", rand)
randn_like = _random_like("randn_like", randn)


def randint(low=0, high=None, size=None, *, dtype=None, device=None, requires_grad=False):
    """randint(high, size) or randint(low, high, size): int64 unless `dtype` says otherwise,
    PyTorch's `draw % range + low` on the CPU stream."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=size)
        low, high = 0, low
    low, high = builtins.int(low), builtins.int(high)
    if low >= high:
        raise RuntimeError(msg.RANDINT_FROM_TO.format(low, high))
    dtype = dtype or _dtypes.int64
    shape = factory_size("randint", (size,))
    dev = canonical(device)
    n = builtins.int(np.prod(shape, dtype=np.int64))
    if dev.type == "cpu":
        data = random_values.randint(n, low, high).reshape(shape)
    else:
        data = random_values.generator().integers(low, high, size=shape)
    return _finish(data.astype(dtype.np), device, dtype, requires_grad)


def randperm(n, *, dtype=None, device=None, requires_grad=False):
    """PyTorch's Fisher-Yates on the CPU stream: swap i with i + draw % (n - i)."""
    n = builtins.int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    dtype = dtype or _dtypes.int64
    dev = canonical(device)
    if dev.type == "cpu":
        data = random_values.randperm(n)
    else:
        data = random_values.generator().permutation(n)
    return _finish(data.astype(dtype.np), device, dtype, requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    if isinstance(data, Tensor):
        warn(msg.COPY_CONSTRUCT.format("tensor.new_tensor"))
        data = data.detach()._data
    return tensor(
        data,
        dtype=dtype or self.dtype,
        device=device or self.device,
        requires_grad=requires_grad,
    )


def _new_filled(fill, name):
    def new(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        size = _size_keyword(name, size, kwargs)
        _bool_flag(name, requires_grad)
        shape = factory_size(name, size)
        return _filled(fill, (shape,), dtype or self.dtype, device or self.device, requires_grad)

    return new


Tensor.new_tensor = new_tensor
Tensor.new_ones = _new_filled(1, "new_ones")
Tensor.new_zeros = _new_filled(0, "new_zeros")


def legacy_construct(cls, dtype, args, kwargs, typed=False):
    """`Tensor(...)`/`FloatTensor(...)`: from data, from a size, or an alias of a tensor
    (`typed`: a typed constructor such as FloatTensor aliases only a tensor of its dtype)."""
    if kwargs.keys() - {"device"}:
        raise _signatures.error("new", args, kwargs)
    device = kwargs.get("device")
    if len(args) == 1 and isinstance(args[0], Tensor):
        if typed and args[0].dtype is not dtype:
            raise TypeError(msg.legacy_options_mismatch(dtype, args[0].dtype, args[0].device))
        return _alias(args[0])
    if len(args) == 1 and isinstance(args[0], (builtins.float, builtins.bool)):
        raise TypeError(msg.LEGACY_NOT_SEQUENCE.format(msg.type_name(args[0])))
    if args and builtins.all(isinstance(a, (builtins.int, np.integer)) for a in args):
        return _finish(np.zeros(tuple(args), dtype=dtype.np), device, dtype, False)
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        values = _rebuild.to_python(args[0]) if _holds_tensor(args[0]) else args[0]
        return _finish(np.array(values, dtype=dtype.np), device, dtype, False)
    if len(args) == 1 and isinstance(args[0], np.ndarray):
        return _finish(args[0].astype(dtype.np, copy=True), device, dtype, False)
    if not args:
        return _finish(np.zeros((0,), dtype=dtype.np), device, dtype, False)
    refused = _signatures.error("new", args, kwargs)
    if refused is None and isinstance(args[0], str):  # `object data` took it, then its type
        refused = TypeError(f"new(): invalid data type '{msg.type_name(args[0])}'")
    raise refused or TypeError(msg.LEGACY_NOT_SEQUENCE.format(msg.type_name(args[0])))


def _alias(src):

    out = Tensor._make(src._data, src._device, src._dtype)
    _versions.share_version(out, src)
    if _needs_grad(src):
        out._grad_fn = AliasBackward0((src._edge(),))
    return out


class _LegacyTensorType(type):
    """`FloatTensor` and friends: callable like constructors, usable in isinstance()."""

    def __call__(cls, *args, **kwargs):
        return legacy_construct(Tensor, cls.dtype, args, kwargs, typed=True)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class '{msg.LIB}.{cls.__name__}'>"


def _legacy_type(name, dtype):
    return _LegacyTensorType(name, (), {"dtype": dtype})


FloatTensor = _legacy_type("FloatTensor", _dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtypes.float64)
LongTensor = _legacy_type("LongTensor", _dtypes.int64)
IntTensor = _legacy_type("IntTensor", _dtypes.int32)
BoolTensor = _legacy_type("BoolTensor", _dtypes.bool)
HalfTensor = _legacy_type("HalfTensor", _dtypes.float16)


# NumPy warns on overflowing casts (tensor([1e40]) is inf), where PyTorch is silent
quiet_functions(globals())

# The graded functions students build live in seams/ and call back into the factories and
# Tensor: imported last.
from .ops.copies import AliasBackward0  # noqa: E402
from .ops.inplace import check_normal, check_uniform  # noqa: E402
from .seams import detach_numpy as _detach_numpy  # noqa: E402
from .seams import inplace_versions as _versions  # noqa: E402
from .seams import rebuilding_tensors as _rebuild  # noqa: E402
