"""Assignment 2, detach_numpy: the bridge between tensors and NumPy, where graphs are cut.

The engine calls these four functions; the exercise `exercises/detach_numpy` is where you
write them. In the self-paced edition the bodies below are the reference answers (read them
after you tried); in the class edition they are stubs that say which assignment builds them.

Where the engine calls them:
- `detach` is `tensor.detach()` (the method in minigrad/tensor.py); `tensor()` of a tensor,
  `numpy(force=True)` and pickling use it too;
- `detach_` is `tensor.detach_()` (minigrad/tensor.py; `Module.zero_grad` calls it);
- `numpy` is `tensor.numpy()` and `tensor.numpy(force=True)` (minigrad/tensor.py), and so
  `np.asarray(tensor)` (`Tensor.__array__`);
- `from_numpy` is `minigrad.from_numpy(array)` (minigrad/factories.py), which
  `as_tensor(array)` and NumPy ufuncs applied to a tensor (`Tensor.__array_wrap__`) reach.

`detach` shares the version counter with its own line rather than through
`inplace_versions.share_version`: that one is assignment 3's, which comes later.
"""

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from .._device import CPU
from .._warnings import warn
from ..autograd import grad_mode
from ..tensor import Tensor
from . import not_built  # noqa: F401  (what the class edition's stubs raise)

# What an exercise notebook imports (`from minigrad.seams.detach_numpy import *`) to write
# these functions: the helpers, never the graded functions themselves.
__all__ = ["CPU", "Tensor", "dtype_from_numpy", "grad_mode", "msg", "np", "warn"]


def dtype_from_numpy(np_dtype):
    """The minigrad dtype that stores a NumPy dtype (float64 for np.float64, ...), or
    PyTorch's TypeError for NumPy dtypes outside the course subset."""
    return _dtypes.from_numpy_dtype(np_dtype)


def detach(tensor):
    """`tensor.detach()`: a new tensor outside the graph (a leaf that does not require grad)
    holding the same array (no copy: `Tensor._make(array, device, dtype)`) and sharing the
    source's version counter, so that an in-place change through either is seen by both and
    by any node that saved the source. It is not a view: its `_base` stays None (D2, I1)."""
    ### BEGIN SOLUTION
    out = Tensor._make(tensor._data, tensor._device, tensor._dtype)
    out._version_counter = tensor._version_counter
    return out
    ### END SOLUTION


def detach_(tensor):
    """`tensor.detach_()`: the tensor itself becomes a leaf that does not require grad (no
    `_grad_fn`, `_requires_grad` False) and is returned. A view (`_base` set) cannot be
    detached in place: refused with `msg.DETACH_VIEW_INPLACE` (D2)."""
    ### BEGIN SOLUTION
    if tensor._base is not None:
        raise RuntimeError(msg.DETACH_VIEW_INPLACE)
    tensor._grad_fn = None
    tensor._requires_grad = False
    return tensor
    ### END SOLUTION


def numpy(tensor, force=False):
    """`tensor.numpy(force=...)`: a NumPy array sharing the tensor's memory (a view of its
    own array, so that writes go both ways). Refused, first, for a tensor off the CPU
    (`TypeError`, `msg.numpy_of_device(device)`) unless `force`, which returns the values of
    `tensor.detach().cpu()`; then for a tensor that requires grad while grad mode is on
    (`grad_mode._enabled`: inside `no_grad()` PyTorch allows it), `msg.NUMPY_REQUIRES_GRAD`,
    unless `force` (D1, D3, V4)."""
    ### BEGIN SOLUTION
    if tensor._device.type != "cpu":
        if not force:
            raise TypeError(msg.numpy_of_device(tensor._device))
        return tensor.detach().cpu().numpy()
    if tensor.requires_grad and grad_mode._enabled and not force:
        raise RuntimeError(msg.NUMPY_REQUIRES_GRAD)
    return tensor._data.view()
    ### END SOLUTION


def from_numpy(array):
    """`minigrad.from_numpy(array)`: a leaf on the CPU holding `array` itself (shared memory,
    the array's dtype). Refuses what is not an ndarray (`TypeError: expected np.ndarray (got
    list)`) and arrays with a negative stride (`ValueError`, `msg.NEGATIVE_STRIDES`); warns,
    once per process (`warn(text, once_key=...)`), about a read-only array that the tensor
    could write into anyway: `msg.NON_WRITABLE_NUMPY` (D3)."""
    ### BEGIN SOLUTION
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    if any(s < 0 for s in array.strides):
        raise ValueError(msg.NEGATIVE_STRIDES)
    if not array.flags.writeable:
        warn(msg.NON_WRITABLE_NUMPY, once_key="non-writable-numpy")
    return Tensor._make(array, CPU, dtype_from_numpy(array.dtype))
    ### END SOLUTION


# The graded functions and the rules whose scenarios each decides (a test cell for a rule
# binds the student's functions of that rule and keeps the engine's for the others).
GRADED = {
    "detach": ("D2",),
    "detach_": ("D2",),
    "numpy": ("D1", "D3"),
    "from_numpy": ("D3",),
}
