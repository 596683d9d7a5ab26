"""`minigrad.autograd`: the graph, grad mode, the backward walk and custom Functions."""

from .engine import backward, grad
from .function import Function
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = [
    "backward",
    "grad",
    "Function",
    "enable_grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
