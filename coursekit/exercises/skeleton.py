"""The engine every exercise notebook starts from: a small PyTorch look-alike on NumPy or CuPy.

This file is the ONE source of the five assignments' skeletons (see notebook.py). Its cells
call the functions of parts/<topic>.py (the piece a student writes in that topic's
assignment) by their global names at call time, so the skeleton, the given parts and the
student's part only need to live in one namespace: a notebook's globals, or a dict in tests.
The texts of errors and warnings are PyTorch 2.13's, `torch.` prefix included, because the
engine's promise is to be indistinguishable from PyTorch on the course subset.
"""
# ruff: noqa: F821, E501
# F821: names defined by parts/*.py; E501: the messages are PyTorch's, kept on one line each.

# %% [markdown]
# ## The engine you build on
#
# The cells below are a complete, small autograd engine that behaves like PyTorch on the
# course's subset of its API, except for the piece this assignment asks you to write (and
# which the skeleton calls by name). Read them as you need them; you do not have to change
# them. They are organised like PyTorch itself:
#
# 1. **arrays, dtypes and devices**: data lives in a NumPy array on the CPU and in a CuPy
#    array on a GPU; `array_module(device)` picks the library, so no operation ever needs to
#    know which one it runs on;
# 2. **grad mode**: `no_grad`, `enable_grad`, `set_grad_enabled`;
# 3. **the Tensor**: data, autograd state (`requires_grad`, `grad_fn`, `.grad`,
#    `retains_grad`) and a version counter;
# 4. **graph nodes and saved tensors**: one small class per operation, named as PyTorch
#    names it (`MulBackward0`, `CopySlices`, ...);
# 5. **operations**: each computes its result on arrays, then asks `record_history` whether
#    the result joins the graph;
# 6. **views and in-place operations**;
# 7. **the backward pass**: one iterative topological walk;
# 8. **factories, `nn`, `optim`**.

# %% [markdown]
# ### 1. Arrays, dtypes and devices

# %%
import functools
import itertools
import math
import re
import warnings
import weakref

import numpy as np


class device:
    """Where a tensor's data lives: device('cpu'), device('cuda'), device('cuda:0')."""

    def __init__(self, spec, index=None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        kind, _, number = str(spec).partition(":")
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {spec}"
            )
        self.type = kind
        self.index = int(number) if number else index

    def __eq__(self, other):
        try:
            other = device(other)
        except (RuntimeError, TypeError):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")


def as_device(spec):
    """A tensor's device: a GPU is always numbered (cuda -> cuda:0), as in PyTorch."""
    where = device(CPU if spec is None else spec)
    return device("cuda", where.index or 0) if where.type == "cuda" else where


def cupy_or_none():
    try:
        import cupy

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no CuPy, no driver or no GPU: all mean "no CUDA here"
        return None


def array_module(where):
    """The array library holding data on `where`: NumPy on the CPU, CuPy on a GPU."""
    if as_device(where).type == "cpu":
        return np
    cupy = cupy_or_none()
    if cupy is None:
        raise AssertionError(
            "Torch not compiled with CUDA enabled (no CUDA device or no CuPy here)"
        )
    return cupy


def to_host(array):
    """A NumPy array with the values of `array` (a copy only when it lives on a GPU)."""
    return array.get() if hasattr(array, "get") else array


class cuda:
    """`cuda.is_available()`, as `torch.cuda.is_available()`."""

    @staticmethod
    def is_available():
        return cupy_or_none() is not None


def require_gpu():
    """Stop a GPU test where there is no GPU: a skipped check is never a pass."""
    if not cuda.is_available():
        raise AssertionError("not run: no GPU on the grader")


class dtype:
    """A tensor's element type; `name` is PyTorch's, `numpy` the array library's."""

    def __init__(self, name, numpy_name, kind, tensor_type, short):
        self.name, self.numpy, self.kind = name, np.dtype(numpy_name), kind
        self.tensor_type = tensor_type  # FloatTensor, DoubleTensor, ... (used in messages)
        self.short = short  # 'Float', 'Double', ... (used in messages)
        self.is_floating_point = kind == "f"
        self.itemsize = self.numpy.itemsize

    def __repr__(self):
        return f"torch.{self.name}"


float16 = dtype("float16", "float16", "f", "HalfTensor", "Half")
float32 = dtype("float32", "float32", "f", "FloatTensor", "Float")
float64 = double = dtype("float64", "float64", "f", "DoubleTensor", "Double")
int32 = dtype("int32", "int32", "i", "IntTensor", "Int")
int64 = long = dtype("int64", "int64", "i", "LongTensor", "Long")
bool_ = dtype("bool", "bool", "b", "BoolTensor", "Bool")
DTYPES = {d.numpy: d for d in (float16, float32, float64, int32, int64, bool_)}
DEFAULT_FLOAT = float32


def dtype_of(array):
    return DTYPES[np.dtype(array.dtype)]


def infer_dtype(value):
    """The dtype PyTorch gives a Python number, a NumPy value or an array."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (np.ndarray, np.generic)):
        return DTYPES[value.dtype]
    if isinstance(value, int):
        return int64
    return DEFAULT_FLOAT


KIND_ORDER = {"b": 0, "i": 1, "f": 2}


def promote(*dtypes):
    """The wider of dtypes of one category (bool < int < float, then by size)."""
    return max(dtypes, key=lambda d: (KIND_ORDER[d.kind], d.itemsize))


def result_dtype(*operands):
    """PyTorch's type promotion: tensors with dimensions decide, then 0-d tensors, then Python
    numbers; a lower group only counts when it brings a higher category (int -> float)."""
    groups = ([], [], [])
    for x in operands:
        if isinstance(x, Tensor):
            groups[0 if x.ndim else 1].append(x.dtype)
        else:
            groups[2].append(infer_dtype(x))
    result = None
    for rank, group in enumerate(groups):
        if not group:
            continue
        candidate = promote(*group)
        if rank == 2 and candidate.kind == "f":
            candidate = DEFAULT_FLOAT
        if result is None or KIND_ORDER[candidate.kind] > KIND_ORDER[result.kind]:
            result = candidate
    return result


class Size(tuple):
    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)


# %% [markdown]
# ### 2. Grad mode
#
# One switch decides whether operations are recorded. The three context managers change it
# for a block; `set_grad_enabled(mode)` also changes it at once when simply called.

# %%
GRAD_MODE = {"enabled": True}


def is_grad_enabled():
    return GRAD_MODE["enabled"]


class set_grad_enabled:
    def __init__(self, mode):
        self.previous = GRAD_MODE["enabled"]
        GRAD_MODE["enabled"] = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        GRAD_MODE["enabled"] = self.previous

    def __call__(self, fn):
        mode = GRAD_MODE["enabled"]
        GRAD_MODE["enabled"] = self.previous  # decorating must not change the mode

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapped


class _GradModeBlock:
    mode = True

    def __enter__(self):
        self.previous = GRAD_MODE["enabled"]
        GRAD_MODE["enabled"] = self.mode

    def __exit__(self, *exc):
        GRAD_MODE["enabled"] = self.previous

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)

        return wrapped


class no_grad(_GradModeBlock):
    mode = False


class enable_grad(_GradModeBlock):
    mode = True


# %% [markdown]
# ### 3. The Tensor
#
# A tensor holds an array (`_data`), where it lives (`_device`) and its autograd state:
#
# - `_requires_grad`: the flag a user sets on a leaf;
# - `_grad_fn`: the node that made it (None for a leaf); set it with `set_grad_fn`;
# - `_grad` and `_retains_grad`: what `.grad` and `.retains_grad` read;
# - `_version_counter`: a `VersionCounter`, possibly shared with other tensors;
# - `_base` and `_view_fn`: for a view, the tensor owning the memory and the function that
#   cuts this view out of the base's array.
#
# `wrap(array, device)` makes a fresh tensor that owns `array`: a leaf that does not require
# grad, with its own version counter.


# %%
class VersionCounter:
    def __init__(self):
        self.value = 0


def wrap(array, where=CPU):
    """A fresh leaf holding `array` (no copy) on device `where`."""
    t = object.__new__(Tensor)
    t._init(array, as_device(where))
    return t


def set_grad_fn(t, node):
    """Make `node` the operation that produced `t` (t becomes a non-leaf)."""
    t._grad_fn = node
    t._grad_fn_version = t._version_counter.value
    if node is not None:
        node._output = weakref.ref(t)


def check_can_require_grad(t, message):
    if not t.dtype.is_floating_point:
        raise RuntimeError(message)


class Tensor:
    """A multi-dimensional array that can record the operations made with it."""

    def __new__(cls, *args, **kwargs):
        return legacy_constructor(cls, float32, *args, **kwargs)

    def _init(self, array, where):
        self._data = array
        self._device = where
        self._requires_grad = False
        self._grad_fn = None
        self._grad_fn_version = 0
        self._grad = None
        self._retains_grad = False
        self._version_counter = VersionCounter()
        self._base = None
        self._view_fn = None
        self._made_in_no_grad = False
        self._accumulator = None

    # -- what a tensor is -----------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @property
    def dtype(self):
        return dtype_of(self._data)

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_contiguous(self):
        return bool(self._data.flags.c_contiguous)

    def data_ptr(self):
        return (
            int(self._data.__array_interface__["data"][0])
            if self._device.type == "cpu"
            else int(self._data.data.ptr)
        )

    # -- autograd state ---------------------------------------------------------------------
    @property
    def grad_fn(self):
        # A view whose base changed in place since its grad_fn was set gets a fresh one that
        # reads its values back out of the base (PyTorch's AsStridedBackward0).
        if self._base is not None and self._grad_fn_version != self._version_counter.value:
            if self._base.requires_grad and not self._made_in_no_grad and is_grad_enabled():
                set_grad_fn(self, AsStridedBackward0(self._base, self._view_fn))
        return self._grad_fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def requires_grad(self):
        if self._base is not None and self._made_in_no_grad:
            return self._base.requires_grad
        return self._requires_grad or self._grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, flag):
        if not self.is_leaf:
            if flag:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD)
        if flag:
            check_can_require_grad(
                self, "only Tensors of floating point and complex dtype can require gradients"
            )
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf:
            if requires_grad:
                return self
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD)
        if requires_grad:
            check_can_require_grad(
                self, "only Tensors of floating point dtype can require gradients"
            )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        return read_grad(self)

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{DTYPE_WORDS[value.dtype.name]}' to a tensor with grad_dtype '{self.dtype.short}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match."
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size '{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
        self._grad = value

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        retain_grad(self)

    @property
    def _version(self):
        return self._version_counter.value

    @property
    def data(self):
        """An alias of the values outside the graph and outside the version counter."""
        return wrap(self._data, self._device)

    @data.setter
    def data(self, new):
        self._data = new._data
        self._device = new._device

    def backward(self, gradient=None, retain_graph=None):
        backward([self], None if gradient is None else [gradient], retain_graph)

    # -- conversions ------------------------------------------------------------------------
    def detach(self):
        return detach_tensor(self)

    def detach_(self):
        return detach_tensor_(self)

    def numpy(self, force=False):
        return tensor_to_numpy(self, force)

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return to_host(self._data).reshape(()).item()

    def tolist(self):
        return to_host(self._data).tolist()

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        if self.dtype.kind != "i" or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar())

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._scalar())

    def _scalar(self):
        """The one value of a one-element tensor as a Python number, warning as PyTorch does."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self.requires_grad:
            warn_once(SCALAR_WITH_GRAD)
        return self.item()

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return format_tensor(self)

    def to(self, *args, **kwargs):
        where, kind, copy = parse_to_arguments(self, *args, **kwargs)
        return convert(self, where, kind, copy)

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def half(self):
        return self.to(float16)

    def long(self):
        return self.to(int64)

    def int(self):
        return self.to(int32)

    def bool(self):
        return self.to(bool_)

    def type_as(self, other):
        return self.to(other.dtype)

    def type(self, kind=None):
        if kind is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + self.dtype.tensor_type
        return self.to(kind)


