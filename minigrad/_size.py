"""`minigrad.Size`: a tuple that prints like `torch.Size`."""

import math

from ._messages import LIB


class Size(tuple):
    def __repr__(self):
        return f"{LIB}.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)


def normalize_size(args):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(Size) as PyTorch does."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)
