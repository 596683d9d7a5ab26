"""In-place operations: `_inplace` runs the out-of-place op on an alias of the old values,
writes the result into the tensor and rewrites its history as PyTorch does (CopySlices on
the base of a view); add_, mul_, ..., zero_, fill_, copy_, uniform_, normal_."""

import builtins

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from ..autograd import grad_mode
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import (
    _SCALARS,
    _check_broadcast,
    _checked_scalar,
    _edge,
    _meta,
    _needs_grad,
    _prepare,
    array_module,
    quiet_functions,
    unbroadcast,
)
from .arithmetic import NoDerivative, add, div, floor_divide, mul, pow, remainder, sub
from .indexing import index_add, scatter
from .unary import _clamp_overload, clamp, exp, relu, sigmoid, tanh
from .views import _overlaps_itself


def _refuse_overlap(self):
    if _overlaps_itself(self._data):
        raise RuntimeError(msg.INTERNAL_OVERLAP)


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
        from .._messages import LIB

        return f"{LIB}::autograd::CopySlices"

    def apply(self, g):
        result = g.copy()
        region = self.view_fn(result)
        grads = self.fn.apply(region.copy())
        region[...] = 0 if grads[0] is None else grads[0]
        return (result,) + tuple(grads[1:])

    def release(self):
        self.fn.release()


def _inplace(self, op, others=(), overlap_ok=False):
    """Run `op(old)` (an out-of-place op on an alias of self's old values) and write its
    result into self, rewriting self's history as PyTorch does. Only zero_ and fill_ may
    write into an expanded tensor (`overlap_ok`)."""
    tracked = grad_mode._enabled and (
        self.requires_grad or builtins.any(o is not None and o.requires_grad for o in others)
    )
    if tracked:  # PyTorch's refusals, run when the write is recorded
        _versions.check_inplace(self)
    if not overlap_ok:  # after autograd's refusals, as in PyTorch
        _refuse_overlap(self)
    if not tracked:
        with grad_mode.no_grad():
            out = op(self)
        _write(self, out._data)
        return self
    old = Tensor._make(self._data.copy(), self._device, self._dtype)
    if self._base is None:
        old._grad_fn, old._output_nr = self._grad_fn, self._output_nr
        old._requires_grad = self._requires_grad
    else:
        old._requires_grad = self.requires_grad  # placeholder: CopySlices routes its gradient
    out = op(old)
    _write(self, out._data)
    fn = out._grad_fn
    if fn is None:
        return self
    if fn._saved and "result" in fn._saved:
        fn.save_output("result", self)  # the saved output is now self, at its new version
    if self._base is None:
        _move_retained(self, fn)
        self._grad_fn, self._output_nr, self._requires_grad = fn, 0, False
    else:
        base = self._base
        base_edge = base._edge()
        base_fn = CopySlices(base_edge, self._view_fn, fn)
        _move_retained(base, base_fn)
        base._grad_fn = base_fn
        base._output_nr, base._requires_grad = 0, False
        self._view_version = -1  # rebuild this view's history from the base's new one
    return self


def _move_retained(t, new_fn):
    """retain_grad() follows the tensor to its new history, as PyTorch moves the retains-grad
    hook to the new grad_fn: .grad is the gradient of the current version. (Hooks from
    register_hook stay with the old node.)"""
    if not t._retains_grad:
        return
    old_fn = t._grad_fn
    if old_fn is not None and old_fn._retained:
        old_fn._retained = [e for e in old_fn._retained if e[1] is not t] or None
    new_fn._retained = (new_fn._retained or []) + [(0, t)]


def _write(self, data):
    if data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(data.shape)}"
        )
    if data.dtype != self._data.dtype:
        src, dst = _dtypes._BY_NP[data.dtype], self._dtype
        if _dtypes.category(src) > _dtypes.category(dst):
            raise RuntimeError(
                msg.cannot_cast_result(_dtypes.SCALAR_TYPE_NAME[src], _dtypes.SCALAR_TYPE_NAME[dst])
            )
        data = data.astype(self._data.dtype)
    self._data[...] = data
    _versions.bump_version(self)


def _inplace_binary(fn, ufunc_name=None):
    fn = getattr(fn, "__wrapped__", fn)  # the method runs quietly already (quiet_functions)

    def method(self, other, **kw):
        direct = ufunc_name and not kw and not _overlaps_itself(self._data)
        if direct and _write_directly(self, other, ufunc_name):
            return self
        return _inplace(self, lambda old: fn(old, other, **kw), others=(_tensor_or_none(other),))

    method.__name__ = fn.__name__ + "_"
    return method


def _write_directly(self, other, ufunc_name):
    """The untracked case (an optimizer step under no_grad): compute into self's memory
    with no temporary, as `p -= lr * g` does in NumPy. False when it does not apply."""
    if not self._dtype.is_floating_point:
        return False
    if grad_mode._enabled and (
        self.requires_grad or (isinstance(other, Tensor) and other.requires_grad)
    ):
        return False
    p = _prepare(self, other)
    if p is NotImplemented or p[0] is not self._dtype:
        return False
    b = p[3]
    if getattr(b, "ndim", 0) and np.broadcast_shapes(self._data.shape, b.shape) != self._data.shape:
        return False
    getattr(self._xp, ufunc_name)(self._data, b, out=self._data)
    _versions.bump_version(self)
    return True


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