NON_LEAF_REQUIRES_GRAD = "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
SCALAR_WITH_GRAD = "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\nConsider using tensor.detach() first."
DTYPE_WORDS = {
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "int32": "int",
    "int64": "long int",
    "bool": "bool",
}
WARNED_ONCE = set()


def warn_once(message, category=UserWarning):
    """PyTorch warns some things once per process; so does this engine."""
    if message not in WARNED_ONCE:
        WARNED_ONCE.add(message)
        warnings.warn(message, category, stacklevel=3)


# %% [markdown]
# #### How a tensor prints
#
# `repr` follows PyTorch's printing rules (four decimals, or integers printed as `2.`, or
# scientific notation when the values span a wide range; one width for all elements), then
# adds the suffixes: `device=`, `dtype=`, and `grad_fn=<...>` or `requires_grad=True`.


# %%
def format_tensor(t, prefix="tensor("):
    values = to_host(t._data)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if t.dtype is not float32:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if t.dtype not in (float32, int64, bool_):
            suffixes.append(f"dtype={t.dtype!r}")
        width, style = number_style(values)
        body = nested_text(values, len(prefix), width, style)
    node = t.grad_fn
    if node is not None:
        suffixes.append(f"grad_fn=<{type(node).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    line = len(text) - text.rfind("\n") + 1  # PyTorch measures the last line this way
    for suffix in suffixes:
        if line + len(suffix) + 2 > 80:
            text += ",\n" + " " * len(prefix) + suffix
            line = len(prefix) + len(suffix)
        else:
            text += ", " + suffix
            line += len(suffix) + 2
    return text + ")"


def number_style(values):
    """(width, style) for all elements; style is 'plain', 'int', 'sci' or 'fixed'."""
    if values.dtype.kind != "f":
        return max(len(str(v)) for v in values.reshape(-1).tolist()), "plain"
    shown = values[np.isfinite(values) & (values != 0)].astype(np.float64)
    if shown.size == 0:
        return max(len(number_text(v, 1, "int")) for v in values.reshape(-1).tolist()), "int"
    magnitudes = np.abs(shown)
    with np.errstate(over="ignore", divide="ignore"):
        sci = (
            magnitudes.max() / magnitudes.min() > 1000.0
            or magnitudes.max() > 1.0e8
            or magnitudes.min() < 1.0e-4
        )
    style = "sci" if sci else ("int" if np.all(shown == np.ceil(shown)) else "fixed")
    widths = [len(number_text(v, 1, style)) for v in values.reshape(-1).tolist()]
    return max(widths), style


def number_text(value, width, style):
    if style == "plain":
        text = str(value)
    elif style == "sci":
        text = f"{value:.4e}"
    elif style == "int":
        text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
    else:
        text = f"{value:.4f}"
    return text.rjust(width)


def nested_text(values, indent, width, style):
    if values.ndim == 0:
        return number_text(values.item(), width, style)
    if values.ndim == 1:
        items = [number_text(v, width, style) for v in values.tolist()]
        per_line = max(1, (80 - indent) // (width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [nested_text(values[i], indent + 1, width, style) for i in range(values.shape[0])]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


# %% [markdown]
# ### 4. Graph nodes and saved tensors
#
# A node is one recorded operation. `next_functions` points at the nodes that made its
# inputs: their `grad_fn`, or for a leaf that requires grad its `AccumulateGrad` node, or
# `None` for an input that does not require grad. `backward(grad)` receives the gradient of
# the node's output (an array) and returns one gradient array (or None) per input.
#
# A node that needs an input's values at backward keeps it with `self.save(name, tensor)`
# and reads it back with `self.saved(name)`; both go through `save_for_backward` and
# `unpack_saved`, where PyTorch's checks live. `backward()` frees what nodes saved unless
# asked to keep it (`retain_graph=True`).

# %%
SEQUENCE = itertools.count()


def gradient_edge(t):
    """The node a gradient for `t` flows into: its grad_fn, its AccumulateGrad, or None."""
    if t is None or not isinstance(t, Tensor) or not t.requires_grad:
        return None
    if t.grad_fn is not None:
        return t.grad_fn
    if t._accumulator is None or t._accumulator() is None:
        node = AccumulateGrad(t)
        t._accumulator = weakref.ref(node)
        return node
    return t._accumulator()


class Node:
    def __init__(self, *inputs):
        self.next_functions = tuple((gradient_edge(t), 0) for t in inputs)
        self._input_meta = [
            (t.shape, t.dtype, t.device) if isinstance(t, Tensor) else None for t in inputs
        ]
        self._saved = {}
        self._freed = False
        self._output = None
        self._sequence = next(SEQUENCE)

    def name(self):
        return type(self).__name__

    def save(self, name, t, is_output=False):
        self._saved[name] = save_for_backward(t, self, is_output)

    def saved(self, name):
        """The array of a saved tensor, after PyTorch's checks (freed? changed in place?)."""
        if self._freed:
            raise RuntimeError(BACKWARD_TWICE)
        return unpack_saved(self._saved[name])._data

    def release(self):
        if self._saved:
            self._saved = {}
            self._freed = True

    def backward(self, grad):
        raise NotImplementedError(f"{self.name()}.backward")

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


BACKWARD_TWICE = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward."


class AccumulateGrad(Node):
    """The node of a leaf: it hands the gradient to the leaf (see `deliver_grad`)."""

    def __init__(self, variable):
        super().__init__()
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def backward(self, grad):
        deliver_grad(self.variable, wrap(grad, self.variable.device))
        return ()


class SavedTensor:
    """What a node keeps of a tensor: the tensor and the version it had when it was saved."""

    def __init__(self, tensor, version, node, is_output):
        self.tensor = tensor
        self.version = version
        self.node = node
        self.is_output = is_output


def short_node_name(node):
    """How the version error names an operation: 'Mul' for MulBackward0, 'Clamp1' for
    ClampBackward1; nodes without a generated name keep theirs (torch::autograd::CopySlices)."""
    name = node.name()
    if name.startswith("torch::") or "Backward" not in name:
        return name if name.startswith("torch::") else "torch::autograd::" + name
    return re.sub(r"Backward0$", "", name).replace("Backward", "")


def type_name(t):
    """'torch.FloatTensor', 'torch.cuda.DoubleTensor', ... as PyTorch's messages write it."""
    return ("torch.cuda." if t.is_cuda else "torch.") + t.dtype.tensor_type


# %% [markdown]
# ### 5. Operations
#
# Every differentiable operation follows one pattern: compute the result's array with the
# array library `xp`, wrap it, then call `record_history(result, inputs, make_node)`, which
# decides whether the result joins the graph. `make_node` builds the operation's node only
# when it is needed.


# %%
def xp_of(t):
    return array_module(t.device)


def as_operand(x, like, kind=None):
    """A Python number or array turned into a tensor on `like`'s device (no grad), in dtype
    `kind` (default: the dtype PyTorch infers for it)."""
    if isinstance(x, Tensor):
        return x
    xp = xp_of(like)
    return wrap(xp.asarray(x, dtype=(kind or infer_dtype(x)).numpy), like.device)


def check_same_device(*tensors):
    devices = {str(t.device) for t in tensors if isinstance(t, Tensor) and t.ndim > 0}
    if len(devices) > 1:
        cuda_first = sorted(devices, key=lambda d: d == "cpu")
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {cuda_first[0]} and {cuda_first[1]}!"
        )


def sum_to_shape(grad, shape):
    """Reduce a broadcast gradient back to an input's shape."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def make_result(array, where, inputs, make_node):
    """Wrap an operation's result array and let `record_history` link it to the graph."""
    xp = array_module(where)
    result = wrap(xp.asarray(array), where)
    record_history(result, [t for t in inputs if isinstance(t, Tensor)], make_node)
    return result


def elementwise(fn, a, b, node_cls):
    """a (op) b with broadcasting and type promotion; b may be a Python number, which
    becomes a 0-d operand of the result's dtype (PyTorch's "wrapped number")."""
    kind = result_dtype(a, b)
    check_same_device(a, b)
    xp = xp_of(a)
    if not isinstance(b, Tensor):
        b = wrap(xp.asarray(b, dtype=kind.numpy), a.device)
    x, y = a._data.astype(kind.numpy, copy=False), b._data.astype(kind.numpy, copy=False)
    with np.errstate(all="ignore"):
        out = xp.asarray(fn(xp, x, y)).astype(kind.numpy, copy=False)
    return make_result(out, a.device, [a, b], lambda: node_cls(a, b))


class BinaryNode(Node):
    """A node of `a (op) b`: keeps shapes and dtypes to reduce and cast gradients."""

    def __init__(self, a, b):
        super().__init__(a, b)
        self.a_meta, self.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        self.a_wants, self.b_wants = a.requires_grad, b.requires_grad

    def fit(self, grad, meta):
        if grad is None:
            return None
        return sum_to_shape(grad, meta[0]).astype(meta[1].numpy, copy=False)


class AddBackward0(BinaryNode):
    def backward(self, grad):
        return self.fit(grad, self.a_meta), self.fit(grad, self.b_meta)


class SubBackward0(BinaryNode):
    def backward(self, grad):
        return self.fit(grad, self.a_meta), self.fit(-grad, self.b_meta)


class RsubBackward1(Node):
    def __init__(self, a):
        super().__init__(a)

    def backward(self, grad):
        return (-grad,)


class MulBackward0(BinaryNode):
    def __init__(self, a, b):
        super().__init__(a, b)
        if self.b_wants:
            self.save("self", a)
        if self.a_wants:
            self.save("other", b)

    def backward(self, grad):
        other = self.saved("other") if self.a_wants else None
        da = self.fit(grad * other, self.a_meta) if self.a_wants else None
        db = self.fit(grad * self.saved("self"), self.b_meta) if self.b_wants else None
        return da, db


class DivBackward0(BinaryNode):
    def __init__(self, a, b):
        super().__init__(a, b)
        self.save("other", b)
        if self.b_wants:
            self.save("self", a)

    def backward(self, grad):
        other = self.saved("other")
        da = self.fit(grad / other, self.a_meta) if self.a_wants else None
        db = (
            self.fit(-grad * self.saved("self") / (other * other), self.b_meta)
            if self.b_wants
            else None
        )
        return da, db


class PowBackward0(Node):
    """tensor ** number"""

    def __init__(self, a, exponent):
        super().__init__(a)
        self.exponent = exponent
        self.save("self", a)

    def backward(self, grad):
        x = self.saved("self")
        if self.exponent == 0:
            return (zeros_of(grad),)
        return (grad * self.exponent * x ** (self.exponent - 1),)


class PowBackward1(BinaryNode):
    """tensor ** tensor"""

    def __init__(self, a, b):
        super().__init__(a, b)
        self.save("self", a)
        self.save("exponent", b)

    def backward(self, grad):
        x, e = self.saved("self"), self.saved("exponent")
        with np.errstate(all="ignore"):
            da = grad * e * x ** (e - 1)
            db = grad * x**e * array_module_of(x).log(x)
            db = array_module_of(x).where(x == 0, 0, db)
        return self.fit(da, self.a_meta), self.fit(db, self.b_meta)


class PowBackward2(Node):
    """number ** tensor"""

    def __init__(self, base, t):
        super().__init__(t)
        self.base = base

    def backward(self, grad):
        return (grad * self.saved("result") * math.log(self.base),)


def zeros_of(grad):
    """Zeros like `grad`: +0.0 everywhere (grad * 0 would give -0.0 where grad < 0)."""
    return array_module_of(grad).zeros_like(grad)


def keep_where(mask, grad):
    """The gradient where `mask` holds, +0.0 elsewhere (as PyTorch's threshold backward)."""
    return array_module_of(grad).where(mask, grad, 0).astype(grad.dtype, copy=False)


def array_module_of(array):
    """The library an array (or array scalar) belongs to."""
    return array_module("cuda") if type(array).__module__.startswith("cupy") else np


class NegBackward0(Node):
    def backward(self, grad):
        return (-grad,)


class ReciprocalBackward0(Node):
    def backward(self, grad):
        r = self.saved("result")
        return (-grad * r * r,)


def unary(t, fn, node_cls, saves="self"):
    """fn(t) for a unary op whose node saves its input ('self') or its output ('result')."""
    xp = xp_of(t)
    data = t._data if t.dtype.is_floating_point else t._data.astype(DEFAULT_FLOAT.numpy)
    with np.errstate(all="ignore"):
        out = xp.asarray(fn(xp, data)).astype(data.dtype, copy=False)
    holder = {}

    def make_node():
        node = node_cls(t)
        holder["node"] = node
        if saves == "self":
            node.save("self", t)
        return node

    result = make_result(out, t.device, [t], make_node)
    if saves == "result" and "node" in holder:
        holder["node"].save("result", result, is_output=True)
    return result


class ExpBackward0(Node):
    def backward(self, grad):
        return (grad * self.saved("result"),)


class LogBackward0(Node):
    def backward(self, grad):
        return (grad / self.saved("self"),)


class SqrtBackward0(Node):
    def backward(self, grad):
        with np.errstate(all="ignore"):
            return (grad / (2 * self.saved("result")),)


class TanhBackward0(Node):
    def backward(self, grad):
        y = self.saved("result")
        return (grad * (1 - y * y),)


class SigmoidBackward0(Node):
    def backward(self, grad):
        y = self.saved("result")
        return (grad * y * (1 - y),)


class ReluBackward0(Node):
    def backward(self, grad):
        return (keep_where(self.saved("result") > 0, grad),)


class AbsBackward0(Node):
    def backward(self, grad):
        return (grad * array_module_of(grad).sign(self.saved("self")),)


class SoftplusBackward0(Node):
    def backward(self, grad):
        x = self.saved("self")
        xp = array_module_of(x)
        return (grad / (1 + xp.exp(-x)),)


class ClampBackward1(Node):
    def __init__(self, a, low, high):
        super().__init__(a)
        self.low, self.high = low, high
        self.save("self", a)

    def backward(self, grad):
        x = self.saved("self")
        keep = np.ones_like(x, dtype=bool) if isinstance(x, np.ndarray) else (x == x)
        if self.low is not None:
            keep = keep & (x >= self.low)
        if self.high is not None:
            keep = keep & (x <= self.high)
        return (keep_where(keep, grad),)


def clamp(t, min=None, max=None):
    low, high = min, max
    xp = xp_of(t)
    out = xp.clip(t._data, low, high).astype(t._data.dtype, copy=False)
    return make_result(out, t.device, [t], lambda: ClampBackward1(t, low, high))


def softplus(t, beta=1.0, threshold=20.0):
    return unary(
        t,
        lambda xp, x: xp.where(x * beta > threshold, x, xp.log1p(xp.exp(x * beta)) / beta),
        SoftplusBackward0,
    )


def exp(t):
    return unary(t, lambda xp, x: xp.exp(x), ExpBackward0, saves="result")


def log(t):
    return unary(t, lambda xp, x: xp.log(x), LogBackward0)


def sqrt(t):
    return unary(t, lambda xp, x: xp.sqrt(x), SqrtBackward0, saves="result")


def tanh(t):
    return unary(t, lambda xp, x: xp.tanh(x), TanhBackward0, saves="result")


def sigmoid(t):
    return unary(t, lambda xp, x: 1 / (1 + xp.exp(-x)), SigmoidBackward0, saves="result")


def relu(t):
    return unary(t, lambda xp, x: xp.maximum(x, 0), ReluBackward0, saves="result")


class SumBackward0(Node):
    def __init__(self, a):
        super().__init__(a)
        self.shape = a.shape

    def backward(self, grad):
        return (array_module_of(grad).broadcast_to(grad, self.shape).copy(),)


class SumBackward1(Node):
    def __init__(self, a, dims, keepdim, scale=1):
        super().__init__(a)
        self.shape, self.dims, self.keepdim, self.scale = a.shape, dims, keepdim, scale

    def backward(self, grad):
        xp = array_module_of(grad)
        if not self.keepdim:
            grad = xp.expand_dims(grad, self.dims)
        return (xp.broadcast_to(grad * self.scale, self.shape).copy(),)


class MeanBackward0(SumBackward0):
    def backward(self, grad):
        return (
            array_module_of(grad).broadcast_to(grad / math.prod(self.shape), self.shape).copy(),
        )


class MeanBackward1(SumBackward1):
    pass


def normalise_dims(dim, ndim):
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(sorted(d % max(ndim, 1) for d in dims))


def reduce_sum(t, dim=None, keepdim=False, mean=False):
    xp = xp_of(t)
    data = t._data
    if not data.dtype.kind == "f" and not mean:
        data = data.astype(np.int64)
    if dim is None:
        out = data.mean() if mean else data.sum()
        out = xp.asarray(out).astype(
            data.dtype if mean or data.dtype.kind == "f" else np.int64, copy=False
        )
        node_cls = MeanBackward0 if mean else SumBackward0
        return make_result(out, t.device, [t], lambda: node_cls(t))
    dims = normalise_dims(dim, t.ndim)
    out = data.mean(axis=dims, keepdims=keepdim) if mean else data.sum(axis=dims, keepdims=keepdim)
    scale = 1 / math.prod(t.shape[d] for d in dims) if mean else 1
    node_cls = MeanBackward1 if mean else SumBackward1
    return make_result(
        xp.asarray(out).astype(out.dtype, copy=False),
        t.device,
        [t],
        lambda: node_cls(t, dims, keepdim, scale),
    )


class MaxBackward1(Node):
    """max() / min() of all elements: the gradient is shared among the tied elements."""

    def __init__(self, a, value):
        super().__init__(a)
        self.value = value
        self.save("self", a)

    def backward(self, grad):
        x = self.saved("self")
        hits = x == self.value
        return (grad * hits / hits.sum(),)


class MinBackward1(MaxBackward1):
    pass


class MaxBackward0(Node):
    """max(dim) / min(dim): the gradient goes to the chosen index."""

    def __init__(self, a, dim, keepdim, indices):
        super().__init__(a)
        self.shape, self.dim, self.keepdim, self.indices = a.shape, dim, keepdim, indices

    def backward(self, grad):
        xp = array_module_of(grad)
        out = xp.zeros(self.shape, dtype=grad.dtype)
        idx = self.indices if self.keepdim else xp.expand_dims(self.indices, self.dim)
        g = grad if self.keepdim else xp.expand_dims(grad, self.dim)
        xp.put_along_axis(out, idx, g, axis=self.dim)
        return (out,)


class MinBackward0(MaxBackward0):
    pass


class MaxResult(tuple):
    """(values, indices) of max(dim) / min(dim), with names as in PyTorch."""

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])


