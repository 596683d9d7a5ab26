"""Functions of one tensor: exp, log, sqrt, tanh, sigmoid, sin, cos, relu, abs, clamp,
softplus and softmax. Where the forward is a pure kernel it sits on its node as
`forward(xp, x)`, beside the gradient it must agree with."""

import builtins

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from .._size import wrap_dim
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import (
    _arr,
    _as_operand,
    _check_broadcast,
    _check_devices,
    _checked_scalar,
    _edge,
    _errors_ignored,
    _meta,
    _needs_grad,
    _refuse_uint64_with_bool,
    _unary,
    array_module,
    masked,
    opmath,
    quiet_functions,
    unbroadcast,
)
from .copies import to


class _ElementwiseFloat(Node):
    """A function computed elementwise in floating point, its forward beside its gradient
    (_float_unary runs `forward` and saves what `saves` names: the input as "self" or
    the output as "result")."""

    saves = "self"

    @staticmethod
    def forward(xp, x):
        raise NotImplementedError


def _float_unary(node_cls):
    """An elementwise function computed in floating point (integers are promoted first); the
    node class holds both its forward kernel and its gradient (_ElementwiseFloat)."""
    saves = {"save_self": True} if node_cls.saves == "self" else {"result": True}

    def op(self):
        x = self if self._dtype.is_floating_point else to(self, _dtypes.float32)
        data = x._data
        data = node_cls.forward(x._xp, opmath(data)).astype(data.dtype, copy=False)
        return _unary(node_cls, x, data, **saves)

    return op


class ExpBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return xp.exp(x)

    def apply(self, g):
        return (g * self.unpack()["result"],)


exp = _float_unary(ExpBackward0)


class LogBackward0(_ElementwiseFloat):
    @staticmethod
    def forward(xp, x):
        return xp.log(x)

    def apply(self, g):
        return (g / self.unpack()["self"],)


log = _float_unary(LogBackward0)


class SqrtBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return xp.sqrt(x)

    def apply(self, g):
        with _errors_ignored():
            return (g / (2 * self.unpack()["result"]),)


sqrt = _float_unary(SqrtBackward0)


class TanhBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return xp.tanh(x)

    def apply(self, g):
        r = opmath(self.unpack()["result"])
        return ((opmath(g) * (1 - r * r)).astype(g.dtype, copy=False),)


tanh = _float_unary(TanhBackward0)


class SigmoidBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return (1 / (1 + xp.exp(-x))).astype(x.dtype, copy=False)

    def apply(self, g):
        r = self.unpack()["result"]
        return (g * (1 - r) * r,)  # in g's dtype, in this order, as PyTorch (float16 shows it)


sigmoid = _float_unary(SigmoidBackward0)


class SinBackward0(_ElementwiseFloat):
    @staticmethod
    def forward(xp, x):
        return xp.sin(x)

    def apply(self, g):
        return (g * array_module(g).cos(self.unpack()["self"]),)


sin = _float_unary(SinBackward0)


class CosBackward0(_ElementwiseFloat):
    @staticmethod
    def forward(xp, x):
        return xp.cos(x)

    def apply(self, g):
        return (-g * array_module(g).sin(self.unpack()["self"]),)


cos = _float_unary(CosBackward0)


class ReluBackward0(Node):
    @staticmethod
    def forward(xp, d):
        if d.dtype.kind != "f":
            return xp.maximum(d, d.dtype.type(0))
        # PyTorch keeps x unless x < 0, so -0.0 and NaN pass unchanged (maximum() does not
        # promise that). Multiplying x's bits, read as integers, by the mask writes +0.0
        # exactly where x < 0, and is faster than where().
        bits = d.view(f"i{d.itemsize}") * ~(d < 0)
        return bits.view(d.dtype)

    def apply(self, g):
        # PyTorch zeroes the gradient where result <= 0: a NaN result lets it through
        return (masked(g, ~(self.unpack()["result"] <= 0)),)


def relu(self):
    if self._dtype is _dtypes.bool:
        raise RuntimeError(msg.BOOL_RELU)
    return _unary(ReluBackward0, self, ReluBackward0.forward(self._xp, self._data), result=True)


class AbsBackward0(Node):
    def apply(self, g):
        x = self.unpack()["self"]
        # the sign as PyTorch computes it, (x > 0) - (x < 0): 0 at NaN, where NumPy's is NaN
        sign = (x > 0).astype(g.dtype)
        sign -= x < 0
        return (g * sign,)


