"""The Tensor: an array (NumPy or CuPy) plus autograd state and a shared version counter.

Autograd state, as in PyTorch:
- a leaf has no `grad_fn`; it may require grad (then `backward()` fills its `.grad`);
- a result of a recorded operation has a `grad_fn` and requires grad;
- views share memory and the version counter with their base; `detach()` shares them too;
  `.data` shares memory only. Every in-place write bumps the counter, and nodes that saved a
  tensor compare versions at backward.

Operations live in ops/ (one module per family) and are attached to the class there.
"""

import re

import numpy as np

from . import _dtypes, _format
from . import _messages as msg
from ._device import CPU, xp
from ._size import Size, wrap_dim
from ._warnings import warn
from .autograd.graph import AccumulateGrad


class _VersionCounter:
    __slots__ = ("value", "uncounted")

    def __init__(self):
        self.value = 0
        # a change went by without counting (class edition, before assignment 3 is built)
        self.uncounted = False


class _Storage:
    """What `untyped_storage()` returns: enough to tell whether two tensors share memory."""

    def __init__(self, array):
        root = array
        while getattr(root, "base", None) is not None:
            root = root.base
        self._root = root

    def nbytes(self):
        return int(self._root.nbytes)

    def data_ptr(self):
        if hasattr(self._root, "__array_interface__"):
            return self._root.__array_interface__["data"][0]
        return self._root.data.ptr


def _bool_argument(args, kwargs):
    """requires_grad_'s one argument, checked as PyTorch's argument parser checks a bool."""
    if args:
        value, where = args[0], " (position 1)"
    else:
        value, where = kwargs.get("requires_grad", True), ""
    if not isinstance(value, bool):
        raise TypeError(msg.REQUIRES_GRAD_ARG_NOT_BOOL.format(where, msg.type_name(value)))
    return value


