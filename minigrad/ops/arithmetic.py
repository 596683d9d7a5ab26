"""Arithmetic: + - * / ** // %, neg, reciprocal, maximum/minimum and the comparisons, each
op beside its node (AddBackward0, MulBackward0, ...) and the node's backward."""

import builtins
import math
import operator

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from ..autograd import grad_mode
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import (
    _SCALARS,
    HALF,
    _arr,
    _checked_scalar,
    _edge,
    _errors_ignored,
    _int_scalar,
    _meta,
    _needs_grad,
    _prepare,
    _saved_on,
    _unary,
    array_module,
    quiet_functions,
    quiet_operator,
    unbroadcast,
    with_number,
)


def _result(data, device, node=None):
    t = Tensor._make(data, device)
    if node is not None:
        if t._dtype.is_floating_point:
            t._grad_fn = node
        else:
            node = None
    return t


def _check_alpha(alpha, dtype):
    if alpha.__class__ is builtins.float and not dtype.is_floating_point:
        raise RuntimeError(msg.ALPHA_FLOAT_INTEGRAL)
    return _checked_scalar(alpha, dtype)


def _wrap_int64(v):
    """A Python int as a C++ int64 holds it (two's complement, wrapping)."""
    return ((v + (1 << 63)) % (1 << 64)) - (1 << 63)


def _binary(node_cls, a, b, data, dtype, device, save=None, **kw):
    data = data if data.dtype == dtype.np else data.astype(dtype.np)
    if not _needs_grad(a, b) or not dtype.is_floating_point:
        return Tensor._make(data, device, dtype)
    node = node_cls(
        (_edge(a), _edge(b)),
        _meta(a, device) if isinstance(a, Tensor) else None,
        _meta(b, device) if isinstance(b, Tensor) else None,
        **kw,
    )
    if save:
        node.save(**save)
        _saved_on(node, device)
    out = Tensor._make(data, device, dtype)
    out._grad_fn = node
    return out


def _scalar_fast_path(self, other):
    """Whether `self op other` is a float tensor with a Python number (the common case)."""
    cls = other.__class__
    if cls is builtins.int:  # one PyTorch cannot read as a Scalar takes the checked path
        return self._dtype.is_floating_point and -(1 << 63) <= other < (1 << 63)
    return cls is builtins.float and self._dtype.is_floating_point


def _scalar_result(self, data, node_cls, save_other=None):
    out = Tensor._make(data, self._device, self._dtype)
    # grad_fn (a property: a view may rebuild its history) only when the fields cannot tell
    records = self._requires_grad or self._grad_fn is not None
    if not records and self._base is not None:
        records = self.requires_grad
    if records and grad_mode._enabled:
        fn = self._grad_fn
        if fn is not None and self._base is None:  # a result of an op, the common case
            nr = self._output_nr
        else:
            fn, nr = self._edge()
        node = node_cls._of_scalar(fn, nr, (self._data.shape, self._data.dtype))
        if save_other is not None:
            node._saved = {"other": save_other}
        out._grad_fn = node
    return out


def _reduced(g, node, meta):
    """A binary op's gradient for one operand, reduced to its shape and dtype (None when the
    operand takes no gradient). Inputs of matching shape and dtype, the common case, pass."""
    if node is None or g is None:
        return None
    if g.shape == meta[0] and g.dtype == meta[1] and len(meta) == 2:
        return g
    return unbroadcast(g, *meta)


class _Binary(Node):
    """Elementwise op of two operands; remembers their shapes and dtypes to reduce grads."""

    def __init__(self, edges, a_meta, b_meta):
        super().__init__(edges)
        self.a_meta = a_meta  # (shape, np dtype) or None for a Python scalar
        self.b_meta = b_meta

    @classmethod
    def _of_scalar(cls, fn, nr, a_meta):
        """`tensor op number`: as cls(((fn, nr), (None, 0)), a_meta, None), faster."""
        self = cls._first_of_two(fn, nr)
        self.a_meta = a_meta
        self.b_meta = None
        return self

    def _out(self, ga, gb):
        na, nb = self._next_nodes
        return _reduced(ga, na, self.a_meta), _reduced(gb, nb, self.b_meta)


class AddBackward0(_Binary):
    def __init__(self, edges, a_meta, b_meta, alpha=1):
        super().__init__(edges, a_meta, b_meta)
        self.alpha = alpha

    @classmethod
    def _of_scalar(cls, fn, nr, a_meta):
        self = super()._of_scalar(fn, nr, a_meta)
        self.alpha = 1
        return self

    def apply(self, g):
        return self._out(g, g * self.alpha if self.alpha != 1 else g)