add_ = _inplace_binary(add, "add")
sub_ = _inplace_binary(sub, "subtract")
mul_ = _inplace_binary(mul, "multiply")
div_ = _inplace_binary(div, "divide")
pow_ = _inplace_binary(pow)


def _inplace_floor_op(out_of_place):
    """y //= 2 and y %= 2: in place, counted and recorded; a NotImplemented node they record
    names the in-place op (aten::floor_divide_), as PyTorch's does."""
    method = _inplace_binary(out_of_place)

    def inplace(self, other):
        out = method(self, other)
        if isinstance(out._grad_fn, NoDerivative):
            out._grad_fn.op += "_"
        return out

    inplace.__name__ = method.__name__
    return inplace


floor_divide_ = _inplace_floor_op(floor_divide)
remainder_ = _inplace_floor_op(remainder)


def _inplace_unary(fn):
    fn = getattr(fn, "__wrapped__", fn)  # the method runs quietly already (quiet_functions)

    def method(self, *args, **kw):
        return _inplace(self, lambda old: fn(old, *args, **kw))

    method.__name__ = fn.__name__ + "_"
    return method


relu_ = _inplace_unary(relu)
exp_ = _inplace_unary(exp)
sigmoid_ = _inplace_unary(sigmoid)
tanh_ = _inplace_unary(tanh)


def clamp_(self, min=None, max=None):  # noqa: A002
    if (min is not None or max is not None) and _clamp_overload(min, max) == "number":
        dtype = _dtypes.result_type(self, *(b for b in (min, max) if b is not None))
        if _dtypes.category(dtype) > _dtypes.category(self._dtype):  # clamp names C++ types
            raise RuntimeError(
                msg.cannot_cast_result(
                    _dtypes.SCALAR_TYPE_NAME[dtype], _dtypes.CPP_NAME[self._dtype]
                )
            )
    return _inplace(self, lambda old: clamp(old, min, max))


class ZeroBackward0(Node):
    def apply(self, g):
        return (array_module(g).zeros_like(g),)


def zero_(self):
    def op(old):
        out = Tensor._make(old._xp.zeros_like(old._data), old._device, old._dtype)
        if _needs_grad(old):
            out._grad_fn = ZeroBackward0((old._edge(),))
        return out

    return _inplace(self, op, overlap_ok=True)


class FillBackward2(ZeroBackward0):
    pass


class FillBackward3(Node):
    """`fill_(value)` with a 0-d tensor: the value gets the sum of the gradient (in its own
    dtype and device); the overwritten elements get none."""

    def __init__(self, edges, value_dtype, value_device):
        super().__init__(edges)
        self.value_dtype, self.value_device = value_dtype, value_device

    def apply(self, g):
        from .._device import to_device_array

        xp = array_module(g)
        gv = None
        if self._next_nodes[1] is not None:
            gv = to_device_array(xp.asarray(g.sum()), self.value_device).astype(self.value_dtype)
        return xp.zeros_like(g), gv


def fill_(self, value):
    value_t = _tensor_or_none(value)
    if value_t is None:
        value = _checked_scalar(value, self._dtype)

    def op(old):
        if value_t is None:
            data = old._xp.full_like(old._data, value)
            node = FillBackward2((old._edge(),)) if _needs_grad(old) else None
        else:
            # A tensor value is an input of the graph (PyTorch's FillBackward3): the value
            # gets the sum of the incoming gradient, the overwritten elements none.
            if value_t._data.ndim:
                raise RuntimeError(msg.FILL_VALUE_DIMS.format(value_t._data.ndim))
            data = old._xp.full_like(old._data, value_t.item())
            node = None
            if _needs_grad(old, value_t):
                edges = (old._edge(), value_t._edge())
                node = FillBackward3(edges, value_t._data.dtype, value_t._device)
        out = Tensor._make(data, old._device, old._dtype)
        out._grad_fn = node
        return out

    # A number fills memory that repeats (PyTorch's fill is idempotent); a 0-d tensor is
    # copied in, and copy_ refuses it.
    return _inplace(self, op, others=(value_t,), overlap_ok=value_t is None)


class CopyBackwards(Node):
    """`dst.copy_(src)`: dst's old values get no gradient; src gets it, reduced and cast."""

    def __init__(self, edges, src_meta, src_device):
        super().__init__(edges)
        self.src_meta, self.src_device = src_meta, src_device

    def apply(self, g):
        from .._device import to_device_array

        xp = array_module(g)
        gsrc = None
        if self._next_nodes[1] is not None:
            gsrc = unbroadcast(to_device_array(g, self.src_device), *self.src_meta)
        return xp.zeros_like(g), gsrc


