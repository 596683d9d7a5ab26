"""`binary_cross_entropy_with_logits`: its forward as PyTorch's kernel computes it and its node,
BinaryCrossEntropyWithLogitsBackward0, with the gradients of derivatives.yaml for the logits
and the target (weight and pos_weight get none: PyTorch refuses them requiring grad).

    loss = (1 - target) * input - log_weight * log_sigmoid(input),
    log_weight = (pos_weight - 1) * target + 1   (1 without pos_weight),

times weight, then reduced. `(1 - target).mul_(input)` is in place in PyTorch: the loss has the
target's dtype, and an integer target is refused by the in-place cast.
"""

from .. import _messages as msg
from .._device import xp as array_module
from ..autograd import grad_mode
from ..autograd.graph import Node
from ..tensor import Tensor

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _log_sigmoid(xp, x):
    return -(xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x))))


class BinaryCrossEntropyWithLogitsBackward0(Node):
    declared_saved = ("weight", "pos_weight")

    def __init__(self, edges, reduction, device):
        super().__init__(edges)
        self.reduction = reduction
        self.device = device

    @property
    def _saved_reduction(self):
        return self.reduction

    def apply(self, g):
        saved = self.unpack()
        x, t = saved["self"], saved["target"]
        weight, pos_weight = saved.get("weight"), saved.get("pos_weight")
        xp = array_module(self.device)
        sig = 1 / (1 + xp.exp(-x))
        if pos_weight is None:
            grad_input = sig - t
            grad_target = -x
        else:
            pt = pos_weight * t
            grad_input = (pt + 1 - t) * sig - pt
            grad_target = _log_sigmoid(xp, -x) - _log_sigmoid(xp, x) * pos_weight
        scale = g if weight is None else g * weight
        if self.reduction == _REDUCTIONS["mean"]:
            scale = scale / x.size
        grad_input = xp.broadcast_to(grad_input * scale, x.shape)
        grad_target = xp.broadcast_to(grad_target * scale, t.shape)
        return (grad_input, grad_target)


def binary_cross_entropy_with_logits(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
    pos_weight=None,
):
    from . import functional as F

    F._outside_subset("binary_cross_entropy_with_logits", size_average=size_average, reduce=reduce)
    reduction = F._reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(msg.BCE_TARGET_SIZE.format(target.shape, input.shape))
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None and t.requires_grad and grad_mode._enabled:
            raise RuntimeError(msg.NOT_DIFFERENTIABLE.format(name))
    with grad_mode.no_grad():  # PyTorch's sequence of in-place steps, with their checks
        log_sigmoid = Tensor._make(_log_sigmoid(input._xp, input._data), input._device)
        if pos_weight is not None:
            log_sigmoid.mul_((pos_weight - 1).mul(target).add_(1))
        loss = (1 - target).mul_(input).sub_(log_sigmoid)
        if weight is not None:
            loss.mul_(weight)
        if reduction == "mean":
            loss = loss.mean()
        elif reduction == "sum":
            loss = loss.sum()
    out = Tensor._make(loss._data, loss._device, loss._dtype)  # a fresh result, version 0
    if grad_mode._enabled and (input.requires_grad or target.requires_grad):
        node = BinaryCrossEntropyWithLogitsBackward0(
            (input._edge(), target._edge()), _REDUCTIONS[reduction], input._device
        )
        node.save(self=input, target=target, weight=weight, pos_weight=pos_weight)
        out._grad_fn = node
    return out