def add(self, other, *, alpha=1):
    if alpha == 1 and _scalar_fast_path(self, other):
        return _scalar_result(self, self._data + other, AddBackward0)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    if alpha != 1:
        alpha = _check_alpha(alpha, dtype)
    data = a + b if alpha == 1 else a + alpha * b
    return _binary(AddBackward0, self, other, _arr(data, dtype), dtype, device, alpha=alpha)


def _refuse_bool_sub(self, other):
    """PyTorch refuses `-` with a bool operand; a Python bool counts (a NumPy bool_ is a float
    to PyTorch)."""
    a = self._dtype is _dtypes.bool
    b = (
        other._dtype is _dtypes.bool
        if isinstance(other, Tensor)
        else isinstance(other, builtins.bool)
    )
    if a or b:
        if other.__class__ is builtins.int:
            _int_scalar(other, _dtypes.float64)  # the number is read (OverflowError) first
        raise RuntimeError(msg.BOOL_SUBTRACTION_TWO if a and b else msg.BOOL_SUBTRACTION)


class SubBackward0(AddBackward0):
    def apply(self, g):
        return self._out(g, -g * self.alpha if self.alpha != 1 else -g)


def sub(self, other, *, alpha=1):
    if alpha == 1 and _scalar_fast_path(self, other):
        return _scalar_result(self, self._data - other, SubBackward0)
    _refuse_bool_sub(self, other)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    data = None
    if alpha.__class__ is builtins.int and alpha != 1:
        _int_scalar(alpha, _dtypes.float64)  # read as a Scalar first (OverflowError)
        # PyTorch adds -alpha, negated as a C++ int64 (wrapping): that is the value checked
        # against the dtype (int32 takes alpha=2**31) and added
        added = _check_alpha(_wrap_int64(-_wrap_int64(alpha)), dtype)
        alpha, data = -added, a + added * b
    elif alpha != 1:
        alpha = _check_alpha(alpha, dtype)
    if data is None:
        data = a - b if alpha == 1 else a - alpha * b
    return _binary(SubBackward0, self, other, _arr(data, dtype), dtype, device, alpha=alpha)


class RsubBackward1(Node):
    def __init__(self, edges, alpha=1):
        super().__init__(edges)
        self.alpha = alpha

    def apply(self, g):
        return (-g * self.alpha,)


def rsub(self, other, *, alpha=1):
    """`other - self` for a Python scalar `other`."""
    _refuse_bool_sub(self, other)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    data = _arr(b - a * alpha, dtype)
    node = RsubBackward1((self._edge(),), alpha) if _needs_grad(self) else None
    return _result(data, device, node)


class MulBackward0(_Binary):
    declared_saved = ("self", "other")
    wrapped_numbers = ("other",)

    def apply(self, g):
        s = self.unpack()
        ga = None
        if self._next_nodes[0] is not None:
            other = s["other"]  # the common case, inlined: per-op overhead is benchmarked
            ga = g * other if g.dtype != HALF else with_number(operator.mul, g, other)
        gb = g * s["self"] if self._next_nodes[1] is not None else None
        return self._out(ga, gb)


def mul(self, other):
    if _scalar_fast_path(self, other):
        data = self._data
        if self._dtype is _dtypes.float16:
            data = with_number(operator.mul, data, other)
        else:
            data = data * other
        return _scalar_result(self, data, MulBackward0, save_other=other)
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    save = {}
    if _needs_grad(self, other):
        if isinstance(other, Tensor) and other.requires_grad:
            save["self"] = self
        if self.requires_grad:
            save["other"] = other
    data = a * b if isinstance(other, Tensor) else with_number(operator.mul, a, b)
    return _binary(MulBackward0, self, other, _arr(data, dtype), dtype, device, save=save)


class DivBackward0(_Binary):
    declared_saved = ("self", "other")
    wrapped_numbers = ("other",)

    def apply(self, g):
        s = self.unpack()
        other = s["other"]
        ga = with_number(operator.truediv, g, other) if self._next_nodes[0] else None
        gb = -g * s["self"] / (other * other) if self._next_nodes[1] is not None else None
        return self._out(ga, gb)


