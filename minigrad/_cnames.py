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


class _BuiltinMethod:
    """What a method written in C, bound to an object, is to Python: its type is named
    builtin_function_or_method (`x.size[0]`: "'builtin_function_or_method' object is not
    subscriptable") and its repr is "<built-in method size of Tensor object at 0x...>"."""

    __slots__ = ("_func", "__self__")

    def __init__(self, func, obj):
        self._func, self.__self__ = func, obj

    def __call__(self, *args, **kwargs):
        return self._func(self.__self__, *args, **kwargs)

    @property
    def __name__(self):
        return self._func.__name__

    def __repr__(self):
        owner = type(self.__self__).__name__
        return (
            f"<built-in method {self._func.__name__} of {owner} object at {id(self.__self__):#x}>"
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
