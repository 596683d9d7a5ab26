"""`minigrad.Size`: a tuple that prints like `torch.Size`."""

import math

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


def normalize_size(args):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(Size) as PyTorch does."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)


def wrap_dim(dim, ndim):
    """`dim` counted from the front, refusing one out of range as PyTorch does (a 0-d tensor
    takes 0 and -1, as if it had one dimension; it then gets 0)."""
    from ._messages import dim_out_of_range

    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(dim_out_of_range(dim, ndim))
    return dim % n
