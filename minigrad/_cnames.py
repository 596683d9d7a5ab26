"""Class names as Python's own messages print them.

PyTorch defines `torch.Size`, `torch.dtype` and `torch.device` in C, where a class's C-level
name (tp_name) is qualified: Python's messages read it ("'torch.Size' object is not
callable", "object of type 'torch.dtype' has no len()") while `__name__` is the bare 'Size'.
A class defined in Python has its `__name__` as tp_name; `CName` sets that to the qualified
name and answers `__name__` with the bare one, so both read as PyTorch's.
"""

from ._messages import LIB

_TYPE_NAME = type.__dict__["__name__"]  # the slot behind __name__ (tp_name for our classes)


class CName(type):
    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        cls.__module__ = LIB
        _TYPE_NAME.__set__(cls, f"{LIB}.{name}")

    @property
    def __name__(cls):
        return cls.__qualname__


def c_name(cls):
    """The name Python's and PyTorch's C code print for a class (`numpy.ndarray`, `int`)."""
    name = _TYPE_NAME.__get__(cls)
    return f"numpy.{name}" if cls.__module__ == "numpy" else name
