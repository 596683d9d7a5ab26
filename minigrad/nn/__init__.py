"""`minigrad.nn`: Parameter, Module, Linear, Sequential, ReLU and `functional`."""

from . import functional
from .modules import Linear, Module, ReLU, Sequential
from .parameter import Parameter

__all__ = ["functional", "Linear", "Module", "Parameter", "ReLU", "Sequential"]
