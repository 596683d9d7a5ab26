"""Class names as Python's own messages print them.

PyTorch defines `torch.Size`, `torch.dtype` and `torch.device` in C, where a class's C-level
name (tp_name) is qualified: Python's messages read it ("'torch.Size' object is not
callable", "object of type 'torch.dtype' has no len()") while `__name__` is the bare 'Size'.
A class defined in Python has its `__name__` as tp_name; `CName` sets that to the qualified
name and answers `__name__` with the bare one, so both read as PyTorch's.
"""

import functools

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


class _BuiltinMethod(functools.partial):
    """What a method written in C, bound to an object, is to Python: its type is named
    builtin_function_or_method (`x.size[0]`: "'builtin_function_or_method' object is not
    subscriptable") and its repr is "<built-in method size of Tensor object at 0x...>".
    A partial: made and called in C, so binding one costs little."""

    __slots__ = ()

    @property
    def __self__(self):
        return self.args[0]

    @property
    def __name__(self):
        return self.func.__name__

    def __repr__(self):
        obj = self.args[0]
        return (
            f"<built-in method {self.func.__name__} of {type(obj).__name__} object at {id(obj):#x}>"
        )


_TYPE_NAME.__set__(_BuiltinMethod, "builtin_function_or_method")


class builtin_method:
    """A descriptor that binds `func` as a built-in method (see _BuiltinMethod): for the
    methods a student mistakes for attributes (`x.size[0]`), where the extra call is cheap."""

    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func

    def __get__(self, obj, cls=None):
        return self.func if obj is None else _BuiltinMethod(self.func, obj)
