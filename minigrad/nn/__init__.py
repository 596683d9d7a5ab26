"""`minigrad.nn`: Parameter, Module, Linear, Sequential, ModuleList, ReLU, losses, `functional`."""

from . import functional
from .modules import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Flatten,
    Linear,
    Module,
    ModuleList,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Flatten",
    "functional",
    "Linear",
    "MSELoss",
    "Module",
    "ModuleList",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
]
