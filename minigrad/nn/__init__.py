"""`minigrad.nn`: Parameter, Module, Linear, Sequential, ReLU and `functional`."""

from . import functional
from .modules import (
    CrossEntropyLoss,
    Flatten,
    Linear,
    Module,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "CrossEntropyLoss",
    "Flatten",
    "functional",
    "Linear",
    "MSELoss",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
]
