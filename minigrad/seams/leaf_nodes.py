"""Assignment 1, leaf_nodes: who keeps a gradient, and what reading and setting `.grad` do.

The engine calls these four functions; the exercise `exercises/leaf_nodes` is where you write
them. In the self-paced edition the bodies below are the reference answers (read them after
you tried); in the class edition they are stubs that say which assignment builds them.

Where the engine calls them:
- `read_grad` is `tensor.grad` (the property in minigrad/tensor.py);
- `set_grad` is `tensor.grad = value`;
- `retain_grad` is `tensor.retain_grad()`;
- `accumulate_grad` is called by `backward()` for every leaf that requires grad (from its
  AccumulateGrad node, minigrad/autograd/graph.py) and every non-leaf that retains its grad
  (minigrad/autograd/engine.py), with the gradient as an array.
"""

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from .._warnings import warn
from ..tensor import Tensor
from . import not_built  # noqa: F401  (what the class edition's stubs raise)

# What an exercise notebook imports (`from minigrad.seams.leaf_nodes import *`) to write these
# functions: the helpers, never the graded functions themselves.
__all__ = ["Tensor", "msg", "np", "warn", "cpp_dtype_name", "scalar_type_name"]


def cpp_dtype_name(dtype):
    """How PyTorch's C++ names a dtype in the `.grad` setter's message ("float", "double")."""
    return _dtypes.CPP_NAME[dtype]


def scalar_type_name(dtype):
    """How PyTorch names a dtype's scalar type in messages ("Float", "Double")."""
    return _dtypes.SCALAR_TYPE_NAME[dtype]


def read_grad(tensor):
    """What `tensor.grad` returns: the stored gradient, with PyTorch's warning when a non-leaf
    that does not retain its gradient is read while it has none (L3)."""
    ### BEGIN SOLUTION
    if tensor._grad is None and tensor.grad_fn is not None and not tensor._retains_grad:
        warn(msg.NONLEAF_GRAD_ACCESS)
    return tensor._grad
    ### END SOLUTION


def retain_grad(tensor):
    """`tensor.retain_grad()`: a non-leaf keeps its gradient from now on; a leaf already does
    (nothing changes); refused for a tensor that does not require grad (L4)."""
    ### BEGIN SOLUTION
    if not tensor.requires_grad:
        raise RuntimeError(msg.RETAIN_GRAD_NO_GRAD)
    fn = tensor.grad_fn
    if fn is None or tensor._retains_grad:
        return
    tensor._retains_grad = True
    # the node hands its output's gradient to the tensors registered here during backward
    fn._retained = (fn._retained or []) + [(tensor._output_nr, tensor)]
    ### END SOLUTION


def accumulate_grad(tensor, grad, version=None, retained=False):
    """Add an incoming gradient (an array) into `tensor.grad`, in the tensor's dtype.

    `retained` is True for a non-leaf that retains its gradient, False for a leaf. A leaf
    whose `requires_grad` was turned off after the graph was built gets nothing (L12). A
    leaf's first gradient takes over the engine's buffer; `version` is how many in-place adds
    that buffer saw, None when it is shared with something else (then it is copied, and that
    copy counts as one change). Later gradients of a leaf are added in place, one version
    each (L8, L11). A retained non-leaf's gradient is copied the first time, then summed out
    of place into a new tensor (L12).
    """
    ### BEGIN SOLUTION
    if not retained and not tensor._requires_grad:
        return
    if isinstance(grad, np.generic):  # NumPy turns 0-d results into scalars
        grad = np.asarray(grad)
    if grad.dtype != tensor._data.dtype:
        grad, version = grad.astype(tensor._data.dtype), 0
    if tensor._grad is None or retained:
        if tensor._grad is not None:
            grad, version = tensor._grad._data + grad, 0
        elif retained:
            grad, version = grad.copy(), 0
        elif version is None:
            # PyTorch copies a buffer it cannot take over with copy_() into a fresh tensor:
            # that in-place copy is the new gradient's version 1.
            grad, version = grad.copy(), 1
        tensor._grad = Tensor._make(grad.reshape(tensor._data.shape), tensor._device, tensor._dtype)
        tensor._grad._version_counter.value = version
    else:
        tensor._grad._data += grad
        tensor._grad._version_counter.value += 1
    ### END SOLUTION


def set_grad(tensor, value):
    """`tensor.grad = value`: None, or a tensor of the same dtype, device and shape that is
    not `tensor` itself; anything else refused with PyTorch's message (L13)."""
    ### BEGIN SOLUTION
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(msg.GRAD_NOT_TENSOR.format(msg.type_name(value)))
        if value is tensor:
            raise RuntimeError(msg.GRAD_SELF)
        if value._dtype is not tensor._dtype:
            raise RuntimeError(
                msg.grad_dtype(cpp_dtype_name(value._dtype), scalar_type_name(tensor._dtype))
            )
        if value._device != tensor._device:
            raise RuntimeError(msg.grad_device(value._device, tensor._device))
        if value.shape != tensor.shape:
            raise RuntimeError(msg.grad_size(value.shape, tensor.shape))
    tensor._grad = value
    ### END SOLUTION


# The graded functions and the rules whose scenarios each decides (a test cell for a rule
# binds the student's functions of that rule and keeps the engine's for the others).
GRADED = {
    "read_grad": ("L3",),
    "retain_grad": ("L4",),
    "accumulate_grad": ("L8", "L11", "L12"),
    "set_grad": ("L13",),
}
