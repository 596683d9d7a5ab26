"""The Recorder: what a scenario observes, written down as plain JSON-able data.

Nothing here knows which library it records: tensors are recognised by duck typing, names of
libraries in texts are normalised to `torch.` so that `minigrad.FloatTensor` and
`torch.FloatTensor` compare equal.
"""

from __future__ import annotations

import contextlib
import gc
import re
import warnings

import numpy as np

from autograder.graph_diff import capture

_TRIGGERED = re.compile(r"\s*\(Triggered internally at .*?\)", re.S)


def normalise_text(text: str, libnames=()) -> str:
    """Drop PyTorch's "(Triggered internally at ...)" tail and write every library name as
    torch (`minigrad.FloatTensor` -> `torch.FloatTensor`, `minigrad::autograd` -> `torch::...`)."""
    text = _TRIGGERED.sub("", str(text))
    names = sorted({n for n in libnames if n and n != "torch"} | {"minigrad"})
    pattern = r"\b(?:" + "|".join(map(re.escape, names)) + r")(\.|::)(?=[A-Za-z_])"
    return re.sub(pattern, r"torch\1", text)


def is_tensor(x) -> bool:
    """Duck typing: anything with `shape` and `requires_grad` that is not a NumPy array."""
    if isinstance(x, (np.ndarray, np.generic, type)):
        return False
    try:
        return hasattr(x, "requires_grad") and hasattr(x, "shape")
    except Exception:  # a broken property is not a tensor
        return False


def waiting_for(exc: BaseException) -> str:
    """The part an engine under construction has not built yet, when `exc` says so: an
    engine may raise an exception whose `waiting_for` attribute names that part (a str). The
    scenario then stops and is reported as waiting for it, never as passed."""
    part = getattr(exc, "waiting_for", "")
    return part if isinstance(part, str) else ""


def _error_marker(exc: BaseException, libnames) -> dict:
    return {"error": f"{type(exc).__name__}: {normalise_text(exc, libnames)}"}


@contextlib.contextmanager
def _finalisers_unheard(caught: list):
    """Drop from `caught` the warnings a garbage collection gives inside the block: they come
    from finalisers of whatever earlier code left behind (a student's unclosed file, a
    kernel's event loop, an earlier scenario), not from the call observed, and a collection
    may start at any allocation. The collector tells its callbacks when it starts and stops,
    and runs finalisers in between."""
    spans = []

    def note(phase, info):
        if phase == "start":
            spans.append([len(caught), None])
        elif spans:
            spans[-1][1] = len(caught)

    gc.callbacks.append(note)
    try:
        yield
    finally:
        gc.callbacks.remove(note)
        for start, stop in reversed(spans):
            del caught[start:stop]