def div(self, other):
    p = _prepare(self, other)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    if not dtype.is_floating_point:  # true division of integers gives the default float
        dtype = _dtypes.float32
        a = a.astype(dtype.np) if hasattr(a, "astype") else a
        # a Python int divides as a number (int32 / 2**40 is tiny, not x / 0 after wrapping)
        b = b.astype(dtype.np) if hasattr(b, "astype") else other
    data = a / b if isinstance(other, Tensor) else with_number(operator.truediv, a, b)
    data = _arr(data, dtype)
    save = {}
    if _needs_grad(self, other):
        save["other"] = other
        if isinstance(other, Tensor) and other.requires_grad:
            save["self"] = self
    return _binary(DivBackward0, self, other, data, dtype, device, save=save)


def rdiv(self, other):
    """`other / self` for a Python scalar: PyTorch computes reciprocal(self) * other."""
    return mul(reciprocal(self), other)


class ReciprocalBackward0(Node):
    def apply(self, g):
        r = self.unpack()["result"]
        return (-g * (r * r),)  # PyTorch's order, which float16 rounding shows


def reciprocal(self):
    x = self if self._dtype.is_floating_point else self.float()
    data = 1 / x._data
    return _unary(ReciprocalBackward0, x, data, result=True)


class NegBackward0(Node):
    def apply(self, g):
        return (-g,)


def neg(self):
    if self._dtype is _dtypes.bool:
        raise RuntimeError(msg.BOOL_NEGATION)
    return _unary(NegBackward0, self, -self._data)


class PowBackward0(Node):
    """tensor ** scalar."""

    def __init__(self, edges, exponent):
        super().__init__(edges)
        self.exponent = exponent

    @property
    def _saved_exponent(self):  # a plain number: PyTorch keeps it readable after backward
        return self.exponent

    def apply(self, g):
        x = self.unpack()["self"]
        e = self.exponent
        if e == 0:
            return (g * 0,)
        # grad * (e * x ** (e - 1)), each step in x's dtype as PyTorch (float16 shows it)
        return ((g * with_number(operator.mul, x ** (e - 1), e)).astype(x.dtype, copy=False),)


class PowBackward1(_Binary):
    """tensor ** tensor."""

    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        x, e, result = s["self"], s["exponent"], s["result"]
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = g * e * xp.where(e == 0, 1.0, x ** (e - 1)).astype(g.dtype, copy=False)
            ga = xp.where(e == 0, 0.0, ga).astype(g.dtype, copy=False)
        if self._next_nodes[1] is not None:
            with _errors_ignored():
                gb = g * xp.where((x == 0) & (e >= 0), 0.0, result * xp.log(x))
            gb = gb.astype(g.dtype, copy=False)
        return self._out(ga, gb)


def pow(self, exponent):  # noqa: A001 - PyTorch's name
    if isinstance(exponent, Tensor):
        p = _prepare(self, exponent)
        dtype, device, a, b = p
        data = _arr(_power(a, b, dtype), dtype)
        save = {"self": self, "exponent": exponent}
        out = _binary(PowBackward1, self, exponent, data, dtype, device, save=save)
        if out._grad_fn is not None:
            out._grad_fn.save_output("result", out)
        return out
    checked = exponent
    if checked.__class__ is int and not self._dtype.is_floating_point:
        _checked_scalar(checked, _dtypes.int64)  # an integer tensor reads it as int64 first
        if checked < 0 and self._dtype is not _dtypes.bool:
            raise RuntimeError(msg.INT_NEGATIVE_POWER)
    p = _prepare(self, exponent)
    if p is NotImplemented:
        return p
    dtype, device, a, exponent = p  # a NumPy number as exponent is now a Python one
    if checked.__class__ is int or dtype is _dtypes.float16:  # half's kernel reads it as half
        _checked_scalar(checked, dtype)
    data = _arr(_power(a, exponent, dtype), dtype)
    node = None
    if _needs_grad(self) and dtype.is_floating_point:
        node = PowBackward0((self._edge(),), exponent)
        node.save(self=self)
    return _result(data, device, node)


class PowBackward2(Node):
    """scalar ** tensor."""

    def __init__(self, edges, base):
        super().__init__(edges)
        self.base = base

    @property
    def _saved_self(self):  # a plain number: PyTorch keeps it readable after backward
        return self.base

    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        base, result = self.base, s["result"]
        if base == 0:
            # PyTorch: no gradient where exponent >= 0, else result * log(0) (-inf or nan)
            with _errors_ignored():
                d = xp.where(s["exponent"] >= 0, 0.0, result * -math.inf)
            return ((g * d).astype(g.dtype, copy=False),)
        log_base = math.log(base) if base > 0 else math.nan
        return ((g * with_number(operator.mul, result, log_base)).astype(g.dtype, copy=False),)