def extreme(t, dim=None, keepdim=False, largest=True):
    xp = xp_of(t)
    pick = xp.max if largest else xp.min
    if dim is None:
        value = xp.asarray(pick(t._data))
        node_cls = MaxBackward1 if largest else MinBackward1
        return make_result(value, t.device, [t], lambda: node_cls(t, value))
    dim = dim % t.ndim
    indices = (xp.argmax if largest else xp.argmin)(t._data, axis=dim)
    if keepdim:
        indices = xp.expand_dims(indices, dim)
    values = xp.take_along_axis(
        t._data, indices if keepdim else xp.expand_dims(indices, dim), axis=dim
    )
    if not keepdim:
        values = values.squeeze(dim)
    node_cls = MaxBackward0 if largest else MinBackward0
    result = make_result(values, t.device, [t], lambda: node_cls(t, dim, keepdim, indices))
    return MaxResult((result, wrap(indices.astype(np.int64), t.device)))


class MmBackward0(BinaryNode):
    def __init__(self, a, b):
        super().__init__(a, b)
        if self.b_wants:
            self.save("self", a)
        if self.a_wants:
            self.save("mat2", b)

    def backward(self, grad):
        da = grad @ self.saved("mat2").T if self.a_wants else None
        db = self.saved("self").T @ grad if self.b_wants else None
        return da, db


