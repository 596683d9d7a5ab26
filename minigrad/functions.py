"""One small class per differentiable operation, named exactly as PyTorch names the node.

Each `apply` takes the gradient of the node's output(s) and returns one gradient per edge in
`next_functions` (None where that input needs none). Gradients are raw arrays; `xp` is the
array module of the arrays involved, so no node knows whether it runs on NumPy or CuPy.

Where an op's forward is a pure kernel (the elementwise functions, relu), it sits on its node
as `forward(xp, x)`, beside the gradient it must agree with; ops.py keeps what happens around
a kernel (argument checks, dtype promotion, in-place history).
"""

import math
import operator

import numpy as np

from . import seams as _seams  # its modules are loaded once the operations are (ops.py)
from .autograd.graph import Node

HALF = np.dtype(np.float16)


def opmath(a):
    """float16 arrays as float32: PyTorch computes half-precision kernels in float and rounds
    the result once (its "opmath" type)."""
    return a.astype(np.float32) if a.dtype == HALF else a


def with_number(op, a, number):
    """op(a, number) for an array and a Python or NumPy number: PyTorch applies a number to
    half-precision values in float and rounds once, where NumPy would round it to half first."""
    if a.dtype == HALF and (not hasattr(number, "shape") or isinstance(number, np.generic)):
        return op(a.astype(np.float32), np.float32(number)).astype(HALF)
    return op(a, number)


def array_module(a):
    """NumPy or CuPy, whichever holds `a`."""
    if type(a).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def unbroadcast(g, shape, dtype=None):
    """Sum a broadcast gradient back down to `shape` (and cast it to the input's dtype)."""
    if g.shape != tuple(shape):
        extra = g.ndim - len(shape)
        axes = tuple(range(extra)) + tuple(
            i + extra for i, n in enumerate(shape) if n == 1 and g.shape[i + extra] != 1
        )
        g = g.sum(axis=axes).reshape(shape)
    if dtype is not None and g.dtype != dtype:
        g = g.astype(dtype)
    return g


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


def _reduced(g, node, meta):
    """A binary op's gradient for one operand, reduced to its shape and dtype (None when the
    operand takes no gradient). Inputs of matching shape and dtype, the common case, pass."""
    if node is None or g is None:
        return None
    shape, dtype = meta
    if g.shape == shape and g.dtype == dtype:
        return g
    return unbroadcast(g, shape, dtype)


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


class SubBackward0(AddBackward0):
    def apply(self, g):
        return self._out(g, -g * self.alpha if self.alpha != 1 else -g)


class RsubBackward1(Node):
    def __init__(self, edges, alpha=1):
        super().__init__(edges)
        self.alpha = alpha

    def apply(self, g):
        return (-g * self.alpha,)


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


