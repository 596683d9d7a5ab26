"""`optim.SGD`: plain stochastic gradient descent (with optional momentum/weight decay)."""

from . import _messages as msg
from .autograd import grad_mode


class SGD:
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False):
        params = list(params)
        for p in params:
            if not p.is_leaf:
                raise ValueError(msg.NON_LEAF_OPTIMIZE)
        self.params = params
        self.defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=False,
            foreach=None,
            differentiable=False,
            fused=None,
        )
        self._momentum_buffers = {}

    @property
    def param_groups(self):
        return [dict(params=self.params, **self.defaults)]

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p._grad is not None:
                p._grad.zero_()

    def step(self):
        d = self.defaults
        with grad_mode.no_grad():
            for p in self.params:
                if p._grad is None:
                    continue
                g = p._grad
                if d["weight_decay"]:
                    g = g + p * d["weight_decay"]
                if d["momentum"]:
                    buf = self._momentum_buffers.get(id(p))
                    if buf is None:
                        buf = self._momentum_buffers[id(p)] = g.clone()
                    else:
                        buf.mul_(d["momentum"]).add_(g * (1 - d["dampening"]))
                    g = g + buf * d["momentum"] if d["nesterov"] else buf
                p.sub_(g * d["lr"])

    def __repr__(self):
        lines = [f"{type(self).__name__} (", "Parameter Group 0"]
        for k in sorted(self.defaults):
            lines.append(f"    {k}: {self.defaults[k]}")
        return "\n".join(lines) + "\n)"