class DotBackward0(BinaryNode):
    def __init__(self, a, b):
        super().__init__(a, b)
        if self.b_wants:
            self.save("self", a)
        if self.a_wants:
            self.save("tensor", b)

    def backward(self, grad):
        da = grad * self.saved("tensor") if self.a_wants else None
        db = grad * self.saved("self") if self.b_wants else None
        return da, db


class MvBackward0(BinaryNode):
    def __init__(self, a, b):
        super().__init__(a, b)
        if self.b_wants:
            self.save("self", a)
        if self.a_wants:
            self.save("vec", b)

    def backward(self, grad):
        xp = array_module_of(grad)
        da = xp.outer(grad, self.saved("vec")) if self.a_wants else None
        db = self.saved("self").T @ grad if self.b_wants else None
        return da, db


def matmul(a, b):
    check_same_device(a, b)
    kind = result_dtype(a, b)
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {DTYPE_WORDS[a.dtype.name]} != {DTYPE_WORDS[b.dtype.name]}"
        )
    xp = xp_of(a)
    out = xp.asarray(xp.matmul(a._data, b._data)).astype(kind.numpy, copy=False)
    if a.ndim == 1 and b.ndim == 1:
        node_cls = DotBackward0
    elif a.ndim == 2 and b.ndim == 1:
        node_cls = MvBackward0
    elif a.ndim == 1 and b.ndim == 2:
        return squeeze(mm(unsqueeze(a, 0), b), 0, node_cls=SqueezeBackward4)
    else:
        node_cls = MmBackward0
    return make_result(out, a.device, [a, b], lambda: node_cls(a, b))


