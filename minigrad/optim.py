"""`optim.SGD`: plain stochastic gradient descent (with optional momentum/weight decay).

As in PyTorch, the hyper-parameters live in `param_groups` (a list of dicts) and `step()`
reads them afresh every time, so `opt.param_groups[0]["lr"] = ...` changes the next step.
"""

import warnings
from collections import defaultdict

from . import _messages as msg
from .autograd import grad_mode
from .tensor import Tensor


def _typename(obj):
    """torch.typename: `minigrad.FloatTensor` for a tensor, the qualified type name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


class SGD:
    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        # PyTorch's checks, in its order
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        self.defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(msg.SGD_NESTEROV)
        if isinstance(params, Tensor):
            raise TypeError(msg.OPTIMIZER_PARAMS_TENSOR + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError(msg.OPTIMIZER_EMPTY)
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        param_group["params"] = params
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(msg.OPTIMIZER_NOT_TENSOR + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError(msg.NON_LEAF_OPTIMIZE)
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        ids = [id(p) for p in params]
        if len(ids) != len(set(ids)):
            warnings.warn(msg.OPTIMIZER_DUPLICATE_PARAMS, UserWarning, stacklevel=3)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p._grad is not None:
                    p._grad.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:  # read afresh: the user may have changed them
                for p in group["params"]:
                    if p._grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p, d):
        g = -p._grad if d["maximize"] else p._grad
        if d["weight_decay"]:
            g = g + p * d["weight_decay"]
        if d["momentum"]:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.clone()
            else:
                buf.mul_(d["momentum"]).add_(g * (1 - d["dampening"]))
            g = g + buf * d["momentum"] if d["nesterov"] else buf
        p.sub_(g * d["lr"])

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
