"""`autograd.Function`: an operation whose forward and backward the user writes, as PyTorch's.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

`Exp.apply(x)` runs `forward` with grad mode off, then records one node, `ExpBackward`, whose
`apply` calls `backward` with the outputs' gradients and checks what it returns as PyTorch's
engine does (one gradient per input, None for a non-tensor one, a shape the input's broadcasts
to, which is then summed down; the input's dtype). The node is the `ctx`: what forward stores
on it (`ctx.k = 3`, the saved tensors) is what backward reads, and `y.grad_fn.k` shows it.

Outputs are wrapped as PyTorch's `_wrap_outputs` wraps them: a returned input becomes a view of
it (in place only through `ctx.mark_dirty`, which rewrites the input's history instead), every
view output refuses later in-place writes, outputs passed to `ctx.mark_non_differentiable`
get no history, and the saved tensors are checked against in-place changes at backward.
"""

import inspect

import numpy as np

from .. import _messages as msg
from .. import seams as _seams
from .._warnings import warn
from . import grad_mode
from .graph import Node, Saved

__all__ = ["Function", "FunctionCtx", "BackwardCFunction"]


class FunctionCtx:
    """What `forward` and `backward` receive as `ctx` (the node itself, see BackwardCFunction)."""

    __slots__ = ()

    def save_for_backward(self, *tensors):
        from ..tensor import Tensor

        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(msg.SAVE_FOR_BACKWARD_TYPE.format(i, msg.type_name(t)))
        self.to_save = tensors

    def mark_dirty(self, *tensors):
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of one `Function.apply` call, named `<Function>Backward` (no number, as
    PyTorch names a Python function's node). Its edges are the tensor inputs' edges."""

    # set by Function's subclass hook: the Function whose backward this node runs
    _forward_cls = None
    materialize_grads = True
    to_save = None
    dirty_tensors = None
    non_differentiable = None

    def __repr__(self):
        return f"<{msg.LIB}.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def __dir__(self):  # no `_saved_<name>` attributes: the saved tensors are numbered
        return sorted(object.__dir__(self))

    @property
    def saved_tensors(self):
        from ..tensor import Tensor

        arrays = self.unpack()  # the freed-graph and version checks, as any node's
        out = []
        for i in range(len(self._saved or ())):
            s = self._saved[i]
            if s is None:
                out.append(None)
            elif s.is_output:
                # an output is kept weakly (it holds this node): a fresh alias, as PyTorch
                # unpacks a saved output into a new tensor object
                t = Tensor._make(arrays[i], self._out_meta[s.nr][2])
                _seams.inplace_versions.share_version(t, _CounterHolder(s.counter))
                t._grad_fn, t._output_nr = self, s.nr
                out.append(t)
            else:
                out.append(s.tensor)
        return tuple(out)

    def apply(self, *grads):
        """The engine's call: the outputs' gradients (arrays or None) -> one per edge."""
        from ..tensor import Tensor

        name = type(self).__name__
        wrapped = []
        for g, meta in zip(grads, self._out_meta):
            if g is None and meta is not None and self.materialize_grads:
                shape, dtype, device = meta
                zeros = Tensor._wrap(_xp_of(device).zeros(shape, dtype=dtype), device)
                zeros._version_counter.value = 1  # PyTorch's zeros: empty, then zero_()
                wrapped.append(zeros)
            else:
                wrapped.append(None if g is None else Tensor._wrap(g, meta[2]))
        result = self._forward_cls.backward(self, *wrapped)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._is_tensor)
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]  # trailing Nones beyond the inputs are allowed
        if len(result) != expected:
            raise RuntimeError(msg.FUNCTION_GRAD_COUNT.format(name, expected, len(result)))
        out = []
        for position, (g, is_tensor) in enumerate(zip(result, self._is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(msg.FUNCTION_GRAD_FOR_NON_TENSOR.format(name, position + 1))
                continue
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(msg.FUNCTION_GRAD_NOT_TENSOR.format(msg.type_name(g)))
            out.append(g)
        return tuple(
            None if g is None else _validate(name, i, g, meta)
            for i, (g, meta) in enumerate(zip(out, self._in_meta))
        )


class _CounterHolder:
    """share_version's source: anything with the counter to share."""

    __slots__ = ("_version_counter",)

    def __init__(self, counter):
        self._version_counter = counter


def _xp_of(device):
    from .._device import xp

    return xp(device)


def _validate(name, index, grad, meta):
    """PyTorch's validate_outputs for one gradient: a shape the input broadcasts to is summed
    down to the input's shape, any other is refused; the dtype becomes the input's."""
    shape, dtype, _device = meta
    data = grad._data
    if data.shape != shape:
        try:
            broadcast = np.broadcast_shapes(shape, data.shape)
        except ValueError:
            broadcast = None
        if broadcast != data.shape:
            raise RuntimeError(
                msg.FUNCTION_GRAD_SHAPE.format(name, index, list(data.shape), list(shape))
            )
        lead = data.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and data.shape[lead + i] != 1
        )
        data = data.sum(axis=axes, keepdims=True).reshape(shape)
    if data.dtype != dtype:
        data = data.astype(dtype)
    return data