def mm(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{'self' if a.ndim != 2 else 'mat2'} must be a matrix")
    return matmul(a, b)


def where(condition, a, b):
    a = a if isinstance(a, Tensor) else as_operand(a, condition)
    b = b if isinstance(b, Tensor) else as_operand(b, condition)
    kind = result_dtype(a, b)
    xp = xp_of(condition)
    out = xp.where(condition._data, a._data.astype(kind.numpy), b._data.astype(kind.numpy))
    return make_result(out, a.device, [a, b], lambda: WhereBackward0(condition, a, b))


class WhereBackward0(BinaryNode):
    def __init__(self, condition, a, b):
        super().__init__(a, b)
        self.condition = condition._data

    def backward(self, grad):
        zero = zeros_of(grad)
        return self.fit(
            array_module_of(grad).where(self.condition, grad, zero), self.a_meta
        ), self.fit(array_module_of(grad).where(self.condition, zero, grad), self.b_meta)


def compare_op(fn, a, b):
    """Comparisons never require grad (L1): their result is a plain bool tensor."""
    check_same_device(a, b)
    kind = result_dtype(a, b)
    xp = xp_of(a)
    other = b._data if isinstance(b, Tensor) else b
    return wrap(xp.asarray(fn(a._data.astype(kind.numpy), other)), a.device)


def argmax(t, dim=None, keepdim=False):
    xp = xp_of(t)
    if dim is None:
        return wrap(xp.asarray(xp.argmax(t._data), dtype=np.int64), t.device)
    return wrap(xp.asarray(xp.argmax(t._data, axis=dim), dtype=np.int64), t.device)


def mean(t, dim=None, keepdim=False):
    return reduce_sum(t, dim, keepdim, mean=True)


# %% [markdown]
# #### Operators and methods
#
# The Tensor's methods and Python operators are thin wrappers around the functions above.


# %%
def _pow(a, b):
    if isinstance(b, Tensor):
        return elementwise(lambda xp, x, y: x**y, a, b, PowBackward1)
    kind = result_dtype(a, b)
    xp = xp_of(a)
    with np.errstate(all="ignore"):
        out = xp.asarray(a._data.astype(kind.numpy) ** b).astype(kind.numpy, copy=False)
    return make_result(out, a.device, [a], lambda: PowBackward0(a, b))


def _rpow(a, base):
    kind = result_dtype(a, base)
    xp = xp_of(a)
    out = xp.asarray(xp.power(kind.numpy.type(base), a._data.astype(kind.numpy))).astype(
        kind.numpy, copy=False
    )
    holder = {}

    def make_node():
        holder["node"] = PowBackward2(base, a)
        return holder["node"]

    result = make_result(out, a.device, [a], make_node)
    if "node" in holder:
        holder["node"].save("result", result, is_output=True)
    return result


def reciprocal(t):
    return unary(t, lambda xp, x: 1 / x, ReciprocalBackward0, saves="result")


def negate(t):
    return make_result(-t._data, t.device, [t], lambda: NegBackward0(t))


def rsub(t, number):
    kind = result_dtype(t, number)
    out = (kind.numpy.type(number) - t._data.astype(kind.numpy)).astype(kind.numpy, copy=False)
    return make_result(out, t.device, [t], lambda: RsubBackward1(t))


def add(a, b):
    return elementwise(lambda xp, x, y: x + y, a, b, AddBackward0)


def sub(a, b):
    return elementwise(lambda xp, x, y: x - y, a, b, SubBackward0)


def mul(a, b):
    return elementwise(lambda xp, x, y: x * y, a, b, MulBackward0)


def div(a, b):
    if result_dtype(a, b).kind != "f":  # true division of integers (which never require grad)
        a = wrap(a._data.astype(DEFAULT_FLOAT.numpy), a.device)
    return elementwise(lambda xp, x, y: x / y, a, b, DivBackward0)


Tensor.__add__ = Tensor.__radd__ = Tensor.add = lambda self, other: add(self, other)
Tensor.__sub__ = Tensor.sub = lambda self, other: sub(self, other)
Tensor.__rsub__ = lambda self, other: (
    rsub(self, other) if not isinstance(other, Tensor) else sub(other, self)
)
Tensor.__mul__ = Tensor.__rmul__ = Tensor.mul = lambda self, other: mul(self, other)
Tensor.__truediv__ = Tensor.div = lambda self, other: div(self, other)
Tensor.__rtruediv__ = lambda self, other: mul(reciprocal(self), other)
Tensor.__pow__ = Tensor.pow = lambda self, other: _pow(self, other)
Tensor.__rpow__ = lambda self, other: _rpow(self, other)
Tensor.__neg__ = Tensor.neg = lambda self: negate(self)
Tensor.__matmul__ = Tensor.matmul = lambda self, other: matmul(self, other)
Tensor.mm = lambda self, other: mm(self, other)
Tensor.dot = lambda self, other: matmul(self, other)
Tensor.__lt__ = lambda self, other: compare_op(lambda x, y: x < y, self, other)
Tensor.__le__ = lambda self, other: compare_op(lambda x, y: x <= y, self, other)
Tensor.__gt__ = lambda self, other: compare_op(lambda x, y: x > y, self, other)
Tensor.__ge__ = lambda self, other: compare_op(lambda x, y: x >= y, self, other)
Tensor.__eq__ = lambda self, other: compare_op(lambda x, y: x == y, self, other)
Tensor.__ne__ = lambda self, other: compare_op(lambda x, y: x != y, self, other)
Tensor.exp = exp
Tensor.log = log
Tensor.sqrt = sqrt
Tensor.tanh = tanh
Tensor.sigmoid = sigmoid
Tensor.relu = relu
Tensor.abs = lambda self: unary(self, lambda xp, x: xp.abs(x), AbsBackward0)
Tensor.__abs__ = Tensor.abs
Tensor.clamp = clamp
Tensor.sum = lambda self, dim=None, keepdim=False: reduce_sum(self, dim, keepdim)
Tensor.mean = mean
Tensor.max = lambda self, dim=None, keepdim=False: extreme(self, dim, keepdim, largest=True)
Tensor.min = lambda self, dim=None, keepdim=False: extreme(self, dim, keepdim, largest=False)
Tensor.argmax = argmax


# %% [markdown]
# ### 6. Views and in-place operations
#
# A **view** shares its base's memory: its array is cut out of the base's array by a
# function (`_view_fn`), so the same cut applied to a gradient of the base's shape finds the
# view's part of it. Views share the base's version counter (see `share_version`).
#
# An **in-place** operation writes into the tensor's array and bumps the version counter
# (`bump_version`). When the result must be recorded, the tensor's history is rewritten: a
# plain tensor gets the operation's node as its new `grad_fn`; a view of a base that
# requires grad rewrites the **base's** history with a `CopySlices` node (the base's old
# gradient path, with the view's region replaced by the operation's backward), and the view
# then reads its `grad_fn` back out of the base (`AsStridedBackward0`).


# %%
def make_view(source, array, view_fn, make_node):
    """A tensor viewing `array`, which `view_fn` cuts out of `source`'s array."""
    base = source._base if source._base is not None else source
    outer = source._view_fn
    view = wrap(array, source.device)
    view._base = base
    view._view_fn = view_fn if outer is None else (lambda whole: view_fn(outer(whole)))
    share_version(view, source)
    if not is_grad_enabled() and source.requires_grad:
        view._made_in_no_grad = True
    record_history(view, [source], make_node)
    view._grad_fn_version = view._version_counter.value
    return view


class ViewNode(Node):
    """The node of a view: its backward puts the gradient in place inside zeros of the
    source's shape (or reshapes it back)."""

    def __init__(self, source, view_fn):
        super().__init__(source)
        self.source_shape, self.source_dtype = source.shape, source.dtype
        self.view_fn = view_fn

    def backward(self, grad):
        xp = array_module_of(grad)
        whole = xp.zeros(self.source_shape, dtype=grad.dtype)
        region = self.view_fn(whole)
        if region.flags.writeable:
            region[...] = grad
        else:  # an expanded (broadcast) view: sum the gradient of the repeated elements
            whole = (
                sum_to_shape(grad, self.source_shape).astype(grad.dtype).reshape(self.source_shape)
            )
        return (whole,)


def view_node_class(name):
    return type(name, (ViewNode,), {})


ViewBackward0 = view_node_class("ViewBackward0")
SelectBackward0 = view_node_class("SelectBackward0")
SliceBackward0 = view_node_class("SliceBackward0")
TBackward0 = view_node_class("TBackward0")
TransposeBackward0 = view_node_class("TransposeBackward0")
PermuteBackward0 = view_node_class("PermuteBackward0")
UnsqueezeBackward0 = view_node_class("UnsqueezeBackward0")
SqueezeBackward0 = view_node_class("SqueezeBackward0")
SqueezeBackward1 = view_node_class("SqueezeBackward1")
SqueezeBackward4 = view_node_class("SqueezeBackward4")
ExpandBackward0 = view_node_class("ExpandBackward0")
AliasBackward0 = view_node_class("AliasBackward0")


class AsStridedBackward0(ViewNode):
    """The grad_fn a view gets back after its base was changed in place."""

    def __init__(self, base, view_fn):
        super().__init__(base, view_fn)


def view_op(t, view_fn, node_cls):
    array = view_fn(t._data)
    return make_view(t, array, view_fn, lambda: node_cls(t, view_fn))


def infer_shape(shape, numel):
    shape = (
        list(shape[0])
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size))
        else list(shape)
    )
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape[shape.index(-1)] = numel // known if known else 0
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def view(t, *shape):
    shape = infer_shape(shape, t.numel())
    if not t.is_contiguous() and t.ndim > 1:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return view_op(t, lambda a: a.reshape(shape), ViewBackward0)