def rpow(self, base):
    """`base ** self` for a Python scalar `base`."""
    p = _prepare(self, base)
    if p is NotImplemented:
        return p
    dtype, device, a, b = p
    if not dtype.is_floating_point and isinstance(base, builtins.float):
        dtype = _dtypes.float32
    data = _arr(_power(b, a, dtype), dtype)
    out = _result(data, device)
    if _needs_grad(self):
        out._grad_fn = PowBackward2((self._edge(),), base)
        out._grad_fn.save(exponent=self)
        out._grad_fn.save_output("result", out)
    return out


def _power(base, exponent, dtype):
    """base ** exponent (arrays or numbers of the result dtype). Integers as PyTorch: a
    negative number as exponent is refused; negative exponents in a tensor give 1 ** e = 1,
    (-1) ** e = +-1 and 0 otherwise (NumPy refuses both)."""
    if dtype.is_floating_point:
        return base**exponent
    if isinstance(exponent, _SCALARS):  # a Python or NumPy number
        if exponent < 0:
            raise RuntimeError(msg.INT_NEGATIVE_POWER)
        return base**exponent
    xp = _xp_of(base, exponent)
    result = xp.asarray(base) ** xp.maximum(exponent, 0)
    negative = xp.where(base == 1, 1, xp.where(base == -1, 1 - 2 * (exponent % 2), 0))
    return xp.where(exponent < 0, negative, result)


def _xp_of(*arrays):
    return next(array_module(a) for a in arrays if hasattr(a, "shape"))


def _floor_op(ufunc, reflected=False):
    """`//` and `%` (PyTorch's floor_divide and remainder: Python's rounding and signs).
    An integer division by zero raises PyTorch's text; float ones give inf or nan. The graph
    is PyTorch's: see _floor_node."""

    def op(self, other):
        p = _prepare(self, other)
        if p is NotImplemented:
            return p
        dtype, device, a, b = p
        if reflected:
            a, b = b, a
        if dtype is _dtypes.bool:  # PyTorch has no bool kernel for either
            kernel = "remainder" if ufunc is np.remainder else "div_floor"
            raise NotImplementedError(msg.not_implemented_for(f"{kernel}_{device.type}", dtype))
        if not dtype.is_floating_point:
            if self._xp.any(self._xp.asarray(b) == 0):
                raise RuntimeError(msg.INT_DIVISION_BY_ZERO)
        if ufunc is np.remainder and dtype.is_floating_point:
            values = _float_remainder(self._xp, a, b)
        else:
            values = ufunc(a, b)
        out = Tensor._make(_arr(values, dtype), device, dtype)
        if dtype.is_floating_point and _needs_grad(self, other):
            first, second = (other, self) if reflected else (self, other)
            out._grad_fn = _floor_node(ufunc, first, second, device)
        return out

    return op


def _float_remainder(xp, a, b):
    """PyTorch's float kernel: fmod, moved by b where the signs differ. A zero keeps
    fmod's sign (0 % -2.5 is 0., -4. % 2. is -0.), where NumPy's remainder gives b's."""
    mod = xp.fmod(a, b)
    return xp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


class RemainderBackward0(Node):
    """`tensor % number`: the remainder moves with the dividend, slope 1."""

    def apply(self, g):
        return (g,)


class RemainderBackward1(_Binary):
    """`a % b` of tensors: d/db (a - b * floor(a / b)) is -floor(a / b)."""

    declared_saved = ("self", "other")

    def apply(self, g):
        gb = None
        if self._next_nodes[1] is not None:
            s = self.unpack()
            xp = array_module(g)
            a, b = xp.asarray(s["self"], g.dtype), xp.asarray(s["other"], g.dtype)
            gb = -g * xp.floor_divide(a, b)
        return self._out(g, gb)


