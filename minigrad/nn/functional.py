"""`nn.functional`: relu, softplus, linear, mse_loss, cross_entropy (and log_softmax)."""

import math
import warnings

import numpy as np

from .. import _dtypes, ops
from .. import _messages as msg
from .. import functions as F
from ..tensor import Tensor


def relu(input, inplace=False):  # noqa: A002
    return ops.relu_(input) if inplace else ops.relu(input)


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    return ops.softplus(input, beta, threshold)


def linear(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias; on a batch PyTorch records one AddmmBackward0.

    Other shapes are folded to a batch and viewed back, as PyTorch does (ViewBackward0).
    """
    if input._data.ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(msg.linear_dims(input._data.ndim, weight._data.ndim))
    if input._data.ndim != 2 and bias is not None:
        *lead, k = input._data.shape
        flat = ops.reshape(input, math.prod(lead), k)
        return ops.view(linear(flat, weight, bias), *lead, weight._data.shape[0])
    wt = weight.t()
    if bias is None:
        return ops.matmul(input, wt)
    _check_addmm(bias, input, wt)
    data = input._data @ wt._data + bias._data
    out = Tensor._make(data, input._device, input._dtype)
    if ops._needs_grad(input, weight, bias):
        node = F.AddmmBackward0((bias._edge(), input._edge(), wt._edge()), ops._meta(bias))
        save = {}
        if wt.requires_grad:
            save["mat1"] = input
        if input.requires_grad:
            save["mat2"] = wt
        node.save(**save)
        out._grad_fn = node
    return out


def _check_addmm(bias, mat1, mat2):
    """addmm's checks in PyTorch's order: dtypes (bias first), then mm's, then the bias size."""
    name = _dtypes.SCALAR_TYPE_NAME
    for which, t in (("self", bias), ("mat1", mat1)):
        if t._dtype is not mat2._dtype:
            raise RuntimeError(msg.addmm_dtypes(which, "mat2", name[t._dtype], name[mat2._dtype]))
    ops._check_mm(mat1, mat2)
    out = (mat1._data.shape[0], mat2._data.shape[1])
    try:
        np.broadcast_shapes(bias._data.shape, out)
    except ValueError:
        raise RuntimeError(msg.expand_bias(bias._data.shape, out)) from None


def log_softmax(input, dim):  # noqa: A002
    xp = input._xp
    x = input._data
    shifted = x - x.max(axis=dim, keepdims=True)
    data = shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
    return ops._unary(F.LogSoftmaxBackward0, input, data, result=True, dim=dim)


def nll_loss(input, target, reduction="mean"):  # noqa: A002
    xp = input._xp
    idx = target._data
    picked = input._data[xp.arange(idx.shape[0]), idx]
    total = -picked.sum()
    data = total / idx.shape[0] if reduction == "mean" else total
    out = Tensor._make(
        np.asarray(data, dtype=input._data.dtype) if xp is np else data, input._device
    )
    if ops._needs_grad(input):
        node = F.NllLossBackward0((input._edge(),), reduction, idx.shape[0], input._data.shape[1])
        node.save(target=target)
        out._grad_fn = node
    return out


def cross_entropy(input, target, reduction="mean"):  # noqa: A002
    return nll_loss(log_softmax(input, 1), target, reduction)


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
    ops._check_broadcast(a, b)  # PyTorch's text for shapes that do not broadcast
    shape = np.broadcast_shapes(a._data.shape, b._data.shape)
    return tuple(x if x._data.shape == shape else ops.expand(x, *shape) for x in (a, b))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    if size_average is not None or reduce is not None or weight is not None:
        raise NotImplementedError(
            "mse_loss: size_average, reduce and weight are outside the subset"
        )
    if target.size() != input.size():
        warnings.warn(msg.mse_target_size(target.shape, input.shape), UserWarning, stacklevel=2)
    input, target = _broadcast_pair(input, target)  # noqa: A001
    reduction = _reduction(reduction)
    dtype = _dtypes.result_type(input, target)  # computed in the promoted dtype, as PyTorch does
    if not dtype.is_floating_point:
        name = _dtypes.SCALAR_TYPE_NAME[dtype]
        raise NotImplementedError(f"\"mse_{input._device.type}\" not implemented for '{name}'")
    diff = input._data.astype(dtype.np, copy=False) - target._data.astype(dtype.np, copy=False)
    sq = diff * diff
    data = sq.mean() if reduction == "mean" else sq.sum() if reduction == "sum" else sq
    out = Tensor._make(ops._arr(data, dtype), input._device)
    if ops._needs_grad(input, target):
        node = F.MseLossBackward0((input._edge(), target._edge()), reduction)
        node.save(self=input, target=target)
        out._grad_fn = node
    return out