class Tensor:
    __module__ = msg.LIB  # <class 'minigrad.Tensor'>, as PyTorch's is torch.Tensor
    # Per-tensor fields every op sets live in slots; the rarely changed ones default at class
    # level (set per instance only when they change), which keeps creating a tensor cheap.
    __slots__ = (
        "_data",
        "_dtype",
        "_device",
        "_requires_grad",
        "_grad_fn",
        "_version_counter",
        "__weakref__",
        "__dict__",  # the rarely set fields below, and Parameter's or a user's attributes
    )
    _output_nr = 0
    _grad = None
    _retains_grad = False
    _base = None  # the tensor this one is a view of
    _view_fn = None  # base-shaped array -> this view's array
    _view_version = 0  # the version this view's grad_fn was made at
    _view_flags = None  # "no_grad" or "multi:<op>" for views PyTorch won't write through
    _accumulator = None  # the leaf's AccumulateGrad node, made on first use
    # As PyTorch's: NumPy scalars and arrays defer to the tensor's reflected operators, so
    # `np.float64(.5) * t` is a tensor (not an ndarray made through __array__).
    __array_priority__ = 1000

    # -- construction ------------------------------------------------------------------
    def __new__(cls, *args, **kwargs):
        """The legacy constructor `Tensor(...)`: float32 from data, a size, or an alias."""
        from .factories import legacy_construct

        return legacy_construct(cls, _dtypes.float32, args, kwargs)

    @classmethod
    def _make(cls, data, device=CPU, dtype=None):
        """A fresh leaf holding `data` (no copy). Every tensor is made here, so this is where
        NumPy's 0-d results, which come back as NumPy scalars, become 0-d arrays again."""
        if isinstance(data, np.generic):
            data = np.asarray(data)
        t = object.__new__(cls)
        t._data = data
        t._dtype = dtype if dtype is not None else _dtypes._BY_NP[data.dtype]
        t._device = device
        t._requires_grad = False
        t._grad_fn = None
        t._version_counter = _VersionCounter()
        return t

    @classmethod
    def _wrap(cls, data, device=None):
        if device is None:
            device = CPU if isinstance(data, (np.ndarray, np.generic)) else _device_of_array(data)
        return Tensor._make(data, device)

    # -- autograd state ----------------------------------------------------------------
    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._version_counter.value:
            self._regenerate_view_history()
        return self._grad_fn

    def _regenerate_view_history(self):
        """After an in-place write anywhere in the base, a view's history is rebuilt on top
        of the base's new history (PyTorch names the node AsStridedBackward0). A view PyTorch
        won't write through (made under no_grad, or one of several outputs) refuses instead,
        as PyTorch's grad_fn does, once its base requires grad."""
        from .ops.views import AsStridedBackward0

        base = self._base
        if self._grad_fn is None and not base.requires_grad:
            return
        if self._view_flags is not None:
            raise RuntimeError(self._view_rebase_message(indirect=True))
        self._view_version = self._version_counter.value
        self._grad_fn = AsStridedBackward0(
            (base._edge(),), base._data.shape, base._data.dtype, self._view_fn
        )
        self._output_nr = 0
        self._requires_grad = False

    def _view_rebase_message(self, indirect):
        """PyTorch's text for writing (or having written) into a view it won't write through."""
        fn = self._grad_fn  # the view's own node as recorded, not a rebuilt one
        name = None if fn is None else re.sub(r"Backward\d*$", "", type(fn).__name__)
        return msg.view_rebase(self._view_flags, name, self._output_nr, indirect)

    @property
    def requires_grad(self):
        # As PyTorch's: a view also requires grad when its base does (even one made before
        # base.requires_grad_()); read without rebuilding the view's history.
        if self._requires_grad or self._grad_fn is not None:
            return True
        base = self._base
        return base is not None and base.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if not isinstance(flag, bool):  # PyTorch takes no truthy stand-ins (1, "yes", None)
            raise RuntimeError(msg.REQUIRES_GRAD_NOT_BOOL)
        if self._grad_fn is not None:  # as recorded: PyTorch rebuilds no view history here
            raise RuntimeError(
                msg.REQUIRES_GRAD_NONLEAF_SHORT if flag else msg.REQUIRES_GRAD_NONLEAF_LONG
            )
        if flag and not self._dtype.is_floating_point:
            raise RuntimeError(msg.ATTR_INT_REQUIRES_GRAD)
        self._requires_grad = bool(flag)

    def requires_grad_(self, *args, **kwargs):
        requires_grad = _bool_argument(args, kwargs)
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(msg.REQUIRES_GRAD_NONLEAF_LONG)
            return self
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError(msg.METHOD_INT_REQUIRES_GRAD)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        return _leaf.retain_grad(self)

    @property
    def grad(self):
        return _leaf.read_grad(self)

    @grad.setter
    def grad(self, value):
        _leaf.set_grad(self, value)

    @grad.deleter
    def grad(self):  # `del t.grad` sets it to None, as PyTorch's
        self._grad = None

    @property
    def _version(self):
        counter = self._version_counter
        if counter.uncounted:  # no number to trust: say which assignment makes one
            raise not_built("inplace_versions", "bump_version")
        return counter.value

    def _edge(self):
        """Where a gradient for this tensor goes: its grad_fn, its accumulator, or nowhere."""
        fn = self.grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        if self._requires_grad:
            return (self._accumulator_node(), 0)
        return (None, 0)

    def _accumulator_node(self):
        if self._accumulator is None:
            self._accumulator = AccumulateGrad(self)
        return self._accumulator

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError(msg.HOOK_NO_GRAD)
        node = self.grad_fn or self._accumulator_node()
        entry = (self._output_nr if self.grad_fn is not None else 0, hook)
        node._hooks = (node._hooks or []) + [entry]
        return RemovableHandle(node, entry)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd.engine import backward

        backward(
            self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs
        )

    def detach(self):
        return _detach_numpy.detach(self)

    def detach_(self):
        return _detach_numpy.detach_(self)

    @property
    def data(self):
        return Tensor._make(self._data, self._device, self._dtype)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(msg.DATA_NOT_TENSOR.format(msg.type_name(value)))
        if self.requires_grad and not value._dtype.is_floating_point:
            raise RuntimeError(msg.DATA_NOT_FLOATING)
        self._data = value._data
        self._dtype = value._dtype
        self._device = value._device

    @data.deleter
    def data(self):
        raise RuntimeError(msg.DELETE_DATA)

    # -- metadata ----------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if self._data.ndim == 0:  # no wrap_scalar here, unlike reductions
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def _xp(self):
        return xp(self._device)

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def element_size(self):
        return self._dtype.itemsize

    def is_contiguous(self):
        return bool(self._data.flags.c_contiguous)

    def untyped_storage(self):
        return _Storage(self._data)

    def data_ptr(self):
        if hasattr(self._data, "__array_interface__"):
            return self._data.__array_interface__["data"][0]
        return self._data.data.ptr

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            where = "cuda." if self._device.type == "cuda" else ""
            return f"{msg.LIB}.{where}{self._dtype.tensor_type_name}"
        if not isinstance(dtype, (str, type, _dtypes.dtype)):  # x.type(5.0) is no to(5.0)
            raise TypeError(msg.TYPE_ARGUMENT)
        if isinstance(dtype, str):
            name = dtype.split(".")[-1]
            dtype = next(d for d in _dtypes.ALL if d.tensor_type_name == name)
        return self.to(getattr(dtype, "dtype", dtype))

    # -- Python protocol ---------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        try:
            fn = self.grad_fn
            fn_name = type(fn).__name__ if fn is not None else None
        except RuntimeError:  # a view whose history cannot be rebuilt: PyTorch shows this
            fn_name = "Invalid"
        host = self._data if isinstance(self._data, np.ndarray) else self._data.get()
        return _format.format_tensor(
            host,
            dtype_name=self._dtype.name,
            device=str(self._device),
            requires_grad=self.requires_grad,
            grad_fn_name=fn_name,
        )

    __str__ = __repr__

    def __format__(self, format_spec):
        # As PyTorch: a 0-d plain tensor formats as its Python number (f"{loss:.3f}"), with
        # no requires-grad warning; anything else falls back to object's (str, or TypeError).
        if self._data.ndim == 0 and type(self) is Tensor:
            return self._data.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __hash__(self):
        return id(self)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            which = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {which} is ambiguous")
        return bool(self._data.reshape(()))

    def _scalar(self, warn_if_grad):
        if self._data.size != 1:
            raise ValueError(msg.ONLY_ONE_ELEMENT)
        if warn_if_grad and self.requires_grad:
            warn(msg.SCALAR_FROM_GRAD_TENSOR, once_key="scalar-from-grad-tensor")
        return self._data.reshape(()).item()

    def __float__(self):
        return float(self._scalar(warn_if_grad=True))

    def __int__(self):
        return int(self._scalar(warn_if_grad=False))

    def __index__(self):
        if self._dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar(warn_if_grad=False))

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        host = self._data if isinstance(self._data, np.ndarray) else self._data.get()
        return host.tolist()

    def numpy(self, *, force=False):
        return _detach_numpy.numpy(self, force)

    def __array__(self, dtype=None):
        # No `copy` keyword, like PyTorch's: NumPy 2 then warns exactly as it does for torch.
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __array_wrap__(self, array):
        # A NumPy ufunc's result comes back as a tensor sharing its memory (np.exp(t) is a
        # tensor), as PyTorch's one-argument __array_wrap__ does; NumPy 2 warns about that
        # signature for both. A bool result becomes uint8 (np.isnan(t)), as in PyTorch.
        from .factories import from_numpy

        return from_numpy(array.astype(np.uint8) if array.dtype == np.bool_ else array)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self.detach().cpu().numpy().copy(), self.requires_grad))


