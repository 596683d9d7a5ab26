"""`nn.Module` and the few layers of the course: Linear, Sequential, ModuleList, ReLU, losses."""

import math
import operator
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Iterable, Mapping

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
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
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
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(msg.CHILD_MODULE_TYPE.format(_typename(value), name))
            self._modules[name] = None
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(msg.BUFFER_ASSIGN_TYPE.format(_typename(value), name))
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
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

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(msg.NOT_A_MODULE.format(_typename(module)))
        self._modules[name] = module

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor the module owns that is not a parameter (running statistics, a mask): in
        state_dict() unless persistent=False, moved by .to(); PyTorch's checks, its order."""
        if "_buffers" not in self.__dict__:
            raise AttributeError(msg.MODULE_ASSIGN_BEFORE_INIT.format("buffer"))
        if not isinstance(name, str):
            raise TypeError(msg.BUFFER_NAME_TYPE.format(_typename(name)))
        if "." in name:
            raise KeyError(msg.BUFFER_NAME_DOT)
        if name == "":
            raise KeyError(msg.BUFFER_NAME_EMPTY)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(msg.ATTRIBUTE_EXISTS.format(name))
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(msg.BUFFER_TYPE.format(_typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

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
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def _named_members(self, store, prefix, recurse, remove_duplicate):
        # Each tensor once, however many modules or attributes hold it, so that an
        # optimizer steps a parameter once per step, as PyTorch's.
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        memo = set()
        for mprefix, m in modules:
            for name, t in getattr(m, store).items():
                if t is None or t in memo:
                    continue
                if remove_duplicate:
                    memo.add(t)
                yield mprefix + ("." if mprefix else "") + name, t

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
        """Convert parameters in place: they stay the same leaf objects (PyTorch's V5).
        Buffers are replaced by their converted copies; a dtype applies to floating-point
        ones only, as PyTorch's _apply does."""
        with grad_mode.no_grad():
            for p in self.parameters():
                moved = p.to(*args, **kwargs)
                if moved is not p:
                    p.data = moved
                    if p._grad is not None:
                        p._grad.data = p._grad.to(*args, **kwargs)
            for m in self.modules():
                for name, b in m._buffers.items():
                    if b is not None:
                        m._buffers[name] = _convert_buffer(b, args, kwargs)
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

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        # Unlike parameters(), PyTorch's state_dict keeps every name a parameter is held under.
        out = OrderedDict() if destination is None else destination
        for name, t in self._local_state().items():
            out[prefix + name] = t if keep_vars else t.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=out, prefix=prefix + name + ".", keep_vars=keep_vars)
        return out

    def _local_state(self):
        """This module's own entries of state_dict: parameters, then persistent buffers."""
        local = {k: p for k, p in self._parameters.items() if p is not None}
        for k, b in self._buffers.items():
            if b is not None and k not in self._non_persistent_buffers_set:
                local[k] = b
        return local

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the values of state_dict into the parameters and buffers, in place, with
        PyTorch's report of missing and unexpected keys and of shape mismatches."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(msg.STATE_DICT_TYPE.format(type(state_dict)))
        if assign:
            raise NotImplementedError("load_state_dict(assign=True) is outside the course subset")
        missing, unexpected, errors = [], [], []
        stack = [("", self)]
        while stack:
            prefix, module = stack.pop()
            module._load_local(state_dict, prefix, missing, unexpected, errors)
            children = [(prefix + n + ".", m) for n, m in module._modules.items() if m is not None]
            stack.extend(reversed(children))  # depth first, in registration order
        if strict:
            if unexpected:
                errors.insert(0, msg.UNEXPECTED_KEYS.format(_quoted(unexpected)))
            if missing:
                errors.insert(0, msg.MISSING_KEYS.format(_quoted(missing)))
        if errors:
            raise RuntimeError(msg.LOAD_STATE_DICT.format(type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _load_local(self, state_dict, prefix, missing, unexpected, errors):
        """PyTorch's _load_from_state_dict for this module's own entries."""
        local = self._local_state()
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(msg.LOAD_NOT_TENSOR.format(key, type(value)))
            elif value.shape != param.shape:
                errors.append(msg.LOAD_SIZE_MISMATCH.format(key, value.shape, param.shape))
            else:
                with grad_mode.no_grad():
                    param.copy_(value)
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            head, dot, _ = key[len(prefix) :].partition(".")
            if (dot and head not in self._modules) or (not dot and head not in local):
                unexpected.append(key)

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
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return F.relu(x, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


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


class BCEWithLogitsLoss(_Loss):
    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
    ):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(
            input,
            target,
            self.weight,
            pos_weight=self.pos_weight,
            reduction=self.reduction,
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

    def __setitem__(self, i, module):
        setattr(self, self._key(i), module)

    def __delitem__(self, i):
        keys = list(self._modules)[i] if isinstance(i, slice) else [self._key(i)]
        for key in keys:
            del self._modules[key]
        _renumber(self)

    def _key(self, i):
        """The name of the module at index i, checked as PyTorch's _get_item_by_idx."""
        size = len(self._modules)
        i = operator.index(i)
        if not -size <= i < size:
            raise IndexError(msg.SEQUENTIAL_INDEX.format(i))
        return list(self._modules)[i % size]

    def __len__(self):
        return len(self._modules)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


class ModuleList(Module):
    """A list of modules whose parameters the owner sees (a plain list's are not)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    _key = Sequential._key

    def __getitem__(self, i):
        if isinstance(i, slice):
            return type(self)(list(self._modules.values())[i])
        return self._modules[self._key(i)]

    def __setitem__(self, i, module):
        setattr(self, self._key(i), module)

    __delitem__ = Sequential.__delitem__

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError(msg.MODULE_LIST_EXTEND.format(type(modules).__name__))
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def __repr__(self):
        """PyTorch's: a run of modules with the same repr is written once, `(2-3): 2 x ...`."""
        blocks = []  # [first index, last index, repr]
        for i, m in enumerate(self):
            text = repr(m)
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        if not blocks:
            return type(self).__name__ + "()"
        lines = [
            (f"({a}): " if a == b else f"({a}-{b}): {b - a + 1} x ") + text.replace("\n", "\n  ")
            for a, b, text in blocks
        ]
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"


def _quoted(keys):
    return ", ".join(f'"{k}"' for k in keys)


def _renumber(module):
    """After a deletion the remaining modules are named 0, 1, ... again, as PyTorch does."""
    values = list(module._modules.values())
    object.__setattr__(module, "_modules", OrderedDict((str(i), m) for i, m in enumerate(values)))


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _convert_buffer(b, args, kwargs):
    """buffer.to(...) as Module._apply does it: a dtype only for floating-point buffers."""
    if b.is_floating_point():
        return b.to(*args, **kwargs)
    args = [a for a in args if not isinstance(a, _dtypes.dtype)]
    kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
    return b.to(*args, **kwargs) if args or kwargs else b


def _typename(obj):
    from ..optim import _typename

    return _typename(obj)


__all__ = [
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Flatten",
    "Linear",
    "MSELoss",
    "Module",
    "ModuleList",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Tensor",
]