class UnsafeViewBackward0(Node):
    def __init__(self, source):
        super().__init__(source)
        self.shape = source.shape

    def backward(self, grad):
        return (grad.reshape(self.shape),)


def reshape(t, *shape):
    shape = infer_shape(shape, t.numel())
    if t.is_contiguous() or t.ndim <= 1:
        return view(t, *shape)
    copy = clone(t)  # PyTorch copies a non-contiguous input, then views the copy
    out = make_result(
        copy._data.reshape(shape), t.device, [copy], lambda: UnsafeViewBackward0(copy)
    )
    return out


def transpose(t, dim0, dim1):
    return view_op(t, lambda a: a.swapaxes(dim0, dim1), TransposeBackward0)


def t_(t):
    if t.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {t.ndim}D")
    return view_op(t, lambda a: a.T, TBackward0)


def permute(t, *dims):
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    return view_op(t, lambda a: a.transpose(dims), PermuteBackward0)


def unsqueeze(t, dim):
    dim = dim % (t.ndim + 1)
    return view_op(t, lambda a: a.reshape(a.shape[:dim] + (1,) + a.shape[dim:]), UnsqueezeBackward0)


def squeeze(t, dim=None, node_cls=None):
    if dim is None:
        shape = tuple(s for s in t.shape if s != 1)
        node_cls = node_cls or SqueezeBackward0
    else:
        dim = dim % max(t.ndim, 1)
        shape = tuple(s for i, s in enumerate(t.shape) if i != dim or s != 1)
        node_cls = node_cls or SqueezeBackward1
    return view_op(t, lambda a: a.reshape(shape), node_cls)


def expand(t, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    full = tuple(t.shape[i - (len(sizes) - t.ndim)] if s == -1 else s for i, s in enumerate(sizes))
    return view_op(t, lambda a: array_module_of(a).broadcast_to(a, full), ExpandBackward0)


def flatten(t):
    return reshape(t, -1) if t.ndim != 1 else view(t, -1) if t.ndim else reshape(t, 1)


class CloneBackward0(Node):
    def backward(self, grad):
        return (grad,)


def clone(t):
    return make_result(xp_of(t).array(t._data, copy=True), t.device, [t], lambda: CloneBackward0(t))


def contiguous(t):
    return t if t.is_contiguous() else clone(t)


Tensor.view = view
Tensor.view_as = lambda self, other: view(self, other.shape)
Tensor.reshape = reshape
Tensor.flatten = flatten
Tensor.t = t_
Tensor.T = property(lambda self: permute(self, tuple(reversed(range(self.ndim)))))
Tensor.transpose = transpose
Tensor.permute = permute
Tensor.unsqueeze = unsqueeze
Tensor.squeeze = squeeze
Tensor.expand = expand
Tensor.expand_as = lambda self, other: expand(self, other.shape)
Tensor.clone = clone
Tensor.contiguous = contiguous


# %% [markdown]
# #### Indexing
#
# Integers, slices, `None` and `...` make views, one step per index as in PyTorch (`a[0, 1]`
# is a select of a select); a full slice `:` is skipped. An integer or boolean index tensor
# (or list) makes a copy (`IndexBackward0`).


# %%
def split_index(index):
    if not isinstance(index, tuple):
        index = (index,)
    return index


def is_advanced(item):
    return isinstance(item, (Tensor, list, np.ndarray)) or (isinstance(item, (bool, np.bool_)))


def expand_ellipsis(index, ndim):
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    out = []
    for item in index:
        if item is Ellipsis:
            out.extend([slice(None)] * (ndim - used))
        else:
            out.append(item)
    return out


def getitem(t, index):
    index = split_index(index)
    if any(is_advanced(i) for i in index):
        return advanced_getitem(t, index)
    result, dim = t, 0
    for item in expand_ellipsis(index, t.ndim):
        if item is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif isinstance(item, slice):
            size = result.shape[dim]
            start, stop, step = item.indices(size)
            if (start, stop, step) != (0, size, 1):
                cut = (slice(None),) * dim + (slice(start, stop, step),)
                result = view_op(result, lambda a, cut=cut: a[cut], SliceBackward0)
            dim += 1
        else:
            i = int(item)
            size = result.shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
            cut = (slice(None),) * dim + (i % size, Ellipsis)
            result = view_op(result, lambda a, cut=cut: a[cut], SelectBackward0)
    if result is t:
        result = view_op(t, lambda a: a[...], AliasBackward0)
    return result


def index_arrays(t, index):
    """NumPy's form of an index holding integer/boolean tensors or lists."""
    out = []
    for item in index:
        if isinstance(item, Tensor):
            out.append(item._data)
        elif isinstance(item, list):
            out.append(np.asarray(item) if t.device.type == "cpu" else xp_of(t).asarray(item))
        else:
            out.append(item)
    return tuple(out)


class IndexBackward0(Node):
    def __init__(self, t, index, index_tensors):
        super().__init__(t)
        self.shape, self.index = t.shape, index
        for i, it in enumerate(index_tensors):
            self.save(f"indices{i}", it)

    def backward(self, grad):
        for name in list(self._saved):
            self.saved(name)  # PyTorch checks the index tensors' versions too
        xp = array_module_of(grad)
        whole = xp.zeros(self.shape, dtype=grad.dtype)
        xp.add.at(whole, self.index, grad) if xp is np else whole.__setitem__(self.index, grad)
        return (whole,)


def advanced_getitem(t, index):
    arrays = index_arrays(t, index)
    out = t._data[arrays]
    tensors = [i for i in index if isinstance(i, Tensor) and i.dtype.kind == "i"]
    return make_result(
        xp_of(t).array(out, copy=True), t.device, [t], lambda: IndexBackward0(t, arrays, tensors)
    )


Tensor.__getitem__ = getitem
Tensor.__setitem__ = lambda self, index, value: setitem(self, index, value)


# %% [markdown]
# #### In-place operations
#
# `inplace(t, compute, others, make_node)` is the one path every in-place operation takes:
# PyTorch's checks (`check_inplace`), the write into `t`'s array, the version bump, and the
# rewriting of history described above. `compute(old)` returns the new values from the old
# ones; the node made by `make_node(old_copy)` describes the operation on the tensor's old
# values (a copy, since the array is about to change).


# %%
def inplace(t, compute, others, make_node):
    others = [o for o in others if isinstance(o, Tensor)]
    check_same_device(t, *others)
    check_inplace(t)
    recording = is_grad_enabled() and (t.requires_grad or any(o.requires_grad for o in others))
    old = xp_of(t).array(t._data, copy=True) if recording else None
    with np.errstate(all="ignore"):
        new = compute(t._data)
    t._data[...] = new
    bump_version(t)
    if recording:
        record_inplace(t, others, lambda: make_node(old))
    return t


def record_inplace(t, others, make_node):
    """Rewrite the history of `t` (just changed in place) to include the operation."""
    if t._base is None or not (
        t._base.requires_grad or t.requires_grad or any(o.requires_grad for o in others)
    ):
        node = make_node()
        set_grad_fn(t, node)
        return
    base = t._base
    node = CopySlices(base, t._view_fn, make_node())
    set_grad_fn(base, node)
    # the view now reads its history back from the base
    t._grad_fn_version = -1


class CopySlices(Node):
    """The base's new history after one of its views changed in place: the view's region
    of the gradient goes through the in-place op's backward, the rest to the old history."""

    def __init__(self, base, view_fn, fn):
        Node.__init__(self, base)
        self.next_functions = self.next_functions + fn.next_functions[1:]
        self.view_fn, self.fn = view_fn, fn

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, grad):
        whole = grad.copy()
        region = self.view_fn(whole)
        grads = self.fn.backward(region.copy())
        region[...] = 0 if grads[0] is None else grads[0]
        return (whole,) + tuple(grads[1:])

    def release(self):
        self.fn.release()
        super().release()


class InplaceNode(Node):
    """The node of an in-place op: inputs (t's old value, others...)."""

    def __init__(self, t, *others, old=None):
        super().__init__(t, *others)
        self.old = old
        self.others = others
        self.meta = [(o.shape, o.dtype) if isinstance(o, Tensor) else None for o in (t, *others)]

    def fit(self, grad, i):
        meta = self.meta[i]
        if meta is None or grad is None:
            return None
        return sum_to_shape(grad, meta[0]).astype(meta[1].numpy, copy=False)