def copy_(self, src, non_blocking=False):
    if not isinstance(src, (Tensor, *_SCALARS)):
        raise TypeError(msg.copy_not_tensor(src))
    src_t = src if isinstance(src, Tensor) else None
    if src_t is not None and src_t._data.shape != self._data.shape:
        _check_broadcast(self, src_t)
        target = np.broadcast_shapes(self._data.shape, src_t._data.shape)
        if target != self._data.shape:
            raise RuntimeError(msg.output_shape(self._data.shape, target))

    def op(old):
        from .._device import to_device_array

        if src_t is not None:
            data = to_device_array(src_t._data, old._device).astype(old._data.dtype)
        else:
            data = old._xp.asarray(src, dtype=old._data.dtype)
        data = old._xp.broadcast_to(data, old._data.shape).copy()
        out = Tensor._make(data, old._device, old._dtype)
        if _needs_grad(old, src_t):
            meta = _meta(src_t) if src_t is not None else None
            src_device = src_t._device if src_t is not None else old._device
            out._grad_fn = CopyBackwards((old._edge(), _edge(src_t)), meta, src_device)
        return out

    # As PyTorch's copy_: a value is recorded only into a floating-point tensor (an integer
    # tensor filled from one that requires grad stays a plain leaf).
    tracked_src = src_t if self._dtype.is_floating_point else None
    return _inplace(self, op, others=(tracked_src,))


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    src_t = src if isinstance(src, Tensor) else None
    return _inplace(
        self,
        lambda old: scatter(old, dim, index, src, value=value, reduce=reduce, _op="scatter_"),
        (src_t,),
    )


def index_add_(self, dim, index, source, *, alpha=1):
    source_t = source if isinstance(source, Tensor) else None
    return _inplace(
        self,
        lambda old: index_add(old, dim, index, source, alpha=alpha, _op="index_add_"),
        (source_t,),
    )


_RANDOM_PARAMS = {"uniform": (("from", "a"), ("to", "b")), "normal": (("mean",), ("std",))}


def _random_params(kind, args, kwargs):
    """uniform_(from=0, to=1) / normal_(mean=0, std=1), positional or by keyword."""
    names = _RANDOM_PARAMS[kind]
    values = list(args) + [None] * (len(names) - len(args))
    for i, aliases in enumerate(names):
        for name in aliases:
            if name in kwargs:
                values[i] = kwargs[name]
    defaults = (0.0, 1.0)
    return tuple(defaults[i] if v is None else v for i, v in enumerate(values[: len(names)]))


def _random_fill(node_cls, kind, check):
    def method(self, *args, **kwargs):
        strides = self._data.strides if self._device.type == "cpu" else None

        def op(old):
            from ..random import sample

            params = _random_params(kind, args, kwargs)
            check(old._dtype, old._device, *params)  # after autograd's refusals
            shape, dtype = old._data.shape, old._data.dtype
            values = sample(kind, shape, dtype, old._device, *params, strides=strides)
            data = old._xp.asarray(values, dtype=old._data.dtype)
            out = Tensor._make(data, old._device, old._dtype)
            if _needs_grad(old):
                out._grad_fn = node_cls((old._edge(),))
            return out

        return _inplace(self, op)

    return method


def check_uniform(dtype, device, a=0.0, b=1.0):
    """PyTorch's uniform_ checks: floating dtypes only, then from <= to."""
    if not dtype.is_floating_point:
        raise NotImplementedError(msg.not_implemented_for("check_uniform_bounds", dtype))
    if a > b:
        raise RuntimeError(msg.UNIFORM_RANGE.format(msg.cpp_number(a), msg.cpp_number(b)))


def check_normal(dtype, device, mean=0.0, std=1.0):
    """PyTorch's normal_ checks: floating dtypes only, then std >= 0 (NaN fails too)."""
    if not dtype.is_floating_point:
        raise NotImplementedError(msg.not_implemented_for(f"normal_kernel_{device.type}", dtype))
    if not std >= 0.0:
        raise RuntimeError(msg.NORMAL_STD.format(msg.cpp_number(std)))


class UniformBackward0(ZeroBackward0):
    pass


uniform_ = _random_fill(UniformBackward0, "uniform", check_uniform)


class NormalBackward0(ZeroBackward0):
    pass


normal_ = _random_fill(NormalBackward0, "normal", check_normal)


quiet_functions(globals())

METHODS = {
    "add_": add_,
    "sub_": sub_,
    "mul_": mul_,
    "div_": div_,
    "pow_": pow_,
    "floor_divide_": floor_divide_,
    "remainder_": remainder_,
    "__iadd__": add_,
    "__isub__": sub_,
    "__imul__": mul_,
    "__itruediv__": div_,
    "__ipow__": pow_,
    "__ifloordiv__": floor_divide_,
    "__imod__": remainder_,
    "zero_": zero_,
    "fill_": fill_,
    "copy_": copy_,
    "clamp_": clamp_,
    "relu_": relu_,
    "exp_": exp_,
    "sigmoid_": sigmoid_,
    "tanh_": tanh_,
    "uniform_": uniform_,
    "normal_": normal_,
    "scatter_": scatter_,
    "index_add_": index_add_,
}

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import inplace_versions as _versions  # noqa: E402
