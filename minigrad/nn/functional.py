"""`nn.functional`: relu, softplus, linear, mse_loss, cross_entropy (and log_softmax)."""

import math
import warnings

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from ..autograd.graph import Node
from ..ops import arithmetic, linalg, reductions, unary, views
from ..ops import inplace as in_place  # `inplace` is F.relu's argument
from ..ops._common import (
    _arr,
    _as_operand,
    _check_broadcast,
    _check_devices,
    _check_kernel_devices,
    _meta,
    _needs_grad,
    _saved_on,
    array_module,
    quiet_functions,
    unbroadcast,
)
from ..ops.linalg import _check_mm, _column_major, _mm_grads
from ..tensor import Tensor


def relu(input, inplace=False):  # noqa: A002
    return in_place.relu_(input) if inplace else unary.relu(input)


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    return unary.softplus(input, beta, threshold)


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


def linear(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias; on a batch PyTorch records one AddmmBackward0.

    Other shapes are folded to a batch and viewed back, as PyTorch does (ViewBackward0).
    """
    for i, (name, t) in enumerate((("input", input), ("weight", weight))):
        if not isinstance(t, Tensor):
            raise TypeError(msg.arg_type("linear", name, i + 1, "Tensor", t))
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(msg.arg_type("linear", "bias", 3, "Tensor", bias))
    if input._data.ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(msg.linear_dims(input._data.ndim, weight._data.ndim))
    if input._data.ndim != 2 and bias is not None:
        if not input._data.flags.c_contiguous:  # PyTorch: matmul, then an in-place add_
            return in_place.add_(linalg.matmul(input, weight.t()), bias)
        *lead, k = input._data.shape
        flat = views.reshape(input, math.prod(lead), k)
        return views.view(linear(flat, weight, bias), *lead, weight._data.shape[0])
    wt = weight.t()
    if bias is None:
        return linalg.matmul(input, wt)
    _check_addmm(bias, input, wt)
    data = input._data @ wt._data + bias._data
    out = Tensor._make(data, input._device, input._dtype)
    if _needs_grad(input, weight, bias):
        col_major = (_column_major(input._data), _column_major(wt._data))
        edges = (bias._edge(), input._edge(), wt._edge())
        node = AddmmBackward0(edges, _meta(bias), col_major)
        save = {}
        if wt.requires_grad:
            save["mat1"] = input
        if input.requires_grad:
            save["mat2"] = wt
        node.save(**save)
        out._grad_fn = node
    return out


def _check_addmm(bias, mat1, mat2):
    """addmm's checks in PyTorch's order: devices, dtypes (bias first), then mm's, then the
    bias size."""
    _check_kernel_devices("addmm", self=bias, mat1=mat1, mat2=mat2)
    name = _dtypes.SCALAR_TYPE_NAME
    for which, t in (("self", bias), ("mat1", mat1)):
        if t._dtype is not mat2._dtype:
            raise RuntimeError(msg.addmm_dtypes(which, "mat2", name[t._dtype], name[mat2._dtype]))
    _check_mm(mat1, mat2)
    out = (mat1._data.shape[0], mat2._data.shape[1])
    try:
        np.broadcast_shapes(bias._data.shape, out)
    except ValueError:
        raise RuntimeError(msg.expand_bias(bias._data.shape, out)) from None


def _softmax_dim(ndim, name="softmax"):
    """PyTorch's `_get_softmax_dim` for a call without `dim` (which warns)."""
    from .._warnings import warn

    warn(msg.SOFTMAX_IMPLICIT_DIM.format(name))
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _softmax_dim(input.dim())
    return unary.softmax(input, dim, dtype=dtype)


def sigmoid(input):  # noqa: A002
    return unary.sigmoid(input)


def tanh(input):  # noqa: A002
    return unary.tanh(input)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _softmax_dim(input.dim(), "log_softmax")
    return unary.log_softmax(input, dim, dtype=dtype)


def one_hot(tensor, num_classes=-1):
    """Each class index as a row of zeros with a 1 at its class (int64, one more dim)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(msg.arg_type("one_hot", "input", 1, "Tensor", tensor))
    if tensor._dtype is not _dtypes.int64:
        raise RuntimeError(msg.ONE_HOT_DTYPE)
    data = tensor._data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError(msg.ONE_HOT_EMPTY)
        num_classes = int(data.max()) + 1
    if data.size and data.min() < 0:
        raise RuntimeError(msg.ONE_HOT_NEGATIVE)
    if data.size and data.max() >= num_classes:
        raise RuntimeError(msg.ONE_HOT_TOO_BIG)
    xp = tensor._xp
    out = Tensor._make((data[..., None] == xp.arange(num_classes)).astype(np.int64), tensor._device)
    if data.size:  # PyTorch fills zeros in place, then scatters the ones: version 2
        _versions.bump_version(out)
        _versions.bump_version(out)
    return out


def _outside_subset(name, **args):
    given = [k for k, v in args.items() if v is not None]
    if given:
        raise NotImplementedError(f"{name}: {', '.join(given)} outside the course subset")


def nll_loss(  # noqa: A002
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    _outside_subset("nll_loss", weight=weight, size_average=size_average, reduce=reduce)
    return _nll_loss(input, target, _reduction(reduction), ignore_index)


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


def _nll_loss(input, target, reduction, ignore_index):  # noqa: A002
    """PyTorch's nll_loss_nd for 1-D (one sample) and 2-D (a batch) log-probabilities, with
    its checks in its order: batch sizes, target dims, target dtype, target values."""
    nd, tshape = input._data.ndim, target._data.shape
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and input._data.shape[0] != (tshape[0] if tshape else 0):
        raise ValueError(msg.nll_batch_size(input._data.shape[0], tshape[0] if tshape else 0))
    if nd > 2:
        raise NotImplementedError("nll_loss of a more than 2-D input is outside the course subset")
    _check_kernel_devices("nll_loss_forward", self=input, target=target)
    if len(tshape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target._dtype is not _dtypes.int64:
        name = _dtypes.SCALAR_TYPE_NAME[target._dtype]
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
    if nd == 1 and tshape and tshape[0] != 1:
        raise ValueError(msg.nll_1d_target(tshape[0]))
    xp = input._xp
    x = input._data if nd == 2 else input._data[None]  # (batch, classes)
    t = target._data.reshape(-1)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= x.shape[1]))
    if bad.any():  # the first bad target, as PyTorch's loop meets it
        raise IndexError(f"Target {int(t[int(bad.argmax())])} is out of bounds.")
    picked = x[xp.arange(t.shape[0]), xp.where(keep, t, 0)]
    losses = xp.where(keep, -picked, xp.zeros_like(picked))
    if reduction == "none":
        data = losses if nd == 2 else losses.reshape(())
    elif reduction == "sum":
        data = losses.sum()
    else:  # the mean over the targets not ignored (nan when there is none, as in PyTorch)
        with np.errstate(invalid="ignore", divide="ignore"):
            data = losses.sum() / keep.sum()
    out = Tensor._make(_arr(data, input._dtype), input._device)
    if _needs_grad(input):
        node = NllLossBackward0((input._edge(),), reduction, ignore_index, input._data.shape)
        node.save(target=target)
        out._grad_fn = node
    return out


def cross_entropy(  # noqa: A002
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    _outside_subset(
        "cross_entropy",
        weight=weight,
        size_average=size_average,
        reduce=reduce,
        label_smoothing=label_smoothing or None,
    )
    reduction = _reduction(reduction)
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:  # class probabilities, as PyTorch assumes
        return _cross_entropy_probabilities(input, target, reduction, ignore_index, class_dim)
    return _nll_loss(log_softmax(input, class_dim), target, reduction, ignore_index)


class DivBackward1(Node):
    """A tensor divided by a C++ Scalar (inside PyTorch's own composite ops)."""

    def __init__(self, edges, other):
        super().__init__(edges)
        self.other = other

    def apply(self, g):
        return (g / self.other,)


def _cross_entropy_probabilities(input, target, reduction, ignore_index, class_dim):  # noqa: A002
    """PyTorch composes this case of ordinary ops (so its graph names them)."""
    if not target._dtype.is_floating_point:
        name = _dtypes.SCALAR_TYPE_NAME[target._dtype]
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {name}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    prod = arithmetic.mul(log_softmax(input, class_dim), target)
    if reduction == "none":
        return arithmetic.neg(reductions.sum(prod, class_dim))
    total = arithmetic.neg(reductions.sum(prod))
    if reduction == "sum":
        return total
    n = input._data.size // input._data.shape[class_dim] if input._data.size else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        data = _arr(total._data / n, total._dtype) if n else total._data * np.nan
    out = Tensor._make(data, total._device)
    if _needs_grad(total):
        out._grad_fn = DivBackward1((total._edge(),), n)  # divided by a C++ Scalar
    return out


def _reduction(reduction):
    """PyTorch's `_Reduction.get_enum`: the reduction's name, checked before any computing."""
    if reduction == "elementwise_mean":
        warnings.warn(msg.ELEMENTWISE_MEAN, UserWarning, stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _broadcast_pair(a, b):
    """torch.broadcast_tensors for two tensors: the ones to expand become ExpandBackward0 views."""
    if a._data.shape == b._data.shape:
        return a, b
    _check_broadcast(a, b)  # PyTorch's text for shapes that do not broadcast
    shape = np.broadcast_shapes(a._data.shape, b._data.shape)
    return tuple(x if x._data.shape == shape else views.expand(x, *shape) for x in (a, b))


class MseLossBackward0(Node):
    def __init__(self, edges, reduction, metas):
        super().__init__(edges)
        self.reduction = reduction
        self.metas = metas  # _meta's of self and target: each gradient's dtype and device

    def apply(self, g):
        s = self.unpack()
        a, b = s["self"], s["target"]  # computed in the output's dtype, returned in each input's
        a_, b_ = a.astype(g.dtype, copy=False), b.astype(g.dtype, copy=False)
        scale = 2.0 / a.size if self.reduction == "mean" else 2.0
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = unbroadcast(g * scale * (a_ - b_), *self.metas[0])
        if self._next_nodes[1] is not None:  # (b - a), not -(a - b): 0., not -0.
            gb = unbroadcast(g * scale * (b_ - a_), *self.metas[1])
        return ga, gb


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    _outside_subset("mse_loss", size_average=size_average, reduce=reduce, weight=weight)
    if target.size() != input.size():
        warnings.warn(msg.mse_target_size(target.shape, input.shape), UserWarning, stacklevel=2)
    input, target = _broadcast_pair(input, target)  # noqa: A001
    reduction = _reduction(reduction)
    dtype = _dtypes.result_type(input, target)  # computed in the promoted dtype, as PyTorch does
    if not dtype.is_floating_point:
        name = _dtypes.SCALAR_TYPE_NAME[dtype]
        raise NotImplementedError(f"\"mse_{input._device.type}\" not implemented for '{name}'")
    device = _check_devices(input, target)  # an elementwise kernel's rule: a 0-d CPU one joins
    diff = _as_operand(input, dtype, device) - _as_operand(target, dtype, device)
    sq = diff * diff
    data = sq.mean() if reduction == "mean" else sq.sum() if reduction == "sum" else sq
    out = Tensor._make(_arr(data, dtype), device)
    if _needs_grad(input, target):
        metas = (_meta(input, device), _meta(target, device))
        node = MseLossBackward0((input._edge(), target._edge()), reduction, metas)
        node.save(self=input, target=target)
        _saved_on(node, device)
        out._grad_fn = node
    return out


quiet_functions(globals())


from ..seams import inplace_versions as _versions  # noqa: E402
from .logits_loss import binary_cross_entropy_with_logits  # noqa: E402, F401  (uses _reduction)
