"""`nn.functional`: relu, softplus, linear, mse_loss, cross_entropy (and log_softmax)."""

import numpy as np

from .. import functions as F
from .. import ops
from ..tensor import Tensor


def relu(input, inplace=False):  # noqa: A002
    return ops.relu_(input) if inplace else ops.relu(input)


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    return ops.softplus(input, beta, threshold)


def linear(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias; on a batch PyTorch records one AddmmBackward0.

    Other shapes are folded to a batch and viewed back, as PyTorch does (ViewBackward0).
    """
    if input._data.ndim != 2 and bias is not None:
        lead = input._data.shape[:-1]
        flat = ops.reshape(input, -1, input._data.shape[-1])
        return ops.view(linear(flat, weight, bias), *lead, weight._data.shape[0])
    wt = weight.t()
    if bias is None:
        return ops.matmul(input, wt)
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


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    diff = input._data - target._data
    sq = diff * diff
    data = sq.mean() if reduction == "mean" else sq.sum() if reduction == "sum" else sq
    out = Tensor._make(ops._arr(data, input._dtype), input._device)
    if ops._needs_grad(input, target):
        node = F.MseLossBackward0((input._edge(), target._edge()), reduction)
        node.save(self=input, target=target)
        out._grad_fn = node
    return out


ops.quiet_functions(globals())
