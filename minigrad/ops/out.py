"""torch.add, torch.mul and torch.matmul as functions, with `out=`: the result written into
`out` (resized with PyTorch's warning), refused where autograd would need to record it."""

import builtins

from .. import _dtypes
from .. import _messages as msg
from .._warnings import warn
from ..autograd import grad_mode
from ..tensor import Tensor
from ._common import _SCALARS, quiet_functions
from .arithmetic import add, mul
from .linalg import matmul


def _can_cast(src, dst):
    """PyTorch's canCast for an out= tensor: no float into an integer, nothing into bool."""
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return not (dst is _dtypes.bool and src is not _dtypes.bool)


def _into_out(name, result, out, inputs):
    """Write an op's result into `out=` as PyTorch does (resizing it, with its warning)."""
    if not isinstance(out, Tensor):
        raise TypeError(msg.arg_type(name, "out", len(inputs) + 1, "Tensor", out))
    if not _can_cast(result._dtype, out._dtype):
        raise RuntimeError(
            msg.OUT_CANNOT_CAST.format(
                _dtypes.SCALAR_TYPE_NAME[result._dtype], _dtypes.SCALAR_TYPE_NAME[out._dtype]
            )
        )
    data = result._data.astype(out._dtype.np, copy=False)
    if out._data.shape != data.shape:
        if out._data.size:
            warn(msg.out_resized(out._data.shape, data.shape))
        out._data = data.copy() if data is result._data else data
    else:
        out._data[...] = data
    _versions.bump_version(out)
    return out


def _out_variant(name, compute, out, inputs):
    if out is None:
        return compute()
    if grad_mode._enabled and (_requires(out) or builtins.any(_requires(t) for t in inputs)):
        raise RuntimeError(msg.OUT_REQUIRES_GRAD.format(name))
    with grad_mode.no_grad():
        result = compute()
    return _into_out(name, result, out, inputs)


def add_out(input, other, *, alpha=1, out=None):  # noqa: A002
    """torch.add(input, other, alpha=, out=); a number as `input` joins the tensor `other`."""
    _other_readable("add", other)
    if isinstance(input, Tensor):
        return _out_variant("add", lambda: add(input, other, alpha=alpha), out, (input, other))
    if not isinstance(other, Tensor):
        raise TypeError(msg.arg_type("add", "input", 1, "Tensor", input))

    def compute():
        return add(other, input) if alpha == 1 else add(mul(other, alpha), input)

    return _out_variant("add", compute, out, (input, other))


def _other_readable(name, other):
    """torch.add(t, array) and the like: PyTorch's parser refuses what the operator would
    hand back to Python."""
    if not isinstance(other, (Tensor, *_SCALARS)):
        raise TypeError(msg.arg_type(name, "other", 2, "Tensor", other))


def mul_out(input, other, *, out=None):  # noqa: A002
    _other_readable("mul", other)
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise TypeError(msg.arg_type("mul", "input", 1, "Tensor", input))
        input, other = other, input  # noqa: A001
    return _out_variant("mul", lambda: mul(input, other), out, (input, other))


def matmul_out(input, other, *, out=None):  # noqa: A002
    for i, (name, t) in enumerate((("input", input), ("other", other))):
        if not isinstance(t, Tensor):
            raise TypeError(msg.arg_type("matmul", name, i + 1, "Tensor", t))
    return _out_variant("matmul", lambda: matmul(input, other), out, (input, other))


def _requires(t):
    return isinstance(t, Tensor) and t.requires_grad


quiet_functions(globals())

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import inplace_versions as _versions  # noqa: E402
