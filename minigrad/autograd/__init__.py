"""`minigrad.autograd`: the graph, grad mode and the backward walk."""

from .engine import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["backward", "grad", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]
