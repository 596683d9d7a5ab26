"""Graph nodes: the `grad_fn` objects, their saved tensors, and leaf accumulation.

A node's `next_functions` is a tuple of `(node or None, output_nr)` edges, exactly as in PyTorch.
It is built on each read, as PyTorch's is: a node keeps its edges as a tuple of nodes and a
tuple of output numbers. The numbers are plain ints, so CPython's garbage collector stops
tracking their tuple, and a chain of n nodes leaves about 2n tracked objects instead of 4n
(a tuple per edge, one for the edges): every full collection while a deep graph is being
built walks them all (issue 16).
`apply(*grads)` maps the gradients of the node's outputs to gradients of its inputs (arrays of
the tensors' array module, or None), one per edge. Nodes that saved tensors check their
versions before use and refuse to run once `backward()` freed them.
"""

import itertools
import re
import weakref

import numpy as np

from .. import _messages as msg
from .. import seams as _seams  # its modules are loaded once Tensor is (tensor.py)

_SUFFIX = re.compile(r"Backward\d*$")


class Saved:
    """A tensor (or scalar) a node keeps for backward, with the version it had then.

    A node's own output is kept by its data, version counter and a weak reference, not by the
    tensor itself: the tensor holds the node as `grad_fn`, and a strong link back would make a
    cycle that outlives `backward()`.
    """

    __slots__ = ("tensor_ref", "data", "counter", "version", "is_output", "type_name")

    def __init__(self, tensor, is_output=False):
        self.data = tensor._data
        self.counter = tensor._version_counter
        self.version = self.counter.value
        self.is_output = is_output
        self.tensor_ref = weakref.ref(tensor) if is_output else tensor
        self.type_name = tensor.type()

    @property
    def tensor(self):
        return self.tensor_ref() if self.is_output else self.tensor_ref


def wrapped_number(value):
    """PyTorch turns a Python number into a 0-d tensor before the op (`x * 2` multiplies by
    `tensor(2)`: int64, float64 or bool) and saves that tensor; minigrad saves the number
    and shows it so only when it is read."""
    from .. import _dtypes, factories

    kind = "b" if isinstance(value, (bool, np.bool_)) else np.asarray(value).dtype.kind
    dtype = {"b": _dtypes.bool, "i": _dtypes.int64, "u": _dtypes.int64}.get(kind)
    return factories.tensor(value, dtype=dtype or _dtypes.float64)


_FREED = object()  # what backward() leaves of a saved tensor: the name, not the memory

_sequence = itertools.count()
_ZEROS_1, _ZEROS_2 = (0,), (0, 0)


