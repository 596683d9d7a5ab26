"""dtypes of the course subset and PyTorch's promotion rules.

A `dtype` pairs PyTorch's name with the NumPy dtype that stores it. Promotion follows PyTorch,
not NumPy: a Python float makes float32, and 0-d tensors and Python scalars only decide the
result's category (bool < integer < floating), never widen a dimensioned tensor's dtype.
"""

import builtins

import numpy as np

from ._cnames import CName


class dtype(metaclass=CName):
    __slots__ = ("name", "np", "is_floating_point", "is_complex", "itemsize", "tensor_type_name")

    def __init__(self, name, np_dtype, tensor_type_name):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.itemsize = self.np.itemsize
        self.tensor_type_name = tensor_type_name  # FloatTensor, ...

    def __repr__(self):
        return f"minigrad.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def is_signed(self):
        return self.np.kind in "fic"


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
bool = dtype("bool", np.bool_, "BoolTensor")  # noqa: A001 - PyTorch's name
# Beyond the subset: what a NumPy ufunc's bool result becomes (PyTorch's __array_wrap__).
uint8 = dtype("uint8", np.uint8, "ByteTensor")

ALL = (float16, float32, float64, int32, int64, bool, uint8)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}

# Names PyTorch uses for scalar types inside some messages ("Float", "Long", ...).
SCALAR_TYPE_NAME = {
    float16: "Half",
    float32: "Float",
    float64: "Double",
    int32: "Int",
    int64: "Long",
    bool: "Bool",
    uint8: "Byte",
}
# Lower-case C++ names used by the grad-assignment message.
CPP_NAME = {
    float16: "c10::Half",
    float32: "float",
    float64: "double",
    int32: "int",
    int64: "long int",
    bool: "bool",
    uint8: "unsigned char",
}


def argument(factory, value):
    """A factory's `dtype=` as PyTorch's parser reads it: a dtype, or Python's float, int or
    bool for float64, int64 and bool; anything else (a NumPy type, a string) is refused."""
    if value is None or isinstance(value, dtype):
        return value
    python_types = {builtins.float: float64, builtins.int: int64, builtins.bool: bool}
    if isinstance(value, type) and value in python_types:
        return python_types[value]
    from . import _messages as msg

    raise TypeError(msg.DTYPE_ARGUMENT.format(factory, msg.type_name(value)))


def _by_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """The minigrad dtype storing `np_dtype`, or TypeError for dtypes outside the subset."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, int64, int32, and bool."
        ) from None


def category(d):
    """0 for bool, 1 for integers, 2 for floating point."""
    if d is bool:
        return 0
    return 2 if d.is_floating_point else 1


def _scalar_category(x):
    # Only Python's bool is a boolean scalar: PyTorch reads a NumPy bool_ as a float.
    if isinstance(x, builtins.bool):
        return 0
    if isinstance(x, (builtins.int, np.integer)):
        return 1
    return 2


_DEFAULT_FOR_CATEGORY = {0: bool, 1: int64, 2: float32}


def promote(a, b):
    """PyTorch's promotion of two dtypes of the same priority (torch.promote_types): the
    higher category wins whatever the widths (float32 with int64 is float32, where NumPy
    gives float64); within a category, the wider dtype."""
    if a is b:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    return _BY_NP[np.promote_types(a.np, b.np)]


def result_type(*operands):
    """Result dtype of an elementwise op on tensors and Python scalars, as PyTorch computes it.

    Operands are grouped by priority: tensors with dimensions, then 0-d tensors, then Python
    scalars. The result's category is the highest of all; its dtype comes from the
    highest-priority group holding that category.
    """
    from .tensor import Tensor  # local: tensor.py imports this module

    groups = ([], [], [])  # dimensioned, zero-dim, scalar categories/dtypes
    for x in operands:
        if isinstance(x, Tensor):
            groups[0 if x._data.ndim else 1].append(x._dtype)
        else:
            groups[2].append(x)
    top = -1
    for d in groups[0] + groups[1]:
        top = max(top, category(d))
    for s in groups[2]:
        top = max(top, _scalar_category(s))
    for group in groups[:2]:
        found = [d for d in group if category(d) == top]
        if found:
            out = found[0]
            for d in found[1:]:
                out = promote(out, d)
            return out
    return _DEFAULT_FOR_CATEGORY[top]