class NoDerivative(Node):
    """PyTorch's NotImplemented node, of an op it has no derivative for (`//`, `number %
    tensor`): recorded like any other, with edges to the inputs that require grad, it fails
    when backward reaches it. (Named apart in Python, where NotImplemented is a builtin.)"""

    __slots__ = ("op",)

    def __init__(self, edges, op):
        super().__init__(edges)
        self.op = op

    def name(self):
        from .._messages import LIB

        return f"{LIB}::autograd::NotImplemented"

    def apply(self, g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


NoDerivative.__name__ = NoDerivative.__qualname__ = "NotImplemented"


def _floor_node(ufunc, a, b, device):
    """Only `tensor % tensor` (RemainderBackward1) and `tensor % number` (RemainderBackward0)
    have a derivative in PyTorch; `//` and `number % tensor` record a NotImplemented node with
    edges to the inputs that require grad, which fails when backward reaches it."""
    if ufunc is np.remainder and isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            return RemainderBackward0((a._edge(),))
        node = RemainderBackward1((_edge(a), _edge(b)), _meta(a, device), _meta(b, device))
        if b.requires_grad:
            node.save(self=a, other=b)
            _saved_on(node, device)
        return node
    edges = [x._edge() for x in (a, b) if isinstance(x, Tensor) and x.requires_grad]
    return NoDerivative(edges, "remainder" if ufunc is np.remainder else "floor_divide")


floor_divide = _floor_op(np.floor_divide)
remainder = _floor_op(np.remainder)
rfloordiv = _floor_op(np.floor_divide, reflected=True)
rremainder = _floor_op(np.remainder, reflected=True)


def _elementwise_extreme(name, ufunc, node_cls):
    def op(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(msg.arg_type(name, "other", 2, "Tensor", other))
        dtype, device, a, b = _prepare(self, other)
        save = {"self": self, "other": other} if _needs_grad(self, other) else None
        data = _arr(ufunc(a, b), dtype)
        return _binary(node_cls, self, other, data, dtype, device, save=save)

    op.__name__ = name
    return op


class MaximumBackward0(_Binary):
    """The gradient goes to the larger operand, half to each where they tie (as PyTorch)."""

    declared_saved = ("self", "other")
    _pick = staticmethod(operator.gt)

    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        a, b = s["self"], s["other"]
        win = self._pick(a, b)
        tie = a == b
        half = g / 2
        zero = xp.zeros_like(g)
        ga = xp.where(tie, half, xp.where(win, g, zero))
        gb = xp.where(tie, half, xp.where(win, zero, g))
        return self._out(ga, gb)


maximum = _elementwise_extreme("maximum", np.maximum, MaximumBackward0)


class MinimumBackward0(MaximumBackward0):
    _pick = staticmethod(operator.lt)


minimum = _elementwise_extreme("minimum", np.minimum, MinimumBackward0)


def _compare(ufunc):
    def compare(self, other):
        p = _prepare(self, other)
        if p is NotImplemented:
            return p
        dtype, device, a, b = p
        return Tensor._make(_arr(ufunc(a, b), _dtypes.bool), device)

    compare.__name__ = ufunc.__name__
    return compare


lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
eq = _compare(np.equal)
ne = _compare(np.not_equal)


def eq_operator(self, other):
    """`t == array`: PyTorch's __eq__, alone among the operators, reads a NumPy array as a
    tensor of its dtype (`!=`, `<` and eq() refuse one)."""
    if isinstance(other, np.ndarray):
        from ..factories import as_tensor

        other = as_tensor(other)
    return eq(self, other)


quiet_functions(globals())

# Tensor's methods and operators (minigrad.ops attaches them).
METHODS = {
    "add": add,
    "sub": sub,
    "mul": mul,
    "div": div,
    "pow": pow,
    "neg": neg,
    "reciprocal": reciprocal,
    "__add__": quiet_operator(add),
    "__radd__": quiet_operator(add),  # a + b and b + a record the same node
    "__sub__": quiet_operator(sub),
    "__rsub__": quiet_operator(rsub),
    "__mul__": quiet_operator(mul),
    "__rmul__": quiet_operator(mul),
    "__truediv__": quiet_operator(div),
    "__rtruediv__": quiet_operator(rdiv),
    "__floordiv__": quiet_operator(floor_divide),
    "__rfloordiv__": quiet_operator(rfloordiv),
    "__mod__": quiet_operator(remainder),
    "__rmod__": quiet_operator(rremainder),
    "__pow__": quiet_operator(pow),
    "__rpow__": quiet_operator(rpow),
    "__neg__": neg,
    "maximum": maximum,
    "minimum": minimum,
    # comparisons (never require grad)
    "lt": lt,
    "le": le,
    "gt": gt,
    "ge": ge,
    "eq": eq,
    "ne": ne,
    "__lt__": lt,
    "__le__": le,
    "__gt__": gt,
    "__ge__": ge,
    "__eq__": eq_operator,
    "__ne__": ne,
}