def abs(self):  # noqa: A001
    if self._dtype is _dtypes.bool:
        raise NotImplementedError(msg.bool_not_implemented("abs", self._device))
    return _unary(AbsBackward0, self, self._xp.abs(self._data), save_self=True)


def _clamp_overload(min, max):  # noqa: A002
    """Which of PyTorch's clamp overloads the bounds pick: "tensor" when every given bound is
    a Tensor, else "number", where a 0-d tensor stands for its number (a larger one is
    refused)."""
    given = [b for b in (min, max) if b is not None]
    if given and builtins.all(isinstance(b, Tensor) for b in given):
        return "tensor"
    if builtins.any(isinstance(b, Tensor) and b.ndim > 0 for b in given):
        raise TypeError(msg.PARSER_REFUSED.format("clamp"))
    return "number"


class ClampBackward0(Node):
    """clamp with tensor bounds: self's gradient where min <= self <= max; a bound's where
    self passes it (min's only while min < max, max's also where max < min), as PyTorch's
    clamp_backward_min_max; each reduced to its own shape."""

    def __init__(self, edges, metas):
        super().__init__(edges)
        self.metas = metas  # (self, min, max): _meta's, None for an absent bound

    def apply(self, g):
        xp = array_module(g)
        saved = self.unpack()
        x, lo, hi = saved["self"], saved["min"], saved["max"]
        keep = xp.ones(g.shape, dtype=bool)
        if lo is not None:
            keep = keep & (x >= lo)
        if hi is not None:
            keep = keep & (x <= hi)
        grads = [masked(g, keep), None, None]
        if lo is not None and self._next_nodes[1] is not None:
            passed = (x < lo) & (lo < hi) if hi is not None else x < lo
            grads[1] = masked(g, passed)
        if hi is not None and self._next_nodes[2] is not None:
            passed = (x > hi) | (hi < lo) if lo is not None else x > hi
            grads[2] = masked(g, passed)
        return tuple(
            None if gi is None else unbroadcast(gi, *meta)
            for gi, meta in zip(grads, self.metas, strict=True)
        )


def _clamp_tensors(self, min, max):  # noqa: A002
    """clamp with tensor bounds: broadcast, promoted, NaN in any operand propagates."""
    bounds = [b for b in (min, max) if b is not None]
    shape = self._data.shape
    for b in bounds:
        probe = Tensor._make(self._xp.empty(shape, dtype=bool), self._device)
        if b._data.shape != shape:
            _check_broadcast(probe, b)
            shape = np.broadcast_shapes(shape, b._data.shape)
        _check_devices(self, b)
    dtype = _dtypes.result_type(self, *bounds)
    xp = self._xp
    data = _as_operand(self, dtype, self._device)
    lo = None if min is None else _as_operand(min, dtype, self._device)
    hi = None if max is None else _as_operand(max, dtype, self._device)
    if lo is not None:
        data = xp.maximum(data, lo)
    if hi is not None:
        data = xp.minimum(data, hi)
    out = Tensor._make(_arr(xp.broadcast_to(data, shape), dtype), self._device)
    if _needs_grad(self, min, max) and dtype.is_floating_point:
        metas = tuple(None if t is None else _meta(t, self._device) for t in (self, min, max))
        node = ClampBackward0((self._edge(), _edge(min), _edge(max)), metas)
        node.save(self=self, min=min, max=max)
        out._grad_fn = node
    return out


class ClampBackward1(Node):
    def __init__(self, edges, lo, hi):
        super().__init__(edges)
        self.lo, self.hi = lo, hi

    def apply(self, g):
        xp = array_module(g)
        x = self.unpack()["self"]
        mask = xp.ones(x.shape, dtype=bool)
        if self.lo is not None:
            mask &= x >= self.lo
        if self.hi is not None:
            mask &= x <= self.hi
        return (masked(g, mask),)