def inplace_binary(name, fn, grads):
    """An in-place arithmetic op `t (op)= other`; grads(grad, old, other) -> (d_self, d_other)."""

    def backward(self, grad):
        other = self.others[0]
        d_self, d_other = grads(grad, self.old, other._data)
        return (self.fit(d_self, 0), self.fit(d_other, 1) if other.requires_grad else None)

    node_cls = type(name, (InplaceNode,), {"backward": backward})

    def method(self, other):
        if result_dtype(self, other).kind == "f" and self.dtype.kind != "f":
            raise RuntimeError(
                f"result type Float can't be cast to the desired output type {self.dtype.short}"
            )
        if not isinstance(other, Tensor):  # a Python number: a 0-d operand of self's dtype
            other = wrap(xp_of(self).asarray(other, dtype=self._data.dtype), self.device)
        return inplace(
            self, lambda a: fn(a, other._data), [other], lambda old: node_cls(self, other, old=old)
        )

    return method


Tensor.add_ = Tensor.__iadd__ = inplace_binary(
    "AddBackward0", lambda a, b: a + b, lambda g, old, b: (g, g)
)
Tensor.sub_ = Tensor.__isub__ = inplace_binary(
    "SubBackward0", lambda a, b: a - b, lambda g, old, b: (g, -g)
)
Tensor.mul_ = Tensor.__imul__ = inplace_binary(
    "MulBackward0", lambda a, b: a * b, lambda g, old, b: (g * b, g * old)
)
Tensor.div_ = Tensor.__itruediv__ = inplace_binary(
    "DivBackward0", lambda a, b: a / b, lambda g, old, b: (g / b, -g * old / (b * b))
)


class InplaceUnary(InplaceNode):
    grad_of = staticmethod(lambda grad, old: grad)

    def backward(self, grad):
        return (self.grad_of(grad, self.old),)


def inplace_unary(name, fn, grad_of):
    node_cls = type(name, (InplaceUnary,), {"grad_of": staticmethod(grad_of)})

    def method(self, *args):
        return inplace(self, lambda a: fn(a, *args), [], lambda old: node_cls(self, old=old))

    return method


Tensor.zero_ = inplace_unary("ZeroBackward0", lambda a: 0, lambda g, old: zeros_of(g))
Tensor.fill_ = inplace_unary(
    "FillBackward2",
    lambda a, value: float(value) if not isinstance(value, Tensor) else value._data,
    lambda g, old: zeros_of(g),
)
Tensor.relu_ = inplace_unary(
    "ReluBackward0",
    lambda a: array_module_of(a).maximum(a, 0),
    lambda g, old: keep_where(old > 0, g),
)
Tensor.clamp_ = inplace_unary(
    "ClampBackward1",
    lambda a, low=None, high=None: array_module_of(a).clip(a, low, high),
    lambda g, old: g,  # replaced per call below
)


def clamp_(self, min=None, max=None):
    low, high = min, max

    def grad_of(g, old):
        keep = (old >= (low if low is not None else -np.inf)) & (
            old <= (high if high is not None else np.inf)
        )
        return keep_where(keep, g)

    node_cls = type("ClampBackward1", (InplaceUnary,), {"grad_of": staticmethod(grad_of)})
    return inplace(
        self,
        lambda a: array_module_of(a).clip(a, low, high),
        [],
        lambda old: node_cls(self, old=old),
    )


Tensor.clamp_ = clamp_


class CopyBackwards(InplaceNode):
    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        source = self.others[0]
        here = "cpu" if isinstance(grad, np.ndarray) else "cuda"
        return (zeros_of(grad), move_array(self.fit(grad, 1), here, source.device))


def copy_(self, src):
    src = as_operand(src, self)
    values = move_array(src._data, src.device, self.device).astype(self._data.dtype, copy=False)
    return inplace(
        self,
        lambda a: values,
        [src] if src.device == self.device else [],
        lambda old: CopyBackwards(self, src, old=old),
    )


def random_fill(sample):
    def method(self, *args, **kwargs):
        return inplace(
            self,
            lambda a: array_module_of(a).asarray(sample(a.shape, *args, **kwargs)),
            [],
            lambda old: InplaceUnary(self, old=old),
        )

    return method


Tensor.copy_ = copy_
Tensor.uniform_ = random_fill(
    lambda shape, low=0.0, high=1.0: RANDOM["rng"].uniform(low, high, shape)
)
Tensor.normal_ = random_fill(
    lambda shape, mean=0.0, std=1.0: RANDOM["rng"].normal(mean, std, shape)
)


class IndexPutBackward0(InplaceNode):
    def __init__(self, t, value, index, old=None):
        super().__init__(t, value, old=old)
        self.index = index

    def backward(self, grad):
        d_self = grad.copy()
        d_self[self.index] = 0
        d_value = grad[self.index]
        return (d_self, self.fit(d_value, 1))


# %% [markdown]
# ### 7. The backward pass
#
# `backward(tensors, grads)` checks its roots as PyTorch does, then walks the graph once in
# topological order: a node runs when all the gradients flowing into it have arrived. After
# a node ran, its saved tensors are freed (unless `retain_graph`). Each node whose output
# tensor still exists hands that tensor the gradient through `deliver_grad` (which decides
# whether the tensor keeps it), and so does each `AccumulateGrad` node for its leaf.


# %%
def root_gradients(tensors, grads):
    out = []
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        g = None if grads is None else grads[i]
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = xp_of(t).ones(t._data.shape, dtype=t._data.dtype)
        else:
            g = as_operand(g, t)
            if g.shape != t.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape of {t.shape}."
                )
            g = xp_of(t).array(g._data, dtype=t._data.dtype, copy=True)
        out.append((gradient_edge(t), g))
    return out


def topological_order(roots):
    """Nodes reachable from `roots`, each with the number of edges pointing at it."""
    pending, stack, seen = {}, [node for node, _ in roots], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for child, _ in node.next_functions:
            if child is not None:
                pending[id(child)] = pending.get(id(child), 0) + 1
                stack.append(child)
    return pending


def run_backward(roots, retain_graph, capture=None):
    """Propagate gradients from `roots` [(node, grad)]. With `capture` ({id(node): None}),
    collect the gradients arriving at those nodes and run no AccumulateGrad (autograd.grad)."""
    pending = topological_order(roots)
    buffers, ready = {}, []
    for node, g in roots:
        if id(node) in buffers:
            buffers[id(node)] = buffers[id(node)] + g
            continue
        buffers[id(node)] = g
        if pending.get(id(node), 0) == 0:
            ready.append(node)
    while ready:
        ready.sort(key=lambda n: n._sequence)
        node = ready.pop()  # the most recently created node first, as in PyTorch
        grad = buffers.pop(id(node), None)
        grads = (None,) * len(node.next_functions)
        if capture is not None and id(node) in capture:
            capture[id(node)] = grad
        if grad is not None and not (capture is not None and isinstance(node, AccumulateGrad)):
            output = node._output() if node._output is not None else None
            if capture is None and output is not None and output._grad_fn is node:
                deliver_grad(output, wrap(grad.copy(), output.device))
            grads = node.backward(grad)
        if not retain_graph:
            node.release()
        for (child, _), g in zip(node.next_functions, grads):
            if child is None:
                continue
            if g is not None:
                buffers[id(child)] = g if id(child) not in buffers else buffers[id(child)] + g
            pending[id(child)] -= 1
            if pending[id(child)] == 0:
                ready.append(child)  # it runs with what arrived (nothing: it only passes on)


