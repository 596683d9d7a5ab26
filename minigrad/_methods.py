"""Attach the operations of ops.py to Tensor as methods and operators."""

from . import _dtypes, _signatures, factories, ops
from ._cnames import builtin_method
from .ops import quiet_operator
from .tensor import Tensor, _read_only

_METHODS = {
    # arithmetic
    "add": ops.add,
    "sub": ops.sub,
    "mul": ops.mul,
    "div": ops.div,
    "pow": ops.pow,
    "neg": ops.neg,
    "reciprocal": ops.reciprocal,
    "__add__": quiet_operator(ops.add),
    "__radd__": quiet_operator(ops.add),  # a + b and b + a record the same node
    "__sub__": quiet_operator(ops.sub),
    "__rsub__": quiet_operator(ops.rsub),
    "__mul__": quiet_operator(ops.mul),
    "__rmul__": quiet_operator(ops.mul),
    "__truediv__": quiet_operator(ops.div),
    "__rtruediv__": quiet_operator(ops.rdiv),
    "__floordiv__": quiet_operator(ops.floor_divide),
    "__rfloordiv__": quiet_operator(ops.rfloordiv),
    "__mod__": quiet_operator(ops.remainder),
    "__rmod__": quiet_operator(ops.rremainder),
    "__pow__": quiet_operator(ops.pow),
    "__rpow__": quiet_operator(ops.rpow),
    "__neg__": ops.neg,
    "__matmul__": ops.matmul,
    # in-place
    "add_": ops.add_,
    "sub_": ops.sub_,
    "mul_": ops.mul_,
    "div_": ops.div_,
    "pow_": ops.pow_,
    "floor_divide_": ops.floor_divide_,
    "remainder_": ops.remainder_,
    "__iadd__": ops.add_,
    "__isub__": ops.sub_,
    "__imul__": ops.mul_,
    "__itruediv__": ops.div_,
    "__ipow__": ops.pow_,
    "__ifloordiv__": ops.floor_divide_,
    "__imod__": ops.remainder_,
    "zero_": ops.zero_,
    "fill_": ops.fill_,
    "copy_": ops.copy_,
    "clamp_": ops.clamp_,
    "relu_": ops.relu_,
    "exp_": ops.exp_,
    "sigmoid_": ops.sigmoid_,
    "tanh_": ops.tanh_,
    "uniform_": ops.uniform_,
    "normal_": ops.normal_,
    "__setitem__": ops.setitem,
    # elementwise functions
    "exp": ops.exp,
    "log": ops.log,
    "sqrt": ops.sqrt,
    "tanh": ops.tanh,
    "sigmoid": ops.sigmoid,
    "relu": ops.relu,
    "abs": ops.abs,
    "__abs__": ops.abs,
    "sin": ops.sin,
    "cos": ops.cos,
    "clamp": ops.clamp,
    # comparisons
    "lt": ops.lt,
    "le": ops.le,
    "gt": ops.gt,
    "ge": ops.ge,
    "eq": ops.eq,
    "ne": ops.ne,
    "__lt__": ops.lt,
    "__le__": ops.le,
    "__gt__": ops.gt,
    "__ge__": ops.ge,
    "__eq__": ops.eq_operator,
    "__ne__": ops.ne,
    # reductions
    "sum": ops.sum,
    "mean": ops.mean,
    "max": ops.max,
    "min": ops.min,
    "argmax": ops.argmax,
    "argmin": ops.argmin,
    # linear algebra
    "matmul": ops.matmul,
    "mm": ops.mm,
    "dot": ops.dot,
    "mv": ops.mv,
    # copies, dtype, device
    "clone": ops.clone,
    "contiguous": ops.contiguous,
    "to": ops.to,
    "cuda": ops.cuda,
    "cpu": ops.cpu,
    "float": ops._cast(_dtypes.float32),
    "double": ops._cast(_dtypes.float64),
    "half": ops._cast(_dtypes.float16),
    "long": ops._cast(_dtypes.int64),
    "int": ops._cast(_dtypes.int32),
    "bool": ops._cast(_dtypes.bool),
    "type_as": ops.type_as,
    # views and indexing
    "view": ops.view,
    "view_as": ops.view_as,
    "reshape": ops.reshape,
    "flatten": ops.flatten,
    "t": ops.t,
    "transpose": ops.transpose,
    "permute": ops.permute,
    "unsqueeze": ops.unsqueeze,
    "squeeze": ops.squeeze,
    "expand": ops.expand,
    "expand_as": ops.expand_as,
    "unbind": ops.unbind,
    "__getitem__": ops.getitem,
    "narrow": ops.narrow,
    "chunk": ops.chunk,
    "repeat": ops.repeat,
    # the beginner tutorials'
    "softmax": ops.softmax,
    "norm": ops.norm,
    "maximum": ops.maximum,
    "minimum": ops.minimum,
    "argsort": ops.argsort,
}

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
# Named methods answer a call PyTorch's parser refuses with its text (operators stay as they
# are: they hand an operand they cannot read back to Python).
for _name in _signatures.SIGNATURES.keys() - {"new"}:
    setattr(Tensor, _name, _signatures.parsed(_name, getattr(Tensor, _name)))
assert factories  # new_ones and new_zeros are attached there, before they are wrapped
# The methods a student mistakes for attributes (x.size[0]) are built-in methods to Python,
# as PyTorch's are.
for _name in ("size", "dim", "numel", "item", "tolist"):
    setattr(Tensor, _name, builtin_method(getattr(Tensor, _name)))
Tensor.T = property(ops.T).setter(_read_only("T"))
Tensor.__hash__ = object.__hash__  # __eq__ returns a tensor; hashing stays by identity