class DivBackward0(_Binary):
    declared_saved = ("self", "other")
    wrapped_numbers = ("other",)

    def apply(self, g):
        s = self.unpack()
        other = s["other"]
        ga = with_number(operator.truediv, g, other) if self._next_nodes[0] else None
        gb = -g * s["self"] / (other * other) if self._next_nodes[1] is not None else None
        return self._out(ga, gb)


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
        from ._messages import LIB

        return f"{LIB}::autograd::NotImplemented"

    def apply(self, g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


NoDerivative.__name__ = NoDerivative.__qualname__ = "NotImplemented"


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
            with _quiet(xp):
                gb = g * xp.where((x == 0) & (e >= 0), 0.0, result * xp.log(x))
            gb = gb.astype(g.dtype, copy=False)
        return self._out(ga, gb)


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
            with _quiet(xp):
                d = xp.where(s["exponent"] >= 0, 0.0, result * -math.inf)
            return ((g * d).astype(g.dtype, copy=False),)
        log_base = math.log(base) if base > 0 else math.nan
        return ((g * with_number(operator.mul, result, log_base)).astype(g.dtype, copy=False),)


def _quiet(xp):
    return xp.errstate(divide="ignore", invalid="ignore")


class NegBackward0(Node):
    def apply(self, g):
        return (-g,)


class ReciprocalBackward0(Node):
    def apply(self, g):
        r = self.unpack()["result"]
        return (-g * (r * r),)  # PyTorch's order, which float16 rounding shows


class _ElementwiseFloat(Node):
    """A function computed elementwise in floating point, its forward beside its gradient
    (ops._float_unary runs `forward` and saves what `saves` names: the input as "self" or
    the output as "result")."""

    saves = "self"

    @staticmethod
    def forward(xp, x):
        raise NotImplementedError


class ExpBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return xp.exp(x)

    def apply(self, g):
        return (g * self.unpack()["result"],)


class LogBackward0(_ElementwiseFloat):
    @staticmethod
    def forward(xp, x):
        return xp.log(x)

    def apply(self, g):
        return (g / self.unpack()["self"],)


class SqrtBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return xp.sqrt(x)

    def apply(self, g):
        with _quiet(array_module(g)):
            return (g / (2 * self.unpack()["result"]),)


class TanhBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return xp.tanh(x)

    def apply(self, g):
        r = opmath(self.unpack()["result"])
        return ((opmath(g) * (1 - r * r)).astype(g.dtype, copy=False),)


class SigmoidBackward0(_ElementwiseFloat):
    saves = "result"

    @staticmethod
    def forward(xp, x):
        return (1 / (1 + xp.exp(-x))).astype(x.dtype, copy=False)

    def apply(self, g):
        r = self.unpack()["result"]
        return (g * (1 - r) * r,)  # in g's dtype, in this order, as PyTorch (float16 shows it)


def masked(g, keep):
    """`g` where `keep`, else 0: PyTorch writes a true 0 (never -0.0), so add +0.0 after the
    product (-0.0 + 0.0 == +0.0). Several times faster than NumPy's where() with a scalar."""
    out = g * keep
    out += 0.0
    return out


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


class AbsBackward0(Node):
    def apply(self, g):
        x = self.unpack()["self"]
        # the sign as PyTorch computes it, (x > 0) - (x < 0): 0 at NaN, where NumPy's is NaN
        sign = (x > 0).astype(g.dtype)
        sign -= x < 0
        return (g * sign,)


class SinBackward0(_ElementwiseFloat):
    @staticmethod
    def forward(xp, x):
        return xp.sin(x)

    def apply(self, g):
        return (g * array_module(g).cos(self.unpack()["self"]),)


class CosBackward0(_ElementwiseFloat):
    @staticmethod
    def forward(xp, x):
        return xp.cos(x)

    def apply(self, g):
        return (-g * array_module(g).sin(self.unpack()["self"]),)


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


class ClampBackward0(Node):
    """clamp with tensor bounds: self's gradient where min <= self <= max; a bound's where
    self passes it (min's only while min < max, max's also where max < min), as PyTorch's
    clamp_backward_min_max; each reduced to its own shape."""

    def __init__(self, edges, metas):
        super().__init__(edges)
        self.metas = metas  # (self, min, max): (shape, dtype), None for an absent bound

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


class SoftplusBackward0(Node):
    def __init__(self, edges, beta, threshold):
        super().__init__(edges)
        self.beta, self.threshold = beta, threshold

    def apply(self, g):
        xp = array_module(g)
        x = opmath(self.unpack()["self"])
        z = x * self.beta
        with _quiet(xp):
            sig = 1 / (1 + xp.exp(-z))
        return ((opmath(g) * xp.where(z > self.threshold, 1.0, sig)).astype(g.dtype, copy=False),)


# -- reductions ----------------------------------------------------------------------------


class SumBackward0(Node):
    def __init__(self, edges, shape):
        super().__init__(edges)
        self.shape = shape

    def apply(self, g):
        return (array_module(g).broadcast_to(g, self.shape),)


class SumBackward1(Node):
    def __init__(self, edges, shape, dims, keepdim):
        super().__init__(edges)
        self.shape, self.dims, self.keepdim = shape, dims, keepdim

    def _expand(self, g):
        xp = array_module(g)
        if not self.keepdim:
            g = xp.expand_dims(g, self.dims)
        return xp.broadcast_to(g, self.shape)

    def apply(self, g):
        return (self._expand(g),)


class MeanBackward0(SumBackward0):
    def apply(self, g):
        n = max(1, math.prod(self.shape))
        return (array_module(g).broadcast_to(g, self.shape) / n,)


class MeanBackward1(SumBackward1):
    def apply(self, g):
        n = math.prod([self.shape[d] for d in self.dims])
        return (self._expand(g) / n,)  # a fresh array, as PyTorch's (its .grad can take it)


class MaxBackward1(Node):
    """Full reduction max/min: the gradient is shared evenly among tied extremes."""

    grad_version = 1  # PyTorch builds it with masked_fill_

    def apply(self, g):
        s = self.unpack()
        x, result = s["self"], s["result"]
        # a NaN extreme shares the gradient among the NaNs, as PyTorch does
        mask = array_module(x).isnan(x) if result != result else x == result
        share = (g / mask.sum()).astype(g.dtype, copy=False)  # NumPy would widen to float64
        return (masked(share, mask),)


class MinBackward1(MaxBackward1):
    pass


class MaxBackward0(Node):
    """max/min along a dim: the gradient goes to the selected index."""

    grad_version = 2  # PyTorch builds it with zeros() and scatter_

    def __init__(self, edges, shape, dim, keepdim):
        super().__init__(edges)
        self.shape, self.dim, self.keepdim = shape, dim, keepdim

    def apply(self, g):
        xp = array_module(g)
        idx = self.unpack()["indices"]
        if not self.keepdim:
            g = xp.expand_dims(g, self.dim)
            idx = xp.expand_dims(idx, self.dim)
        out = xp.zeros(self.shape, dtype=g.dtype)
        xp.put_along_axis(out, idx, g, axis=self.dim)
        return (out,)


class MinBackward0(MaxBackward0):
    pass


# -- linear algebra ------------------------------------------------------------------------


def column_major(a):
    """Whether a matrix is laid out by columns (a transposed one, such as nn.Linear's
    `weight.t()`): PyTorch then computes its gradient in that layout too."""
    return a.ndim == 2 and a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize


def _mm_grads(g, mat1, mat2, need1, need2, col_major):
    """PyTorch's mm_mat1_backward and mm_mat2_backward, layouts included (the layout decides
    whether a leaf's .grad can take the array over, see the engine)."""
    g1 = g2 = None
    if need1:
        g1 = (mat2 @ g.T).T if col_major[0] else g @ mat2.T
    if need2:
        g2 = (g.T @ mat1).T if col_major[1] else mat1.T @ g
    return g1, g2


class MmBackward0(Node):
    def __init__(self, edges, col_major=(False, False)):
        super().__init__(edges)
        self.col_major = col_major

    def apply(self, g):
        s = self.unpack()
        need1, need2 = (n is not None for n in self._next_nodes)
        return _mm_grads(g, s.get("self"), s.get("mat2"), need1, need2, self.col_major)


class AddmmBackward0(Node):
    """bias + mat1 @ mat2 (nn.Linear on a batch)."""

    def __init__(self, edges, bias_meta, col_major=(False, False)):
        super().__init__(edges)
        self.bias_meta, self.col_major = bias_meta, col_major

    def apply(self, g):
        s = self.unpack()
        gbias = unbroadcast(g, *self.bias_meta) if self._next_nodes[0] is not None else None
        need1, need2 = (n is not None for n in self._next_nodes[1:])
        g1, g2 = _mm_grads(g, s.get("mat1"), s.get("mat2"), need1, need2, self.col_major)
        return gbias, g1, g2


class DotBackward0(Node):
    def apply(self, g):
        s = self.unpack()
        ga = g * s["tensor"] if self._next_nodes[0] is not None else None
        gb = g * s["self"] if self._next_nodes[1] is not None else None
        return ga, gb


class MvBackward0(Node):
    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        ga = xp.outer(g, s["vec"]) if self._next_nodes[0] is not None else None
        gb = s["self"].T @ g if self._next_nodes[1] is not None else None
        return ga, gb


class UnsafeViewBackward0(Node):
    """Batched matmul (the node PyTorch leaves on top of bmm) or a copying reshape."""

    def __init__(self, edges, shape, a_meta=None, b_meta=None):
        super().__init__(edges)
        self.shape, self.a_meta, self.b_meta = shape, a_meta, b_meta

    def apply(self, g):
        if self.a_meta is None:  # reshape that had to copy
            return (g.reshape(self.shape),)
        xp = array_module(g)
        s = self.unpack()
        a, b = s["self"], s["other"]
        # 1-D operands act as a row (left) or a column (right), as in matmul itself.
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = xp.expand_dims(g2, -2)
        if b.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = unbroadcast(g2 @ xp.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
            ga = ga.astype(self.a_meta[1], copy=False)
        if self._next_nodes[1] is not None:
            gb = unbroadcast(xp.swapaxes(a2, -1, -2) @ g2, b2.shape).reshape(b.shape)
            gb = gb.astype(self.b_meta[1], copy=False)
        return ga, gb


# A 2-D matrix times a batch: PyTorch's result comes from a contiguous copy.
BatchedCloneBackward0 = type("CloneBackward0", (UnsafeViewBackward0,), {"__module__": __name__})


class SqueezeBackward4(Node):
    """(n,) @ (n, m): PyTorch squeezes the mm result in place (its version becomes 1)."""

    def __init__(self, edges, shape):
        super().__init__(edges)
        self.shape = shape

    def apply(self, g):
        return (g.reshape(self.shape),)


# -- copies, dtype and device --------------------------------------------------------------


class CloneBackward0(Node):
    def apply(self, g):
        return (g,)


class AliasBackward0(CloneBackward0):
    pass


class ToCopyBackward0(Node):
    """A copy across dtype and/or device: the gradient returns in the source's."""

    def __init__(self, edges, src_dtype, src_device):
        super().__init__(edges)
        self.src_dtype, self.src_device = src_dtype, src_device

    def apply(self, g):
        return (_seams.devices.to_copy_backward(g, self.src_dtype, self.src_device),)


class CopyBackwards(Node):
    """`dst.copy_(src)`: dst's old values get no gradient; src gets it, reduced and cast."""

    def __init__(self, edges, src_meta, src_device):
        super().__init__(edges)
        self.src_meta, self.src_device = src_meta, src_device

    def apply(self, g):
        from ._device import to_device_array

        xp = array_module(g)
        gsrc = None
        if self._next_nodes[1] is not None:
            gsrc = unbroadcast(to_device_array(g, self.src_device), *self.src_meta)
        return xp.zeros_like(g), gsrc


class ZeroBackward0(Node):
    def apply(self, g):
        return (array_module(g).zeros_like(g),)


class FillBackward2(ZeroBackward0):
    pass


class FillBackward3(Node):
    """`fill_(value)` with a 0-d tensor: the value gets the sum of the gradient (in its own
    dtype and device); the overwritten elements get none."""

    def __init__(self, edges, value_dtype, value_device):
        super().__init__(edges)
        self.value_dtype, self.value_device = value_dtype, value_device

    def apply(self, g):
        from ._device import to_device_array

        xp = array_module(g)
        gv = None
        if self._next_nodes[1] is not None:
            gv = to_device_array(xp.asarray(g.sum()), self.value_device).astype(self.value_dtype)
        return xp.zeros_like(g), gv


class NormalBackward0(ZeroBackward0):
    pass


class UniformBackward0(ZeroBackward0):
    pass


# -- views ---------------------------------------------------------------------------------


class _ViewOf(Node):
    """A view: the gradient is scattered back into the region of the input it shows."""

    def __init__(self, edges, in_shape, in_dtype, view_fn):
        super().__init__(edges)
        self.in_shape, self.in_dtype, self.view_fn = in_shape, in_dtype, view_fn

    def apply(self, g):
        return (scatter_into_view(self.view_fn, self.in_shape, g),)


def scatter_into_view(view_fn, in_shape, g):
    """A zero gradient of `in_shape` with `g` added through the positions `view_fn` shows.

    Where the view repeats a memory location (an expanded dimension, a view of one), each
    repetition adds its part, as PyTorch's as_strided backward does: assigning through the view
    would keep only the last repetition's part.
    """
    xp = array_module(g)
    out = xp.zeros(in_shape, dtype=g.dtype)
    region = view_fn(out)
    if not may_overlap(region):
        region[...] = g
        return out
    positions = view_fn(xp.arange(out.size).reshape(in_shape))
    xp.add.at(out.reshape(-1), positions.reshape(-1), g.reshape(-1))
    return out


def may_overlap(a):
    """Whether two elements of `a` may share a memory location, decided from its strides as
    PyTorch decides it (sorted by stride, each must step past the span of the smaller ones)."""
    if a.size == 0:
        return False
    span = 0
    for stride, n in sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n > 1):
        if stride <= span:
            return True
        span += stride * (n - 1)
    return False


class SelectBackward0(_ViewOf):
    pass


class SliceBackward0(_ViewOf):
    pass


class AsStridedBackward0(_ViewOf):
    pass


class DiagonalBackward0(_ViewOf):
    pass


# Indexing with None inserts a dimension: PyTorch names that view's node UnsqueezeBackward0.
IndexUnsqueezeBackward0 = type("UnsqueezeBackward0", (_ViewOf,), {"__module__": __name__})


class _Reshaping(Node):
    """Views that only rearrange elements: the gradient is rearranged back."""

    def __init__(self, edges, in_shape, back):
        super().__init__(edges)
        self.in_shape, self.back = in_shape, back

    def apply(self, g):
        return (self.back(g),)


class ViewBackward0(_Reshaping):
    pass


class UnsqueezeBackward0(_Reshaping):
    pass


class SqueezeBackward0(_Reshaping):
    pass


class SqueezeBackward1(_Reshaping):
    pass


class TBackward0(_Reshaping):
    pass


class TransposeBackward0(_Reshaping):
    pass


class PermuteBackward0(_Reshaping):
    pass


class ExpandBackward0(Node):
    def __init__(self, edges, in_shape):
        super().__init__(edges)
        self.in_shape = in_shape

    def apply(self, g):
        return (unbroadcast(g, self.in_shape),)


class IndexBackward0(Node):
    """Advanced indexing copies; repeated indices add up their gradients.

    The index tensors are saved too, so changing one in place fails at backward (I2).
    """

    grad_version = 1  # PyTorch builds it with index_put_

    def __init__(self, edges, in_shape, index, index_tensors):
        super().__init__(edges)
        self.in_shape = in_shape
        self.save(indices=index, **{f"indices{i}": t for i, t in enumerate(index_tensors)})

    def apply(self, g):
        xp = array_module(g)
        index = self.unpack()["indices"]
        out = xp.zeros(self.in_shape, dtype=g.dtype)
        xp.add.at(out, index, g)
        return (out,)


class UnbindBackward0(Node):
    """unbind (also behind `for row in t`): one output per slice along `dim`."""

    def __init__(self, edges, in_shape, dim, n):
        super().__init__(edges)
        self.in_shape, self.dim = in_shape, dim
        self.n_outputs = n

    def apply(self, *grads):
        xp = array_module(next(g for g in grads if g is not None))
        dtype = next(g for g in grads if g is not None).dtype
        parts = [
            xp.zeros(self.in_shape[: self.dim] + self.in_shape[self.dim + 1 :], dtype=dtype)
            if g is None
            else g
            for g in grads
        ]
        return (xp.stack(parts, axis=self.dim),)


class StackBackward0(Node):
    def __init__(self, edges, dim, metas):
        super().__init__(edges)
        self.dim, self.metas = dim, metas

    def apply(self, g):
        return _seams.rebuilding_tensors.stack_backward(g, self.dim, self.metas, self._next_nodes)


class CatBackward0(Node):
    def __init__(self, edges, dim, metas):
        super().__init__(edges)
        self.dim, self.metas = dim, metas

    def apply(self, g):
        return _seams.rebuilding_tensors.cat_backward(g, self.dim, self.metas, self._next_nodes)


class WhereBackward0(Node):
    def __init__(self, edges, a_meta, b_meta):
        super().__init__(edges)
        self.a_meta, self.b_meta = a_meta, b_meta

    def apply(self, g):
        xp = array_module(g)
        cond = self.unpack()["condition"]
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = unbroadcast(xp.where(cond, g, 0), *self.a_meta)
        if self._next_nodes[1] is not None:
            gb = unbroadcast(xp.where(cond, 0, g), *self.b_meta)
        return ga, gb


# -- in-place writes into views ------------------------------------------------------------


class CopySlices(Node):
    """The base's new history after an in-place op wrote through one of its views.

    `fn` is the in-place op's own node; its first input was the view's old values, whose
    gradient is written back into the view's region of the base's gradient. Its other inputs
    keep their edges.
    """

    def __init__(self, base_edge, view_fn, fn):
        super().__init__((base_edge,) + fn.next_functions[1:])
        self.view_fn, self.fn = view_fn, fn

    def name(self):
        from ._messages import LIB

        return f"{LIB}::autograd::CopySlices"

    def apply(self, g):
        result = g.copy()
        region = self.view_fn(result)
        grads = self.fn.apply(region.copy())
        region[...] = 0 if grads[0] is None else grads[0]
        return (result,) + tuple(grads[1:])

    def release(self):
        self.fn.release()


class IndexPutBackward0(Node):
    """`base[advanced_index] = values`: the overwritten positions pass no gradient back."""

    def __init__(self, edges, index, values_meta):
        super().__init__(edges)
        self.index, self.values_meta = index, values_meta

    def apply(self, g):
        xp = array_module(g)
        gbase = g.copy()
        gbase[self.index] = 0
        gvals = None
        if self._next_nodes[1] is not None:
            gvals = unbroadcast(xp.asarray(g[self.index]), *self.values_meta)
        return gbase, gvals


# -- losses --------------------------------------------------------------------------------


class DivBackward1(Node):
    """A tensor divided by a C++ Scalar (inside PyTorch's own composite ops)."""

    def __init__(self, edges, other):
        super().__init__(edges)
        self.other = other

    def apply(self, g):
        return (g / self.other,)


class MseLossBackward0(Node):
    def __init__(self, edges, reduction):
        super().__init__(edges)
        self.reduction = reduction

    def apply(self, g):
        s = self.unpack()
        a, b = s["self"], s["target"]  # computed in the output's dtype, returned in each input's
        a_, b_ = a.astype(g.dtype, copy=False), b.astype(g.dtype, copy=False)
        scale = 2.0 / a.size if self.reduction == "mean" else 2.0
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = (g * scale * (a_ - b_)).astype(a.dtype, copy=False)
        if self._next_nodes[1] is not None:  # (b - a), not -(a - b): 0., not -0.
            gb = (g * scale * (b_ - a_)).astype(b.dtype, copy=False)
        return ga, gb


class LogSoftmaxBackward0(Node):
    def __init__(self, edges, dim):
        super().__init__(edges)
        self.dim = dim

    def apply(self, g):
        xp = array_module(g)
        r = self.unpack()["result"]
        return (g - xp.exp(r) * g.sum(axis=self.dim, keepdims=True),)


class NllLossBackward0(Node):
    def __init__(self, edges, reduction, ignore_index, shape):
        super().__init__(edges)
        self.reduction, self.ignore_index, self.shape = reduction, ignore_index, shape

    def apply(self, g):
        """-g (scaled as the reduction did) at each kept target's class, 0 elsewhere."""
        xp = array_module(g)
        target = self.unpack()["target"].reshape(-1)
        keep = target != self.ignore_index
        out = xp.zeros((target.shape[0], self.shape[-1]), dtype=g.dtype)
        if self.reduction == "none":
            scale = g.reshape(-1)[keep]
        elif self.reduction == "sum":
            scale = g
        else:
            scale = g / xp.maximum(keep.sum(), 1)  # no kept target: nothing is written
        out[xp.arange(target.shape[0])[keep], target[keep]] = -scale
        return (out.reshape(self.shape),)


# -- the beginner tutorials' operations ------------------------------------------------------


class SoftmaxBackward0(Node):
    def __init__(self, edges, dim):
        super().__init__(edges)
        self.dim = dim

    def apply(self, g):
        r = self.unpack()["result"]
        gr = g * r
        return (gr - r * gr.sum(axis=self.dim, keepdims=True),)


class LinalgVectorNormBackward0(Node):
    """vector_norm's gradient: x/|x| for p=2 (0 where the norm is 0), sign(x) for p=1, the
    gradient split among the elements reaching the maximum for p=inf."""

    def __init__(self, edges, ord, dims, keepdim):  # noqa: A002
        super().__init__(edges)
        self.ord, self.dims, self.keepdim = ord, dims, keepdim

    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        x, norm = s["self"], s["result"]
        if not self.keepdim:
            g = xp.expand_dims(g, self.dims)
            norm = xp.expand_dims(norm, self.dims)
        if self.ord == 2:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = xp.where(norm == 0, 0, x / norm) * g
        elif self.ord == 1:
            out = xp.sign(x) * g
        else:
            hit = (xp.abs(x) == norm).astype(x.dtype)
            count = hit.sum(axis=self.dims, keepdims=True)
            out = xp.sign(x) * hit / count * g
        return (out.astype(x.dtype, copy=False),)


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


class MinimumBackward0(MaximumBackward0):
    _pick = staticmethod(operator.lt)


class RepeatBackward0(Node):
    def __init__(self, edges, in_shape, repeats):
        super().__init__(edges)
        self.in_shape, self.repeats = in_shape, repeats

    def apply(self, g):
        # the repeated shape split into (repeat, size) pairs, summed over the repeats
        lead = len(self.repeats) - len(self.in_shape)
        shape = (1,) * lead + tuple(self.in_shape)
        split = []
        for r, n in zip(self.repeats, shape):
            split += [r, n]
        g = g.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return (g.reshape(self.in_shape),)


class SplitBackward0(Node):
    """chunk/split: one output per piece along `dim`; missing gradients are zeros."""

    def __init__(self, edges, in_shape, dim, sizes):
        super().__init__(edges)
        self.in_shape, self.dim, self.sizes = in_shape, dim, sizes
        self.n_outputs = len(sizes)

    def apply(self, *grads):
        first = next(g for g in grads if g is not None)
        xp = array_module(first)
        parts = []
        for g, n in zip(grads, self.sizes):
            if g is None:
                shape = list(self.in_shape)
                shape[self.dim] = n
                g = xp.zeros(shape, dtype=first.dtype)
            parts.append(g)
        return (xp.concatenate(parts, axis=self.dim),)
