"""Assignment 5, devices: `.to()`, a recorded copy across devices and dtypes, and its gradient.

`t.to(...)`, `t.cuda()`, `t.cpu()`, `t.float()`, `t.double()`, `t.type_as(u)` and
`Module.to(...)` all end in `to`: it returns the tensor itself when nothing changes, else a
copy that autograd records (ToCopyBackward0), whose gradient goes back where the source was.

The engine calls these three functions; the exercise `exercises/devices` is where you write
them. In the self-paced edition the bodies below are the reference answers (read them after
you tried); in the class edition they are stubs that say which assignment builds them.

Where the engine calls them:
- `to` is `tensor.to(...)` (`to` in minigrad/ops/copies.py, once it has read the arguments into a
  device, a dtype and the `copy` flag), and so every method above;
- `to_copy` is called by `to` when something changes;
- `to_copy_backward` is ToCopyBackward0's backward (`apply` in minigrad/ops/copies.py), with
  the gradient of the copy as an array.
"""

from .._device import to_device_array
from ..ops._common import _needs_grad
from ..ops.copies import ToCopyBackward0
from ..tensor import Tensor
from . import not_built

# What an exercise notebook imports (`from minigrad.seams.devices import *`) to write these
# functions: the helpers, never the graded functions themselves.
__all__ = ["Tensor", "ToCopyBackward0", "needs_grad", "to_device_array"]


def needs_grad(*tensors):
    """Whether an operation on these tensors is recorded: grad mode on and one of them
    requires grad (numbers and None are ignored)."""
    return _needs_grad(*tensors)


def to(tensor, device, dtype, copy):
    """`tensor.to(device, dtype, copy=copy)`, where a `device` or `dtype` of None means
    unchanged: the tensor itself (the same object, still a leaf if it was one) when neither
    changes and no copy is asked for; else `to_copy(tensor, device, dtype)` (V1)."""
    ### BEGIN SOLUTION
    device = device or tensor._device
    dtype = dtype or tensor._dtype
    if device == tensor._device and dtype is tensor._dtype and not copy:
        return tensor
    return to_copy(tensor, device, dtype)
    ### END SOLUTION


def to_copy(tensor, device, dtype):
    """A copy of `tensor` in new memory on `device` (`to_device_array(array, device)` moves
    an array; it may return the array itself), in `dtype`. It is an operation on `tensor`:
    when one is recorded (`needs_grad`) and the dtype is floating point, the copy's
    `_grad_fn` is `ToCopyBackward0((tensor._edge(),), source dtype, source device)`, so the
    copy of a leaf that requires grad is a non-leaf; a copy to an integer or bool dtype, or
    of a tensor that does not require grad, is a leaf (V1)."""
    ### BEGIN SOLUTION
    data = to_device_array(tensor._data, device)
    data = data.astype(dtype.np) if data.dtype != dtype.np else data.copy()
    out = Tensor._make(data, device, dtype)
    if needs_grad(tensor) and dtype.is_floating_point:
        out._grad_fn = ToCopyBackward0((tensor._edge(),), tensor._dtype, tensor._device)
    return out
    ### END SOLUTION


def to_copy_backward(grad, src_dtype, src_device):
    """ToCopyBackward0's backward: the copy's gradient (an array) returned to the source,
    on the source's device and in its dtype (V2)."""
    ### BEGIN SOLUTION
    return to_device_array(grad, src_device).astype(src_dtype.np, copy=False)
    ### END SOLUTION


def _untracked_copy(tensor, device, dtype):
    """A copy autograd does not record: the engine without assignment 5's rule. Where that
    would show (the source requires grad), it stops instead, naming the assignment."""
    if needs_grad(tensor):
        raise not_built("devices", "to_copy")
    data = to_device_array(tensor._data, device)
    return Tensor._make(data.astype(dtype.np, copy=True), device, dtype)


def _untracked_to(tensor, device, dtype, copy):
    """`.to()` until built: the tensor itself when nothing changes (as PyTorch: the lectures
    compare `t.float() is t`), else a copy autograd does not record."""
    device, dtype = device or tensor._device, dtype or tensor._dtype
    if device == tensor._device and dtype is tensor._dtype and not copy:
        return tensor
    return _untracked_copy(tensor, device, dtype)


# What the class edition's engine does until a student builds these functions: a .to() that
# changes something copies, and a copy autograd would record stops with the assignment's
# name, so that the assignments before this one run; this one's rules fail until it is built.
UNTIL_BUILT = {"to": _untracked_to, "to_copy": _untracked_copy}


# The graded functions and the rules whose scenarios each decides (a test cell for a rule
# binds the student's functions of that rule and keeps the engine's for the others).
GRADED = {
    "to": ("V1",),
    "to_copy": ("V1",),
    "to_copy_backward": ("V2",),
}
