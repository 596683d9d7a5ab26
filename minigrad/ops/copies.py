"""Copies, dtypes and devices: clone, contiguous and `.to()` with its shorthands (cuda, cpu,
float, double, ...); the copy across dtypes and devices is the devices assignment's seam."""

import builtins

import numpy as np

from .. import _dtypes, _signatures
from .. import _messages as msg
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import _needs_grad, quiet_functions


class CloneBackward0(Node):
    def apply(self, g):
        return (g,)


def clone(self, *, memory_format=None):
    out = Tensor._make(self._data.copy(), self._device, self._dtype)
    if _needs_grad(self):
        out._grad_fn = CloneBackward0((self._edge(),))
    return out


def contiguous(self, memory_format=None):
    if self._data.flags.c_contiguous:
        return self
    return clone(self)


def _parse_to(args, kwargs):
    from .._device import canonical, device

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
            from .._device import cuda_is_available

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


def cpu(self):
    return to(self, "cpu")


def _cast(dtype):
    def cast(self, memory_format=None):
        return to(self, dtype)

    return cast


def type_as(self, other):
    return to(self, other._dtype)


class AliasBackward0(CloneBackward0):
    pass


class ToCopyBackward0(Node):
    """A copy across dtype and/or device: the gradient returns in the source's."""

    def __init__(self, edges, src_dtype, src_device):
        super().__init__(edges)
        self.src_dtype, self.src_device = src_dtype, src_device

    def apply(self, g):
        return (_devices.to_copy_backward(g, self.src_dtype, self.src_device),)


quiet_functions(globals())

METHODS = {
    "clone": clone,
    "contiguous": contiguous,
    "to": to,
    "cuda": cuda,
    "cpu": cpu,
    "float": _cast(_dtypes.float32),
    "double": _cast(_dtypes.float64),
    "half": _cast(_dtypes.float16),
    "long": _cast(_dtypes.int64),
    "int": _cast(_dtypes.int32),
    "bool": _cast(_dtypes.bool),
    "type_as": type_as,
}

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import devices as _devices  # noqa: E402
