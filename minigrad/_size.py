"""`minigrad.Size`: a tuple that prints like `torch.Size`."""

import math
import operator

import numpy as np

from ._cnames import CName, c_name
from ._messages import LIB


class Size(tuple, metaclass=CName):
    def __repr__(self):
        return f"{LIB}.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)

    # Slicing, joining and repeating a Size give a Size, as in PyTorch.
    def __getitem__(self, index):
        out = tuple.__getitem__(self, index)
        return Size(out) if isinstance(index, slice) else out

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {c_name(type(other))}) to {LIB}.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        out = tuple.__mul__(self, n)
        return out if out is NotImplemented else Size(out)

    __rmul__ = __mul__


def is_index(obj):
    """Whether PyTorch reads `obj` as an int inside a list of ints (a size, a list of dims):
    an int, or what converts to one by __index__, such as a one-element integer tensor
    (`torch.zeros(torch.tensor([2]))`)."""
    if isinstance(obj, (bool, np.bool_)):
        return False
    if isinstance(obj, (int, np.integer)):
        return True
    from .tensor import Tensor

    # PyTorch's parser takes a one-element bool tensor too; reading it as a size then fails
    return isinstance(obj, Tensor) and obj.numel() == 1 and not obj.dtype.is_floating_point


# What PyTorch's internal check says when a one-element bool tensor is read as a size.
_BOOL_AS_SIZE = (
    "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message "
    "be improved?  If so, please report an enhancement request to PyTorch.)"
)


def normalize_size(args):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(Size) as PyTorch does."""
    return tuple(_size_int(a) for a in _one_list(args))


def normalize_dims(args):
    """A list of dims given as normalize_size takes sizes; a bool tensor reads as 0 or 1."""
    return tuple(int(a) for a in _one_list(args))


def _one_list(args):
    return args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _size_int(a):
    if getattr(a, "dtype", None) is not None and getattr(a.dtype, "name", None) == "bool":
        raise RuntimeError(_BOOL_AS_SIZE)
    return int(a)


def wrap_dim(dim, ndim):
    """`dim` counted from the front, refusing one out of range as PyTorch does (a 0-d tensor
    takes 0 and -1, as if it had one dimension; it then gets 0)."""
    from ._messages import dim_out_of_range

    if not isinstance(dim, int) and hasattr(dim, "__index__"):  # a one-element int tensor
        dim = operator.index(dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(dim_out_of_range(dim, ndim))
    return dim % n
