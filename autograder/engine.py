"""Adapt a student's engine, defined in a notebook, to the module-like shape scenarios expect.

engine_from(namespace) looks for the course subset's module-level names (ENGINE_NAMES below).
A dotted name `a.b` is found as namespace["a"].b, or else under one of its flat aliases: the
last component (`Parameter`, `SGD`, `mse_loss`, ...), `F.<name>` for `nn.functional.<name>`,
and `cuda_is_available` / `autograd_grad` for the two names whose last part is ambiguous.
Names it cannot find are simply absent: scenarios needing them fail "not implemented: <name>".
"""

from __future__ import annotations

import types

ENGINE_NAMES = (
    # creation, random streams and combination
    "tensor", "from_numpy", "as_tensor", "zeros", "ones", "zeros_like", "ones_like", "full",
    "empty", "eye", "arange", "linspace", "rand", "randn", "manual_seed", "stack", "cat", "where",
    # functions
    "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "matmul", "mm", "sum", "mean", "max",
    # grad mode
    "no_grad", "enable_grad", "is_grad_enabled", "set_grad_enabled",
    # types, dtypes and devices
    "Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "float16", "float32", "float",
    "float64", "double", "int64", "long", "int32", "bool", "device",
    # submodules
    "cuda.is_available", "autograd.grad", "nn.Parameter", "nn.Module", "nn.Linear",
    "nn.Sequential", "nn.ReLU", "nn.functional.relu", "nn.functional.softplus",
    "nn.functional.mse_loss", "nn.functional.cross_entropy", "optim.SGD",
)  # fmt: skip

_SPECIAL_ALIASES = {
    "cuda.is_available": ("cuda_is_available",),
    "autograd.grad": ("autograd_grad",),
}

NULL_ENGINE = types.ModuleType("null_engine", "An engine that implements nothing (for tests).")


def aliases(dotted: str) -> tuple[str, ...]:
    """Where engine_from looks for `dotted`, in order."""
    if "." not in dotted:
        return (dotted,)
    last = dotted.rsplit(".", 1)[1]
    if dotted in _SPECIAL_ALIASES:
        return (dotted, *_SPECIAL_ALIASES[dotted])
    if dotted.startswith("nn.functional."):
        return (dotted, f"F.{last}", last)
    return (dotted, last)


def engine_from(namespace, name: str = "engine") -> types.ModuleType:
    """A module-like engine holding the course-subset names found in `namespace`
    (a dict such as a notebook's globals(), or a module)."""
    if not isinstance(namespace, dict):
        namespace = vars(namespace)
    engine = types.ModuleType(name, f"engine adapted from a namespace by {__name__}")
    for dotted in ENGINE_NAMES:
        for candidate in aliases(dotted):
            found, value = _lookup(namespace, candidate)
            if found:
                _install(engine, dotted, value)
                break
    return engine


def _lookup(namespace: dict, dotted: str):
    head, *rest = dotted.split(".")
    if head not in namespace:
        return False, None
    obj = namespace[head]
    for part in rest:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return False, None
    return True, obj


def _install(engine, dotted: str, value) -> None:
    *parents, last = dotted.split(".")
    target = engine
    for part in parents:
        if not hasattr(target, part):
            setattr(target, part, types.SimpleNamespace())
        target = getattr(target, part)
    setattr(target, last, value)


def unimportable_copy(module: types.ModuleType, name: str) -> types.ModuleType:
    """`module`'s names under `name`, which a fresh interpreter cannot import: scenarios that
    want a fresh process then run in this one, where whatever was patched into the module's
    parts (a student's functions bound into minigrad's seams) is."""
    engine = types.ModuleType(name, f"{module.__name__} as it is in this process")
    engine.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    return engine