class Node:
    __slots__ = (
        "_next_nodes",
        "_next_nrs",
        "_saved",
        "_freed",
        "_retained",
        "_hooks",
        "_seq",
        "__weakref__",
    )
    n_outputs = 1
    # Saved names PyTorch's node declares even when this call saved nothing under them
    # (MulBackward0 keeps `self` only when `other` requires grad): they read as None.
    declared_saved = ()
    # Saved names whose Python numbers PyTorch had wrapped into 0-d tensors (see
    # wrapped_number). Numbers a node keeps as plain numbers (an exponent) are properties.
    wrapped_numbers = ()
    # How many in-place writes PyTorch's backward formula makes into the fresh gradient it
    # returns (masked_fill_, scatter_, ...): a leaf's .grad that takes it over shows them
    # as its _version.
    grad_version = 0

    def __init__(self, next_functions):
        if len(next_functions) == 2:  # binary ops, the common case
            (a, na), (b, nb) = next_functions
            self._next_nodes = (a, b)
            self._next_nrs = _ZEROS_2 if na == 0 and nb == 0 else (na, nb)
        elif len(next_functions) == 1:
            ((a, na),) = next_functions
            self._next_nodes = (a,)
            self._next_nrs = _ZEROS_1 if na == 0 else (na,)
        elif next_functions:
            self._next_nodes = tuple([edge[0] for edge in next_functions])
            self._next_nrs = tuple([edge[1] for edge in next_functions])
        else:
            self._next_nodes = self._next_nrs = ()
        # Creation order: backward runs later nodes first, as PyTorch's engine does.
        self._seq = next(_sequence)
        self._saved = None
        self._freed = False
        self._retained = None  # [(output_nr, tensor)] whose .grad this node fills
        self._hooks = None  # [(output_nr, hook)] run on the incoming gradient

    @classmethod
    def _first_of_two(cls, fn, nr):
        """A node of two inputs of which only the first has an edge (`tensor op number`),
        made without building and taking apart the edges' tuples: the same fields as
        __init__((fn, nr), (None, 0)), for the operators' hot path."""
        self = object.__new__(cls)
        self._next_nodes = (fn, None)
        self._next_nrs = _ZEROS_2 if nr == 0 else (nr, 0)
        self._seq = next(_sequence)
        self._saved = None
        self._freed = False
        self._retained = None
        self._hooks = None
        return self

    @property
    def next_functions(self):
        return tuple(zip(self._next_nodes, self._next_nrs))

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self):
        return {}

    # -- saved tensors -------------------------------------------------------------------
    def save(node, /, **values):
        """Keep tensors for backward (scalars too: PyTorch frees wrapped scalars alike)."""
        node._saved = {
            k: (Saved(v) if hasattr(v, "_version_counter") else v) for k, v in values.items()
        }

    def save_output(self, name, tensor):
        if self._saved is None:
            self._saved = {}
        self._saved[name] = Saved(tensor, is_output=True)

    def unpack(self):
        """The saved values, checked: freed graphs and in-place changes raise here."""
        if self._freed:
            raise RuntimeError(msg.SECOND_BACKWARD)
        out = {}
        for key, s in (self._saved or {}).items():
            if isinstance(s, Saved):  # checked against in-place changes since it was saved
                out[key] = _seams.inplace_versions.unpack_saved(s, self)
            else:
                out[key] = s
        return out

    def release(self):
        """Drop what was saved; the names stay, and reading one says backward() freed it."""
        if self._saved is not None:
            self._saved = dict.fromkeys(self._saved, _FREED)
            self._freed = True

    def __getattr__(self, name):
        # PyTorch exposes saved values as `_saved_<name>` attributes.
        if name.startswith("_saved_") and name != "_saved_versions":
            saved = object.__getattribute__(self, "_saved") or {}
            key = name[len("_saved_") :]
            if key in saved:
                s = saved[key]
                if s is _FREED:
                    raise RuntimeError(msg.SECOND_BACKWARD)
                if isinstance(s, Saved):
                    return s.tensor
                return wrapped_number(s) if key in type(self).wrapped_numbers else s
            if key in type(self).declared_saved:
                return None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        names = set(super().__dir__())
        names.update("_saved_" + k for k in (*(self._saved or ()), *self.declared_saved))
        return sorted(names)

    @property
    def _saved_versions(self):
        return {k: s.version for k, s in (self._saved or {}).items() if isinstance(s, Saved)}

    def register_hook(self, fn):
        raise NotImplementedError("node hooks are outside the course subset")


def producer_name(node):
    """How PyTorch names a node inside the version-error message ("Add", "...CopySlices")."""
    return _SUFFIX.sub("", node.name())


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into `variable.grad`.

    It holds its leaf strongly, as PyTorch does: a leaf nobody else references (the float64
    tensor behind `tensor(ndarray, requires_grad=True).float()`) stays reachable from the
    graph, `grad_fn.next_functions[0][0].variable`.
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__(())
        self._seq = float("inf")  # leaves are fed as soon as they are ready
        self.variable = variable

    def name(self):
        return f"{msg.LIB}::autograd::AccumulateGrad"

    def apply(self, grad, version=0):
        # The leaf's flag is read there, not when the graph was built: a leaf turned off
        # between forward and backward gets nothing (its hooks have already run).
        _seams.leaf_nodes.accumulate_grad(self.variable, grad, version)
        return ()