class Function:
    """Subclass it with `@staticmethod forward(ctx, *inputs)` and `backward(ctx, *grads)`,
    and call `YourFunction.apply(*inputs)`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(
            f"{cls.__name__}Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": f"{msg.LIB}.autograd.function"},
        )

    def __init__(self, *args, **kwargs):
        warn(msg.FUNCTION_INSTANTIATED.format(type(self)), DeprecationWarning)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(msg.FUNCTION_LEGACY_CALL)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(msg.FUNCTION_NO_FORWARD)

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(msg.FUNCTION_NO_BACKWARD)

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Override it to write `forward` without ctx (PyTorch 2's style): it receives the
        inputs (defaults filled in) and forward's output, and fills ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..tensor import Tensor

        separate = cls.setup_context is not Function.setup_context
        if separate:  # inputs as setup_context sees them: bound, defaults filled in
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            inputs = tuple(bound.arguments.values())
        else:
            inputs = args + tuple(kwargs.values())  # keywords count as inputs, in call order
        tensors = [a for a in inputs if isinstance(a, Tensor)]
        executable = grad_mode._enabled and any(t.requires_grad for t in tensors)
        node = cls._backward_cls([t._edge() for t in tensors] if executable else ())
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in inputs)
        node._is_tensor = tuple(isinstance(a, Tensor) for a in inputs)
        node._in_meta = [(t._data.shape, t._data.dtype, t._device) for t in tensors]
        with grad_mode.no_grad():
            if separate:
                result = cls.forward(*args, **kwargs)
                cls.setup_context(node, inputs, result)
            else:
                result = cls.forward(node, *args, **kwargs)
        single = not isinstance(result, tuple)
        outputs = _wrap_outputs(node, tensors, (result,) if single else result, executable)
        # read once, then dropped, as PyTorch does: kept, they would tie outputs to their node
        node.dirty_tensors = node.non_differentiable = None
        _save(node, outputs)
        return outputs[0] if single else outputs


def _wrap_outputs(node, inputs, outputs, executable):
    """PyTorch's _wrap_outputs: give each tensor output this node as its history."""
    from ..tensor import Tensor

    dirty = node.dirty_tensors or ()
    non_diff = node.non_differentiable or ()
    returned = [o for o in outputs if isinstance(o, Tensor)]
    if any(not any(d is o for o in returned) for d in dirty):
        raise RuntimeError(msg.DIRTY_NOT_RETURNED)
    node._out_meta = []
    node.n_outputs = len(outputs)  # the engine keeps one gradient slot per output
    wrapped = []
    for nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            node._out_meta.append(None)
            wrapped.append(out)
            continue
        node._out_meta.append((out._data.shape, out._data.dtype, out._device))
        is_dirty = any(out is d for d in dirty)
        differentiable = (
            executable and out._dtype.is_floating_point and not any(out is n for n in non_diff)
        )
        if is_dirty:
            _mark_dirty(out)
        elif any(out is t for t in inputs):
            out = _alias_of_input(out)
        if out._base is not None and not is_dirty:
            out._view_flags = "custom"  # PyTorch's CreationMeta::IN_CUSTOM_FUNCTION
        if differentiable:
            out._grad_fn, out._output_nr, out._requires_grad = node, nr, False
            if out._base is not None:
                out._view_version = out._version_counter.value
        wrapped.append(out)
    return tuple(wrapped)


def _mark_dirty(t):
    """An input forward changed in place: its history becomes this node (PyTorch counts one
    more version for it), refused on a leaf that requires grad."""
    if t.requires_grad and t.grad_fn is None and grad_mode._enabled:
        raise RuntimeError(msg.DIRTY_LEAF)
    if t._base is not None and t.requires_grad:
        raise NotImplementedError(
            "mark_dirty on a view of a tensor that requires grad is outside the course subset"
        )
    _seams.inplace_versions.bump_version(t)


def _alias_of_input(t):
    """An input returned as it is becomes a new tensor on the same memory: a view of it when
    grad mode is on (PyTorch's `view_as`), else a plain alias sharing its version."""
    from ..tensor import Tensor

    out = Tensor._make(t._data.view(), t._device, t._dtype)
    _seams.inplace_versions.share_version(out, t)
    if grad_mode._enabled:
        out._base = t._base if t._base is not None else t
        out._view_fn = t._view_fn if t._view_fn is not None else (lambda a: a)
        out._view_version = t._version_counter.value
    return out


def _save(node, outputs):
    """Turn `ctx.save_for_backward(...)` into saved values, now that the outputs are known:
    an output is kept weakly, by its data and version (see graph.Saved)."""
    to_save = node.to_save
    if to_save is None:
        return
    node.to_save = None
    saved = {}
    for i, t in enumerate(to_save):
        if t is None:
            saved[i] = None
            continue
        nr = next((n for n, o in enumerate(outputs) if o is t), None)
        saved[i] = _SavedTensor(t, nr is not None and t._grad_fn is node, nr)
    node._saved = saved


class _SavedTensor(Saved):
    """A Saved that remembers which output it was (for the unpacked alias's output_nr)."""

    __slots__ = ("nr",)

    def __init__(self, tensor, is_output, nr):
        super().__init__(tensor, is_output)
        self.nr = nr
