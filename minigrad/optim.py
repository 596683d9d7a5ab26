"""`optim.SGD`, `Adam`, `AdamW`, `RMSprop`, and what they share (`Optimizer`).

As in PyTorch, the hyper-parameters live in `param_groups` (a list of dicts) and `step()`
reads them afresh every time, so `opt.param_groups[0]["lr"] = ...` changes the next step.
"""

import copy
import warnings
from collections import defaultdict
from itertools import chain

import numpy as np

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


class Optimizer:
    """What SGD, Adam and RMSprop share: param_groups, state, zero_grad, step, repr."""

    def __init__(self, params, defaults):
        self.defaults = defaults
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

    def state_dict(self):
        """PyTorch's: each parameter's state under its index (counted across the groups), and
        the groups' settings with the indices in place of the parameters. The state tensors
        are the optimizer's own, not copies."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take the settings and the state of state_dict (from state_dict()), matched to this
        optimizer's parameters by position; state tensors are cast to their parameter's
        dtype and device, except `step`."""
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(msg.OPTIMIZER_LOAD_GROUPS)
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(msg.OPTIMIZER_LOAD_GROUP_SIZE)
        by_index = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in self.param_groups),
            )
        )
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in by_index:
                p = by_index[k]
                state[p] = {key: _cast_state(p, key, value) for key, value in v.items()}
            else:
                state[k] = v
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
        self.state = state
        self.param_groups = saved_groups

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


class SGD(Optimizer):
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
        defaults = dict(
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
        super().__init__(params, defaults)

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


def _cast_state(p, key, value):
    """PyTorch's _process_value_according_to_param_policy: `step` as it is, other tensors to
    the parameter's device (and dtype, for a floating-point parameter)."""
    if key == "step" or not isinstance(value, Tensor):
        return value
    if p.is_floating_point():
        return value.to(dtype=p.dtype, device=p.device)
    return value.to(device=p.device)


def _step_tensor():
    from .factories import tensor

    return tensor(0.0)


class Adam(Optimizer):
    """PyTorch's single-tensor Adam (its default on the CPU), in its order of operations."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _update(self, p, d):
        from .factories import zeros_like

        g = -p._grad if d["maximize"] else p._grad
        state = self.state[p]
        if not state:
            state["step"] = _step_tensor()
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if d["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        beta1, beta2 = d["betas"]
        lr, eps, wd = d["lr"], d["eps"], d["weight_decay"]
        state["step"].add_(1)
        if wd != 0:
            if d["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g + p * wd
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        # lerp_ and addcmul_ as PyTorch's CPU kernels round them: one fused multiply-add each
        if 1 - beta1 < 0.5:
            exp_avg._data[...] = _fma(1 - beta1, g._data - exp_avg._data, exp_avg._data)
        else:  # lerp's other form for a large weight: end - (end - start) * (1 - weight)
            exp_avg._data[...] = _fma(-beta1, g._data - exp_avg._data, g._data)
        exp_avg._version_counter.value += 1
        exp_avg_sq.mul_(beta2)
        weighted = g._data * exp_avg_sq._data.dtype.type(1 - beta2)
        exp_avg_sq._data[...] = _fma(weighted, g._data, exp_avg_sq._data)
        exp_avg_sq._version_counter.value += 1
        step = state["step"].item()
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if d["amsgrad"]:
            best = state["max_exp_avg_sq"]
            best._data[...] = p._xp.maximum(best._data, exp_avg_sq._data)
            best._version_counter.value += 1
            denom = (best.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        p.add_(exp_avg * -step_size / denom)  # addcdiv_: (value * t1) / t2


def _fma(a, b, c):
    """a * b + c rounded once, as the FMA PyTorch's vectorised CPU kernels use (lerp_'s
    explicit one, addcmul_'s contracted by the compiler); in the arrays' dtype. CuPy arrays,
    whose PyTorch counterpart runs other kernels, take the plain expression."""
    from . import random

    if not isinstance(c, np.ndarray):
        return a * b + c
    if c.dtype == np.float32:
        return random.fma32(a, b, c)
    if c.dtype == np.float64:
        return random.fma64(a, b, c)
    return (a * b + c).astype(c.dtype)


class AdamW(Adam):
    """Adam with decoupled weight decay (`p *= 1 - lr * weight_decay` before the step), as
    PyTorch 2.13 defines it: Adam(decoupled_weight_decay=True), weight_decay 1e-2."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )


class RMSprop(Optimizer):
    """PyTorch's single-tensor RMSprop (its default on the CPU), in its order of operations."""

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _update(self, p, d):
        from .factories import zeros_like

        g = -p._grad if d["maximize"] else p._grad
        state = self.state[p]
        if not state:
            state["step"] = _step_tensor()
            state["square_avg"] = zeros_like(p)
            if d["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if d["centered"]:
                state["grad_avg"] = zeros_like(p)
        alpha, eps, lr = d["alpha"], d["eps"], d["lr"]
        state["step"].add_(1)
        if d["weight_decay"] != 0:
            g = g + p * d["weight_decay"]
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).add_(g * g * (1 - alpha))
        if d["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg._data += (g._data - grad_avg._data) * (1 - alpha)
            grad_avg._version_counter.value += 1
            avg = (square_avg - grad_avg * grad_avg).sqrt()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if d["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(d["momentum"]).add_(g / avg)
            p.add_(buf * -lr)
        else:
            p.add_(g / avg * -lr)