def backward(tensors, grads=None, retain_graph=None):
    roots = root_gradients(tensors, grads)
    run_backward(roots, bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, allow_unused=False):
    """autograd.grad: the gradients of `outputs` with respect to `inputs`, leaving .grad alone."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is not None and isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    roots = root_gradients(outputs, grad_outputs)
    targets = [gradient_edge(t) for t in inputs]
    capture = {id(n): None for n in targets if n is not None}
    run_backward(roots, bool(retain_graph), capture)
    results = []
    for t, node in zip(inputs, targets):
        g = None if node is None else capture.get(id(node))
        if g is None and not allow_unused:
            raise RuntimeError(
                "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
            )
        results.append(None if g is None else wrap(g, t.device))
    return tuple(results)


class autograd:
    grad = staticmethod(grad)
    backward = staticmethod(backward)


# %% [markdown]
# ### 8. Factories, `nn` and `optim`

# %%
RANDOM = {"rng": np.random.default_rng(0)}


def manual_seed(seed):
    RANDOM["rng"] = np.random.default_rng(seed)


def move_array(array, source, target):
    """The values of `array` (on device `source`) as an array on device `target`."""
    if as_device(source) == as_device(target):
        return array
    if as_device(target).type == "cpu":
        return to_host(array)
    return array_module(target).asarray(array)


def factory(array, dtype=None, device=None, requires_grad=False):
    """A new leaf from a NumPy array, converted to `dtype` and moved to `device`."""
    where = as_device(device)
    kind = dtype if dtype is not None else dtype_of(array)
    xp = array_module(where)
    t = wrap(xp.asarray(array, dtype=kind.numpy), where)
    if requires_grad:
        check_can_require_grad(
            t, "Only Tensors of floating point and complex dtype can require gradients"
        )
        t._requires_grad = True
    return t


def shape_of(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        return tuple(size[0])
    return tuple(size)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return factory(
        np.zeros(shape_of(size), dtype=(dtype or DEFAULT_FLOAT).numpy), dtype, device, requires_grad
    )


def ones(*size, dtype=None, device=None, requires_grad=False):
    return factory(
        np.ones(shape_of(size), dtype=(dtype or DEFAULT_FLOAT).numpy), dtype, device, requires_grad
    )


def empty(*size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    kind = dtype or infer_dtype(fill_value)
    return factory(np.full(tuple(size), fill_value, dtype=kind.numpy), dtype, device, requires_grad)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    return zeros(
        t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad
    )


def ones_like(t, dtype=None, device=None, requires_grad=False):
    return ones(
        t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad
    )


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return factory(np.eye(n, m, dtype=(dtype or DEFAULT_FLOAT).numpy), dtype, device, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    kind = dtype or (
        DEFAULT_FLOAT if any(isinstance(v, float) for v in (start, end, step)) else int64
    )
    return factory(np.arange(start, end, step, dtype=kind.numpy), dtype, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    return factory(
        np.linspace(start, end, steps, dtype=(dtype or DEFAULT_FLOAT).numpy),
        dtype,
        device,
        requires_grad,
    )


def rand(*size, dtype=None, device=None, requires_grad=False):
    values = RANDOM["rng"].random(shape_of(size))
    return factory(values.astype((dtype or DEFAULT_FLOAT).numpy), dtype, device, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    values = RANDOM["rng"].standard_normal(shape_of(size))
    return factory(values.astype((dtype or DEFAULT_FLOAT).numpy), dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Shares memory when it can (same dtype and device), like PyTorch's as_tensor."""
    if isinstance(data, Tensor):
        return data.to(device=device or data.device, dtype=dtype or data.dtype)
    if (
        isinstance(data, np.ndarray)
        and (dtype is None or dtype.numpy == data.dtype)
        and as_device(device).type == "cpu"
    ):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def legacy_constructor(cls, kind, *args, device=None):
    """Tensor(...), FloatTensor(...): sizes make uninitialised (here zero) tensors of the
    class's dtype, data is copied and converted."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        source = args[0]
        if source.dtype is kind:
            alias = make_view(
                source, source._data, lambda a: a, lambda: AliasBackward0(source, lambda a: a)
            )
            return alias
        return source.to(kind)
    if args and all(isinstance(a, int) for a in args):
        return zeros(*args, dtype=kind, device=device)
    data = args[0] if args else []
    return factory(
        np.asarray(to_host(data._data) if isinstance(data, Tensor) else data), kind, device
    )


def FloatTensor(*args, **kwargs):
    return legacy_constructor(Tensor, float32, *args, **kwargs)


def DoubleTensor(*args, **kwargs):
    return legacy_constructor(Tensor, float64, *args, **kwargs)


def LongTensor(*args, **kwargs):
    return legacy_constructor(Tensor, int64, *args, **kwargs)


def parse_to_arguments(t, *args, device=None, dtype=None, copy=False, non_blocking=False):
    """What `.to(...)` asks for: (device, dtype, copy), each None when unchanged."""
    for arg in args:
        if isinstance(arg, dtype_cls):
            dtype = arg
        elif isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, str) and arg.startswith("torch."):
            dtype = {v.tensor_type: v for v in DTYPES.values()}[arg.rsplit(".", 1)[1]]
        else:
            device = arg
    return (None if device is None else as_device(device)), dtype, copy


dtype_cls = dtype


class Parameter(Tensor):
    """nn.Parameter: a new leaf sharing the data (and version counter) of what it wraps."""

    def __new__(cls, data=None, requires_grad=True):
        data = zeros(0) if data is None else data
        p = object.__new__(cls)
        p._init(data._data, data.device)
        share_version(p, data)
        if requires_grad:
            check_can_require_grad(
                p, "Only Tensors of floating point and complex dtype can require gradients"
            )
        p._requires_grad = bool(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + format_tensor(self)


class Module:
    """nn.Module: keeps Parameters and sub-modules, and converts them in place with .to()."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if params is None:
            raise AttributeError("cannot assign parameters before Module.__init__() call")
        if isinstance(value, Parameter):
            params[name] = value
        elif name in params:
            if value is not None and not isinstance(value, Parameter):
                raise TypeError(
                    f"cannot assign '{type_name(value) if isinstance(value, Tensor) else type(value).__name__}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_parameters", "_modules"):
            entries = self.__dict__.get(table, {})
            if name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def parameters(self):
        for p in self._parameters.values():
            if p is not None:
                yield p
        for m in self._modules.values():
            yield from m.parameters()

    def named_parameters(self):
        for name, p in self._parameters.items():
            yield name, p
        for prefix, m in self._modules.items():
            for name, p in m.named_parameters():
                yield f"{prefix}.{name}", p

    def to(self, *args, **kwargs):
        """Convert every parameter in place: they stay the same leaf objects (V5)."""
        for p in self.parameters():
            where, kind, _ = parse_to_arguments(p, *args, **kwargs)
            if kind is not None and not p.dtype.is_floating_point:
                kind = None
            with no_grad():
                converted = p.data.to(where or p.device, kind or p.dtype)
            if converted._data is not p._data:
                p.data = converted
                bump_version(p)
            if p._grad is not None:
                p._grad = p._grad.to(where or p.device, kind or p.dtype)
        return self

    def cuda(self):
        return self.to("cuda")

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p._grad = None
            elif p._grad is not None:
                p._grad.zero_()

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = Parameter(
            factory(
                RANDOM["rng"].uniform(-bound, bound, (out_features, in_features)),
                dtype or float32,
                device,
            )
        )
        self.bias = (
            Parameter(
                factory(
                    RANDOM["rng"].uniform(-bound, bound, (out_features,)), dtype or float32, device
                )
            )
            if bias
            else None
        )

    def forward(self, x):
        if self.bias is None:
            return matmul(x, self.weight.t())
        if x.ndim == 1:
            return view(addmm(self.bias, view(x, 1, -1), self.weight.t()), -1)
        return addmm(self.bias, x, self.weight.t())


class AddmmBackward0(Node):
    def __init__(self, bias, m1, m2):
        super().__init__(bias, m1, m2)
        self.bias_shape = bias.shape
        self.wants = [t.requires_grad for t in (bias, m1, m2)]
        if self.wants[2]:
            self.save("mat1", m1)
        if self.wants[1]:
            self.save("mat2", m2)

    def backward(self, grad):
        d_bias = sum_to_shape(grad, self.bias_shape) if self.wants[0] else None
        d_m1 = grad @ self.saved("mat2").T if self.wants[1] else None
        d_m2 = self.saved("mat1").T @ grad if self.wants[2] else None
        return d_bias, d_m1, d_m2


def addmm(bias, m1, m2):
    xp = xp_of(m1)
    out = xp.asarray(bias._data + m1._data @ m2._data)
    return make_result(out, m1.device, [bias, m1, m2], lambda: AddmmBackward0(bias, m1, m2))


class ReLU(Module):
    def forward(self, x):
        return relu(x)


class Sequential(Module):
    def __init__(self, *layers):
        super().__init__()
        for i, layer in enumerate(layers):
            self._modules[str(i)] = layer

    def forward(self, x):
        for layer in self._modules.values():
            x = layer(x)
        return x


def mse_loss(input, target):
    return ((input - target) ** 2).mean()


class nn:
    Parameter = Parameter
    Module = Module
    Linear = Linear
    ReLU = ReLU
    Sequential = Sequential

    class functional:
        relu = staticmethod(relu)
        softplus = staticmethod(softplus)
        mse_loss = staticmethod(mse_loss)


class SGD:
    def __init__(self, params, lr):
        self.params = list(params)
        for p in self.params:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        self.lr = lr

    def step(self):
        with no_grad():
            for p in self.params:
                if p.grad is not None:
                    p.add_(p.grad * -self.lr)

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            if set_to_none:
                p._grad = None
            elif p._grad is not None:
                with no_grad():
                    p._grad.zero_()


class optim:
    SGD = SGD