class Recorder:
    """Collects the observations of one scenario run on one engine.

    Every method takes a label, unique within the scenario, and appends one observation
    (a dict with `label` and `kind`) to `self.observations`.
    """

    def __init__(self, device: str = "cpu", libnames=("torch",)):
        self.device = device
        self.libnames = tuple(libnames)
        self.observations: list[dict] = []
        self._labels: set[str] = set()

    # -- the scenario-facing API ---------------------------------------------------------

    def tensor(self, label: str, t) -> None:
        """Snapshot: shape, dtype, device, flags, grad_fn name, version, values, repr."""
        value, exc, caught = self._capture(lambda: self.encode(t))
        self._add(label, "tensor", value=value, raised=self._raised(exc), warnings=caught)

    def call(self, label: str, fn, *, check_message: bool = True):
        """Run fn(); record its result or its exception, and every warning raised inside.

        Returns fn's result, or None when it raised. `check_message=False` compares only the
        exception type (for the few cases where minigrad's text differs on purpose).
        """
        result, exc, caught = self._capture(fn)
        value, enc_exc, enc_caught = self._capture(lambda: self.encode(result))
        self._add(
            label,
            "call",
            value=value if enc_exc is None else _error_marker(enc_exc, self.libnames),
            raised=self._raised(exc),
            warnings=caught + enc_caught,
            check_message=check_message,
        )
        return result

    def value(self, label: str, x) -> None:
        """A plain Python value (bool, int, float, str, None, tuple, list)."""
        value, exc, caught = self._capture(lambda: self.encode(x))
        self._add(label, "value", value=value, raised=self._raised(exc), warnings=caught)

    def grad(self, label: str, t) -> None:
        """Read t.grad inside a warnings catcher: None or a tensor snapshot, plus the warnings.

        The gradient's own `_version` is left out: it counts how PyTorch's engine happened to
        sum contributions into the buffer, which no rule of the course is about.
        """
        grad, exc, caught = self._capture(lambda: t.grad)
        value, enc_exc, enc_caught = self._capture(lambda: self.encode(grad))
        if isinstance(value, dict) and "tensor" in value:
            value["tensor"].pop("version", None)
        if exc is None and enc_exc is not None:
            exc = enc_exc
        self._add(
            label, "grad", value=value, raised=self._raised(exc), warnings=caught + enc_caught
        )

    def same(self, label: str, a, b) -> None:
        """Whether `a is b`."""
        self._add(label, "same", value=a is b, raised=None, warnings=[])

    def shares(self, label: str, a, b) -> None:
        """Whether a and b (tensors or NumPy arrays) share memory."""
        value, exc, caught = self._capture(lambda: self._shares_memory(a, b))
        self._add(label, "shares", value=value, raised=self._raised(exc), warnings=caught)

    # -- encoding ------------------------------------------------------------------------

    def encode(self, x):
        """Turn any observed object into JSON-able data (tensors become snapshots)."""
        if x is None or isinstance(x, (bool, int)):
            return x
        if isinstance(x, str):
            return normalise_text(x, self.libnames)
        if isinstance(x, np.generic):
            return {"numpy_scalar": x.dtype.name, "value": x.item()}
        if isinstance(x, float):
            return x
        if isinstance(x, np.ndarray):
            return {
                "ndarray": {"dtype": x.dtype.name, "shape": list(x.shape), "values": x.tolist()}
            }
        if is_tensor(x):
            return {"tensor": self.snapshot(x)}
        if isinstance(x, (list, tuple)):
            return [self.encode(v) for v in x]
        if isinstance(x, dict):  # compared as a whole (compare.diff_values): graphs left out
            return {"dict": {str(k): _without_graphs(self.encode(v)) for k, v in x.items()}}
        kind = type(x).__name__
        if kind == "dtype" or isinstance(x, np.dtype):
            return {"dtype": _dtype_name(x)}
        if kind == "device":
            return {"device": str(x)}
        if hasattr(x, "next_functions") or kind.endswith(("Backward0", "Backward1", "Backwards")):
            return {"node": kind}
        return {"object": kind}

    def snapshot(self, t) -> dict:
        """Every flag a student can read off a tensor; a field that fails to read is an error.
        A tensor in a graph also gets the graph, as data (graph_diff.capture)."""
        fields = {
            "shape": lambda: [int(n) for n in t.shape],
            "dtype": lambda: _dtype_name(t.dtype),
            "device": lambda: _device_type(t.device),
            "requires_grad": lambda: bool(t.requires_grad),
            "is_leaf": lambda: bool(t.is_leaf),
            "grad_fn": lambda: None if t.grad_fn is None else type(t.grad_fn).__name__,
            "retains_grad": lambda: bool(t.retains_grad),
            "version": lambda: int(t._version),
            "values": lambda: t.tolist(),
            "repr": lambda: normalise_text(repr(t), self.libnames),
        }
        snap = {}
        for name, read in fields.items():
            try:
                snap[name] = read()
            except Exception as exc:  # an engine missing a field still gets the rest compared
                if waiting_for(exc):
                    raise
                snap[name] = _error_marker(exc, self.libnames)
        graph = capture(t)  # not compared: drawn beside PyTorch's where a flag differs
        if graph is not None:
            snap["graph"] = graph
        return snap

    # -- internals -----------------------------------------------------------------------

    def _add(self, label: str, kind: str, **fields) -> None:
        if label in self._labels:
            raise ValueError(f"duplicate observation label {label!r} in one scenario")
        self._labels.add(label)
        self.observations.append({"label": label, "kind": kind, **fields})

    def _raised(self, exc):
        if exc is None:
            return None
        return {"type": type(exc).__name__, "message": normalise_text(exc, self.libnames)}

    def _capture(self, fn):
        """(result, exception or None, warnings) of fn(); BaseExceptions such as the time limit
        pass through so they end the scenario."""
        with warnings.catch_warnings(record=True) as caught, _finalisers_unheard(caught):
            warnings.simplefilter("always")
            try:
                result, exc = fn(), None
            except Exception as e:
                if waiting_for(e):  # not the engine's answer: the part is not built yet
                    raise
                result, exc = None, e
        seen = [
            {"category": w.category.__name__, "message": normalise_text(w.message, self.libnames)}
            for w in caught
        ]
        return result, exc, seen

    def _shares_memory(self, a, b) -> bool:
        storages = [getattr(x, "untyped_storage", None) for x in (a, b)]
        if all(storages):
            sa, sb = storages[0](), storages[1]()
            if not (hasattr(sa, "nbytes") and hasattr(sb, "nbytes")):
                return sa.data_ptr() == sb.data_ptr()  # a storage's start names it
        span_a, span_b = self._memory(a), self._memory(b)
        if isinstance(span_a, np.ndarray) and isinstance(span_b, np.ndarray):
            return bool(np.shares_memory(span_a, span_b))
        lo_a, hi_a = _bounds(span_a)
        lo_b, hi_b = _bounds(span_b)
        return lo_a < hi_a and lo_b < hi_b and lo_a < hi_b and lo_b < hi_a

    def _memory(self, x):
        """A NumPy array viewing x's memory, or the (start, end) address range of its storage."""
        if isinstance(x, np.ndarray):
            return x
        storage = x.untyped_storage() if hasattr(x, "untyped_storage") else None
        if storage is not None and hasattr(storage, "nbytes"):
            start = int(storage.data_ptr())
            return (start, start + int(storage.nbytes()))
        if _device_type(x.device) != "cpu":
            raise TypeError(
                "cannot tell memory sharing of a non-CPU tensor without untyped_storage()"
            )
        return x.detach().numpy()


def _without_graphs(value):
    """An encoded value without the graphs of its tensors (where it is compared whole, an
    engine's own choice of nodes must not count)."""
    if isinstance(value, list):
        return [_without_graphs(v) for v in value]
    if isinstance(value, dict) and isinstance(value.get("tensor"), dict):
        value["tensor"].pop("graph", None)
    elif isinstance(value, dict) and isinstance(value.get("dict"), dict):
        value["dict"] = {k: _without_graphs(v) for k, v in value["dict"].items()}
    return value


def _bounds(span) -> tuple[int, int]:
    if isinstance(span, np.ndarray):
        lo, hi = np.lib.array_utils.byte_bounds(span)
        return int(lo), int(hi)
    return span


def _dtype_name(dtype) -> str:
    """'torch.float32', 'minigrad.float32', np.dtype('float32') -> 'float32'."""
    return str(dtype).rsplit(".", 1)[-1]


def _device_type(device) -> str:
    return getattr(device, "type", None) or str(device).split(":")[0]
