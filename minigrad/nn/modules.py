"""`nn.Module` and the few layers of the course: Linear, Sequential, ReLU."""

import math
import operator
import warnings
from collections import OrderedDict

from .. import _dtypes
from .. import _messages as msg
from ..autograd import grad_mode
from ..ops import unary, views
from ..tensor import Tensor
from . import functional as F
from .parameter import Parameter


class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:  # a subclass that forgot super().__init__()
                raise AttributeError(msg.MODULE_ASSIGN_BEFORE_INIT.format("parameters"))
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{value.type()}' as parameter '{name}' "
                    f"({msg.LIB}.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if "_modules" not in self.__dict__:
                raise AttributeError(msg.MODULE_ASSIGN_BEFORE_INIT.format("module"))
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_modules"):
            if name in d.get(store, ()):
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __call__(self, *args, **kwargs):
        if "_parameters" not in self.__dict__:  # PyTorch's call reads a hook dict first
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute '_backward_hooks'"
            )
        return self.forward(*args, **kwargs)

    def forward(self, *args):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        # As PyTorch: a module registered twice (Sequential(lin, lin), two attributes holding
        # one layer) is visited once, under its first name.
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(
                    memo, prefix + ("." if prefix else "") + name, remove_duplicate
                )

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        # Each parameter once, however many modules or attributes hold it, so that an
        # optimizer steps it once per step, as PyTorch's.
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        memo = set()
        for mprefix, m in modules:
            for name, p in m._parameters.items():
                if p is None or p in memo:
                    continue
                if remove_duplicate:
                    memo.add(p)
                yield mprefix + ("." if mprefix else "") + name, p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_children(self):
        memo = set()
        for name, m in self._modules.items():
            if m is not None and m not in memo:
                memo.add(m)
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.detach_().zero_()

    def to(self, *args, **kwargs):
        """Convert parameters in place: they stay the same leaf objects (PyTorch's V5)."""
        with grad_mode.no_grad():
            for p in self.parameters():
                moved = p.to(*args, **kwargs)
                if moved is not p:
                    p.data = moved
                    if p._grad is not None:
                        p._grad.data = p._grad.to(*args, **kwargs)
        return self

    def cuda(self):
        return self.to("cuda")

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(_dtypes.float32)

    def double(self):
        return self.to(_dtypes.float64)

    def train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for m in self._modules.values():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def state_dict(self, destination=None, prefix=""):
        # Unlike parameters(), PyTorch's state_dict keeps every name a parameter is held under.
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(out, prefix + name + ".")
        return out

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"({k}): " + repr(m).replace("\n", "\n  ") for k, m in self._modules.items()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        from ..factories import empty

        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        self.bias = Parameter(empty(out_features, device=device, dtype=dtype)) if bias else None
        # PyTorch's reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), then the bias
        # uniform in +-1/sqrt(fan_in); the bounds computed as PyTorch computes them, so that
        # the values are PyTorch's bit for bit.
        with grad_mode.no_grad():
            if 0 in self.weight.shape:  # PyTorch's init warns, and leaves the weight as it is
                warnings.warn(msg.ZERO_ELEMENT_INIT, UserWarning, stacklevel=2)
            else:
                gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
                bound = math.sqrt(3.0) * (gain / math.sqrt(in_features))
                self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                bound = 1 / math.sqrt(in_features) if in_features > 0 else 0
                self.bias.uniform_(-bound, bound)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class Tanh(Module):
    def forward(self, x):
        return unary.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return unary.sigmoid(x)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.softmax(x, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return views.flatten(x, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        F._outside_subset(type(self).__name__, size_average=size_average, reduce=reduce)
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, input, target):  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index=-100,
        reduce=None,
        reduction="mean",
        label_smoothing=0.0,
    ):
        super().__init__(size_average, reduce, reduction)
        F._outside_subset("CrossEntropyLoss", weight=weight)
        self.weight = None
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(
            input,
            target,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            modules = tuple(modules[0].items())
        else:
            modules = tuple((str(i), m) for i, m in enumerate(modules))
        for name, m in modules:
            if not isinstance(m, Module):
                raise TypeError(msg.NOT_A_MODULE.format(_typename(m)))
            self._modules[name] = m

    def __getitem__(self, i):
        if isinstance(i, slice):  # a Sequential of the slice, keeping the modules' names
            out = Sequential()
            out._modules.update(list(self._modules.items())[i])
            return out
        size = len(self._modules)
        i = operator.index(i)  # as PyTorch: a str or float index is a TypeError
        if not -size <= i < size:
            raise IndexError(msg.SEQUENTIAL_INDEX.format(i))
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


def _typename(obj):
    from ..optim import _typename

    return _typename(obj)


__all__ = [
    "CrossEntropyLoss",
    "Flatten",
    "Linear",
    "MSELoss",
    "Module",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Tensor",
]