def _read_only(name):
    def refuse(self, value):
        raise AttributeError(msg.READ_ONLY_ATTRIBUTE.format(name))

    return refuse


# PyTorch's read-only attributes refuse assignment with their own text (not Python's
# "property ... has no setter").
for _name in ("is_leaf", "grad_fn", "_version", "shape", "dtype", "device", "ndim", "retains_grad"):
    setattr(Tensor, _name, getattr(Tensor, _name).setter(_read_only(_name)))


def _rebuild(array, requires_grad):
    return Tensor._make(array).requires_grad_(requires_grad)


def _device_of_array(data):
    from ._device import CUDA0

    return CPU if isinstance(data, np.ndarray) else CUDA0


class RemovableHandle:
    """What `register_hook` returns (named as PyTorch's `torch.utils.hooks.RemovableHandle`)."""

    __module__ = "minigrad.utils.hooks"  # its repr names the module, as PyTorch's does

    def __init__(self, node, entry):
        self._node, self._entry = node, entry

    def remove(self):
        hooks = self._node._hooks or []
        self._node._hooks = [h for h in hooks if h is not self._entry] or None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


# The graded functions students build live in seams/ and call back into Tensor: imported last.
from .seams import detach_numpy as _detach_numpy  # noqa: E402
from .seams import leaf_nodes as _leaf  # noqa: E402
from .seams import not_built  # noqa: E402