def clamp(self, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _clamp_overload(min, max) == "tensor":
        return _clamp_tensors(self, min, max)
    min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
    for b in (min, max):
        _refuse_uint64_with_bool(self._dtype, b)
    dtype = _dtypes.result_type(self, *(b for b in (min, max) if b is not None))
    if dtype is _dtypes.bool:  # PyTorch has no bool clamp kernel
        kernel = (
            "clamp"
            if min is not None and max is not None
            else "clamp_min"
            if max is None
            else "clamp_max"
        )
        raise NotImplementedError(
            msg.not_implemented_for(f"{kernel}_scalar_{self._device.type}", dtype)
        )
    min, max = (b if b is None else _checked_scalar(b, dtype) for b in (min, max))
    if dtype is not self._dtype:  # an integer tensor clamped to float bounds
        return clamp(to(self, dtype), min, max)
    data, xp = self._data, self._xp
    # PyTorch keeps x unless it lies beyond a bound: -0.0 and NaN pass unchanged; a NaN
    # bound makes every element NaN
    for bound, beyond in ((min, xp.less), (max, xp.greater)):
        if bound is not None:
            data = xp.where(beyond(data, bound) | (bound != bound), data.dtype.type(bound), data)
    return _unary(ClampBackward1, self, data, save_self=True, lo=min, hi=max)


class SoftplusBackward0(Node):
    def __init__(self, edges, beta, threshold):
        super().__init__(edges)
        self.beta, self.threshold = beta, threshold

    def apply(self, g):
        xp = array_module(g)
        x = opmath(self.unpack()["self"])
        z = x * self.beta
        with _errors_ignored():
            sig = 1 / (1 + xp.exp(-z))
        return ((opmath(g) * xp.where(z > self.threshold, 1.0, sig)).astype(g.dtype, copy=False),)


def softplus(self, beta=1.0, threshold=20.0):
    if not self._dtype.is_floating_point:  # PyTorch's kernel has no integer or bool version
        raise NotImplementedError(
            msg.not_implemented_for(f"softplus_{self._device.type}", self._dtype)
        )
    xp = self._xp
    x = opmath(self._data)
    z = x * beta
    soft = xp.log1p(xp.exp(-xp.abs(z))) + xp.maximum(z, 0)
    data = xp.where(z > threshold, x, soft / beta).astype(self._data.dtype, copy=False)
    return _unary(SoftplusBackward0, self, data, save_self=True, beta=beta, threshold=threshold)


class SoftmaxBackward0(Node):
    def __init__(self, edges, dim):
        super().__init__(edges)
        self.dim = dim

    def apply(self, g):
        r = self.unpack()["result"]
        gr = g * r
        return (gr - r * gr.sum(axis=self.dim, keepdims=True),)


def _softmax_input(self, op, dim, dtype):
    """softmax's and log_softmax's input and axis: cast first, as PyTorch does; an integer
    input refused with the name of the kernel PyTorch would have run."""
    if dtype is not None:
        self = to(self, dtype)  # noqa: PLW0642 - PyTorch casts first
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if not self._dtype.is_floating_point:
        kernel = f"{op}_lastdim_kernel_impl" if d == nd - 1 or nd == 0 else f"{op}_kernel_impl"
        name = _dtypes.SCALAR_TYPE_NAME[self._dtype]
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
    return self, (d if nd else None)


def softmax(self, dim, dtype=None):
    self, axis = _softmax_input(self, "softmax", dim, dtype)  # noqa: PLW0642
    xp, x = self._xp, opmath(self._data)
    if x.size == 0:
        data = x.copy()
    else:
        e = xp.exp(x - x.max(axis=axis, keepdims=True))
        data = e / e.sum(axis=axis, keepdims=True)
    data = data.astype(self._data.dtype, copy=False)
    return _unary(SoftmaxBackward0, self, data, result=True, dim=axis)


class LogSoftmaxBackward0(Node):
    def __init__(self, edges, dim):
        super().__init__(edges)
        self.dim = dim

    def apply(self, g):
        xp = array_module(g)
        r = opmath(self.unpack()["result"])
        out = opmath(g) - xp.exp(r) * opmath(g).sum(axis=self.dim, keepdims=True)
        return (out.astype(g.dtype, copy=False),)


def log_softmax(self, dim, dtype=None):
    self, axis = _softmax_input(self, "log_softmax", dim, dtype)  # noqa: PLW0642
    xp, x = self._xp, opmath(self._data)
    if x.size == 0:
        data = x.copy()
    else:
        shifted = x - x.max(axis=axis, keepdims=True)
        data = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    data = data.astype(self._data.dtype, copy=False)
    return _unary(LogSoftmaxBackward0, self, data, result=True, dim=axis)


quiet_functions(globals())

METHODS = {
    "exp": exp,
    "log": log,
    "sqrt": sqrt,
    "tanh": tanh,
    "sigmoid": sigmoid,
    "relu": relu,
    "abs": abs,
    "__abs__": abs,
    "sin": sin,
    "cos": cos,
    "clamp": clamp,
    "softmax": softmax,
    "log_softmax": log_softmax,
}
