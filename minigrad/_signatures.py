"""PyTorch's argument-parser errors, generated from one table of signatures.

PyTorch binds each method to a list of signatures and, when a call matches none, explains why
in the parser's words ("missing 1 required positional arguments", "argument 'dim0' (position
1) must be int, not float", "received an invalid combination of arguments - got (...), but
expected one of: ..."). minigrad's methods are plain Python functions: `parsed` wraps one so
that a call it refuses (a TypeError or ValueError, or NotImplemented for an operand it cannot
read) is checked against the table, and a call no signature accepts gets PyTorch's text. The
rules follow PyTorch's python_arg_parser.cpp and invalid_arguments.cpp; calls the table accepts
keep the operation's own error.
"""

import functools

import numpy as np

from ._cnames import c_name
from ._messages import LIB
from ._size import is_index

DTYPE, DEVICE = f"{LIB}.dtype", f"{LIB}.device"
_FACTORY = f"*, {DTYPE} dtype = None, {DEVICE} device = None, bool requires_grad = False"
_FORMAT = f"{LIB}.memory_format memory_format = None"

# Signatures as PyTorch prints them. In this table only: "~" starts an overload PyTorch keeps
# hidden (it never prints it, but a name with two overloads is parsed differently from a name
# with one), and "?" after a type marks a parameter that takes None without a default.
SIGNATURES = {
    "transpose": ("(int dim0, int dim1)",),
    "permute": ("(tuple of ints dims)",),
    "view": (f"({DTYPE} dtype)", "(tuple of ints size)"),
    "reshape": ("(tuple of ints shape)",),
    "unsqueeze": ("(int dim)",),
    "squeeze": ("()", "(int dim)", "(tuple of ints dim)"),
    "expand": ("(tuple of ints size, *, bool implicit = False)",),
    "flatten": ("(int start_dim = 0, int end_dim = -1)",),
    "repeat": ("(tuple of ints repeats)",),
    "sum": (
        f"(*, {DTYPE} dtype = None)",
        f"(tuple of ints? dim, bool keepdim = False, *, {DTYPE} dtype = None)",
    ),
    "mean": (
        f"(*, {DTYPE} dtype = None)",
        f"(tuple of ints? dim, bool keepdim = False, *, {DTYPE} dtype = None)",
    ),
    "max": ("()", "(Tensor other)", "(int dim, bool keepdim = False)"),
    "min": ("()", "(Tensor other)", "(int dim, bool keepdim = False)"),
    "argmax": ("(int dim = None, bool keepdim = False)",),
    "argmin": ("(int dim = None, bool keepdim = False)",),
    **{
        name: (
            "()",
            "(tuple of ints dim = None, bool keepdim = False)",
            "(int dim, bool keepdim = False)",
        )
        for name in ("all", "any")
    },
    **{
        name: (
            "(tuple of ints dim, bool unbiased = True, bool keepdim = False)",
            "(tuple of ints dim = None, *, Number correction = None, bool keepdim = False)",
            "(bool unbiased = True)",
        )
        for name in ("std", "var")
    },
    **{name: ("(tuple of ints dim = (), bool keepdim = False)",) for name in ("amax", "amin")},
    "logsumexp": ("(tuple of ints dim, bool keepdim = False)",),
    "add": ("(Tensor other, *, Number alpha = 1)", "~(Number alpha, Tensor other)"),
    "sub": ("(Tensor other, *, Number alpha = 1)", "~(Number alpha, Tensor other)"),
    "add_": ("(Tensor other, *, Number alpha = 1)", "~(Number alpha, Tensor other)"),
    "sub_": ("(Tensor other, *, Number alpha = 1)", "~(Number alpha, Tensor other)"),
    "mul": ("(Tensor other)",),
    "mul_": ("(Tensor other)",),
    "div": (
        "(Tensor other)",
        "(Tensor other, *, str rounding_mode)",
        "(Number other, *, str rounding_mode)",
    ),
    "div_": (
        "(Tensor other)",
        "(Tensor other, *, str rounding_mode)",
        "(Number other, *, str rounding_mode)",
    ),
    "pow": ("(Tensor exponent)", "(Number exponent)"),
    "eq": ("(Tensor other)", "(Number other)"),
    "ne": ("(Tensor other)", "(Number other)"),
    "lt": ("(Tensor other)", "(Number other)"),
    "le": ("(Tensor other)", "(Number other)"),
    "gt": ("(Tensor other)", "(Number other)"),
    "ge": ("(Tensor other)", "(Number other)"),
    "fill_": ("(Tensor value)", "(Number value)"),
    "clamp": ("(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"),
    "clamp_": ("(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"),
    "copy_": ("(Tensor other, bool non_blocking = False)", "~(Tensor other, bool async)"),
    "matmul": ("(Tensor other)",),
    "mm": ("(Tensor mat2)",),
    "dot": ("(Tensor tensor)",),
    "mv": ("(Tensor vec)",),
    "maximum": ("(Tensor other)",),
    "minimum": ("(Tensor other)",),
    "view_as": ("(Tensor other)",),
    "expand_as": ("(Tensor other)",),
    "type_as": ("(Tensor other)",),
    "narrow": ("(int dim, Tensor start, int length)", "(int dim, int start, int length)"),
    "chunk": ("(int chunks, int dim = 0)",),
    "unbind": ("(int dim = 0)",),
    "softmax": (f"(int dim, {DTYPE} dtype = None)",),
    "log_softmax": (f"(int dim, {DTYPE} dtype = None)",),
    "gather": ("(int dim, Tensor index, *, bool sparse_grad = False)",),
    **{
        name: (
            "(int dim, Tensor index, Tensor src)",
            "(int dim, Tensor index, Tensor src, *, str reduce)",
            "(int dim, Tensor index, Number value)",
            "(int dim, Tensor index, Number value, *, str reduce)",
        )
        for name in ("scatter", "scatter_")
    },
    **{
        name: ("(int dim, Tensor index, Tensor source, *, Number alpha = 1)",)
        for name in ("index_add", "index_add_")
    },
    "nonzero": ("()", "(*, bool as_tuple)"),
    "size": ("(int dim = None)",),
    "requires_grad_": ("(bool requires_grad = True)",),
    "to": (
        f"({DEVICE} device = None, {DTYPE} dtype = None, bool non_blocking = False, "
        f"bool copy = False, *, {_FORMAT})",
        f"({DTYPE} dtype, bool non_blocking = False, bool copy = False, *, {_FORMAT})",
        f"(Tensor tensor, bool non_blocking = False, bool copy = False, *, {_FORMAT})",
    ),
    "new_ones": (f"(tuple of ints size, {_FACTORY})",),
    "new_zeros": (f"(tuple of ints size, {_FACTORY})",),
    "clone": (f"(*, {_FORMAT})",),
    "float": (f"(*, {_FORMAT})",),
    "double": (f"(*, {_FORMAT})",),
    "half": (f"(*, {_FORMAT})",),
    "long": (f"(*, {_FORMAT})",),
    "int": (f"(*, {_FORMAT})",),
    "bool": (f"(*, {_FORMAT})",),
    "cpu": (f"(*, {_FORMAT})",),
    "cuda": (f"({DEVICE} device = None, bool non_blocking = False, *, {_FORMAT})",),
    "numpy": ("(*, bool force = False)",),
    # the legacy constructor, torch.Tensor(...)
    "new": (
        f"(*, {DEVICE} device = None)",
        f"({LIB}.Storage storage)",
        "(Tensor other)",
        f"(tuple of ints size, *, {DEVICE} device = None)",
        f"(object data, *, {DEVICE} device = None)",
    ),
}
# The module's functions (torch.sum(x, ...)): their signatures name the tensor `input`.
_OUT = "*, Tensor out = None"
FUNCTIONS = {
    "sum": (
        f"(Tensor input, *, {DTYPE} dtype = None)",
        f"(Tensor input, tuple of ints? dim, bool keepdim = False, *, {DTYPE} dtype = None, "
        "Tensor out = None)",
    ),
    "mean": (
        f"(Tensor input, *, {DTYPE} dtype = None, Tensor out = None)",
        f"(Tensor input, tuple of ints? dim, bool keepdim = False, *, {DTYPE} dtype = None, "
        "Tensor out = None)",
    ),
    "max": (
        f"(Tensor input, {_OUT})",
        f"(Tensor input, Tensor other, {_OUT})",
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
    ),
    "min": (
        f"(Tensor input, {_OUT})",
        f"(Tensor input, Tensor other, {_OUT})",
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
    ),
    "clamp": (
        f"(Tensor input, Tensor min = None, Tensor max = None, {_OUT})",
        f"(Tensor input, Number min = None, Number max = None, {_OUT})",
    ),
    **{name: (f"(Tensor input, {_OUT})",) for name in ("exp", "log", "sqrt", "tanh", "abs")},
    "sigmoid": (f"(Tensor input, {_OUT})",),
    "relu": ("(Tensor input)",),
    "argmax": (f"(Tensor input, int dim = None, bool keepdim = False, {_OUT})",),
    "argmin": (f"(Tensor input, int dim = None, bool keepdim = False, {_OUT})",),
    **{
        name: (
            f"(Tensor input, {_OUT})",
            f"(Tensor input, tuple of ints dim = None, bool keepdim = False, {_OUT})",
            f"(Tensor input, int dim, bool keepdim = False, {_OUT})",
        )
        for name in ("all", "any")
    },
    **{
        name: (
            "(Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, "
            f"{_OUT})",
            "(Tensor input, tuple of ints dim = None, *, Number correction = None, "
            "bool keepdim = False, Tensor out = None)",
            "(Tensor input, bool unbiased = True)",
        )
        for name in ("std", "var")
    },
    **{
        name: (f"(Tensor input, tuple of ints dim = (), bool keepdim = False, {_OUT})",)
        for name in ("amax", "amin")
    },
    "logsumexp": (f"(Tensor input, tuple of ints dim, bool keepdim = False, {_OUT})",),
    "log_softmax": (f"(Tensor input, int dim, {DTYPE} dtype = None, {_OUT})",),
    "gather": (f"(Tensor input, int dim, Tensor index, *, bool sparse_grad = False, {_OUT[3:]})",),
    "scatter": (
        f"(Tensor input, int dim, Tensor index, Tensor src, {_OUT})",
        f"(Tensor input, int dim, Tensor index, Tensor src, *, str reduce, {_OUT[3:]})",
        f"(Tensor input, int dim, Tensor index, Number value, {_OUT})",
        f"(Tensor input, int dim, Tensor index, Number value, *, str reduce, {_OUT[3:]})",
    ),
    "index_add": (
        f"(Tensor input, int dim, Tensor index, Tensor source, *, Number alpha = 1, {_OUT[3:]})",
    ),
    "squeeze": ("(Tensor input)", "(Tensor input, int dim)", "(Tensor input, tuple of ints dim)"),
    "mm": (
        f"(Tensor input, Tensor mat2, {_OUT})",
        f"(Tensor input, Tensor mat2, {DTYPE} out_dtype, {_OUT})",
    ),
    "dot": (f"(Tensor input, Tensor tensor, {_OUT})",),
    "maximum": (f"(Tensor input, Tensor other, {_OUT})",),
    "minimum": (f"(Tensor input, Tensor other, {_OUT})",),
    "chunk": ("(Tensor input, int chunks, int dim = 0)",),
    "narrow": (
        "(Tensor input, int dim, Tensor start, int length)",
        "(Tensor input, int dim, int start, int length)",
    ),
    "where": (
        "(Tensor condition)",
        f"(Tensor condition, Tensor input, Tensor other, {_OUT})",
        "(Tensor condition, Number self, Tensor other)",
        "(Tensor condition, Tensor input, Number other)",
        "(Tensor condition, Number self, Number other)",
    ),
    "pow": (
        f"(Tensor input, Tensor exponent, {_OUT})",
        f"(Number self, Tensor exponent, {_OUT})",
        f"(Tensor input, Number exponent, {_OUT})",
    ),
    "stack": (f"(tuple of Tensors tensors, int dim = 0, {_OUT})",),
    "cat": (f"(tuple of Tensors tensors, int dim = 0, {_OUT})",),
}
# The factories (wrapped by `factory`): their options as PyTorch prints them, None taken for
# requires_grad and pin_memory. tensor() is parsed apart, with options of its own.
_OPTIONS = (
    f"{DTYPE} dtype = None, {LIB}.layout layout = None, {DEVICE} device = None, "
    "bool? pin_memory = False, bool? requires_grad = False"
)
_GENERATOR = f"{LIB}.Generator? generator"
_LIKE = f"{_FORMAT}, {_OPTIONS}"
FUNCTIONS.update(
    {
        **{
            name: (f"(tuple of ints size, *, Tensor out = None, {_OPTIONS})",)
            for name in ("zeros", "ones")
        },
        "empty": (f"(tuple of ints size, *, {_FORMAT}, Tensor out = None, {_OPTIONS})",),
        "full": (f"(tuple of ints size, Number fill_value, *, Tensor out = None, {_OPTIONS})",),
        **{
            name: (
                f"(tuple of ints size, *, {_GENERATOR}, Tensor out = None, {_OPTIONS})",
                f"(tuple of ints size, *, Tensor out = None, {_OPTIONS})",
            )
            for name in ("rand", "randn")
        },
        "randint": (
            f"(int high, tuple of ints size, *, {_GENERATOR}, Tensor out = None, {_OPTIONS})",
            f"(int high, tuple of ints size, *, Tensor out = None, {_OPTIONS})",
            f"(int low, int high, tuple of ints size, *, {_GENERATOR}, Tensor out = None, "
            f"{_OPTIONS})",
            f"(int low, int high, tuple of ints size, *, Tensor out = None, {_OPTIONS})",
        ),
        "arange": (
            f"(Number end, *, Tensor out = None, {_OPTIONS})",
            f"(Number start, Number end, *, {_OPTIONS})",
            f"(Number start, Number end, Number step = 1, *, Tensor out = None, {_OPTIONS})",
        ),
        "eye": (
            f"(int n, *, Tensor out = None, {_OPTIONS})",
            f"(int n, int m, *, Tensor out = None, {_OPTIONS})",
        ),
        "linspace": tuple(
            f"({a} start, {b} end, int steps, *, Tensor out = None, {_OPTIONS})"
            for a, b in (
                ("Tensor", "Tensor"),
                ("Number", "Tensor"),
                ("Tensor", "Number"),
                ("Number", "Number"),
            )
        ),  # fmt: skip
        "tensor": (
            f"(object data, *, {DTYPE} dtype = None, {DEVICE} device = None, "
            "bool requires_grad = False, bool pin_memory = False)",
        ),
        **{name: (f"(Tensor input, *, {_LIKE})",) for name in ("zeros_like", "ones_like")},
        **{
            name: (f"(Tensor input, *, {_GENERATOR}, {_LIKE})", f"(Tensor input, *, {_LIKE})")
            for name in ("rand_like", "randn_like")
        },
    }
)
# PyTorch reads a number where these take a Tensor (`t.add(2)`), and NumPy's names of dim
# and keepdim as aliases.
_NUMBERS_AS_TENSORS = {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_"}
_NUMPY_NAMES = {"dim": "axis", "keepdim": "keepdims"}


class _Param:
    __slots__ = ("type", "name", "optional", "allow_none", "keyword_only")

    def __init__(self, text, keyword_only):
        declared, _, default = text.partition(" = ")
        self.type, _, self.name = declared.rpartition(" ")
        nullable = self.type.endswith("?")
        self.type = self.type.rstrip("?")
        self.optional = bool(default)
        self.allow_none = default == "None" or nullable
        self.keyword_only = keyword_only


class _Signature:
    def __init__(self, name, text):
        self.name = name
        self.hidden = text.startswith("~")
        body = text.lstrip("~")[1:-1]
        self.params, keyword_only = [], False
        for part in body.split(", ") if body else ():
            if part == "*":
                keyword_only = True
            else:
                self.params.append(_Param(part, keyword_only))
        self.text = "(" + body.replace("? ", " ") + ")"
        self.min_args = sum(not p.optional for p in self.params)
        self.max_args = len(self.params)
        self.max_pos_args = sum(not p.keyword_only for p in self.params)
        # view(2, 3) for view((2, 3)): a lone positional list of ints takes varargs
        self.int_list_first = self.max_pos_args == 1 and self.params[0].type == "tuple of ints"


@functools.cache
def _signatures(name, function=False):
    table = FUNCTIONS if function else SIGNATURES
    return tuple(_Signature(name, text) for text in table[name])


@functools.cache
def _classes():
    """(Tensor, dtype, device, Generator), imported once at the first call (they import this
    module)."""
    from ._device import device
    from ._dtypes import dtype
    from .random import Generator
    from .tensor import Tensor

    return Tensor, dtype, device, Generator


def _is_int(obj):
    Tensor = _classes()[0]
    if isinstance(obj, Tensor):  # a 0-d integer tensor stands for its number
        return obj.ndim == 0 and not obj.dtype.is_floating_point and obj.dtype.name != "bool"
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_))


def _is_number(obj):
    Tensor = _classes()[0]
    if isinstance(obj, Tensor):  # a 0-d tensor outside the graph stands for its number
        return obj.ndim == 0 and not obj.requires_grad
    return isinstance(obj, (int, float, np.number, np.bool_))


def _int_list(obj, allow_int):
    """PyTorch checks only the first element here; the rest is checked when unpacked."""
    if isinstance(obj, (tuple, list)):
        return not obj or is_index(obj[0])
    return allow_int and is_index(obj)


def _check(param, obj, name):
    Tensor, dtype, device, Generator = _classes()
    kind = param.type
    if kind == "Tensor":
        return isinstance(obj, Tensor) or (name in _NUMBERS_AS_TENSORS and _is_number(obj))
    if kind == "Number":
        return _is_number(obj)
    if kind == "int":
        return _is_int(obj)
    if kind == "tuple of ints":
        return _int_list(obj, allow_int=param.name == "dim")
    if kind == "bool":
        return isinstance(obj, (bool, np.bool_))
    if kind == "float":
        return _is_number(obj) and not isinstance(obj, (bool, np.bool_))
    if kind == "str":
        return isinstance(obj, str)
    if kind == DTYPE:
        return isinstance(obj, dtype) or obj is float or obj is int or obj is bool
    if kind == DEVICE:
        return isinstance(obj, (device, str)) or _is_int(obj)
    if kind == "tuple of Tensors":  # the elements are checked when the operation reads them
        return isinstance(obj, (tuple, list))
    if kind == f"{LIB}.Generator":
        return isinstance(obj, Generator)
    return kind == "object"


def number_dtype(obj):
    """x.to(5.0): PyTorch's to() reads a number given first, where its dtype overload takes
    the dtype, as the dtype of the number itself (not for dtype=): bool for a bool, float64
    for a float, a NumPy float or a NumPy bool. An int is a device index; a complex (complex128)
    is outside the subset. The name of the dtype, or None."""
    if isinstance(obj, bool):
        return "bool"
    if isinstance(obj, (float, np.floating, np.bool_)):
        return "float64"
    return None


class _Refused(Exception):
    """Why one signature does not take a call: the TypeError PyTorch would raise for it."""


def _parse(sig, args, kwargs):
    """Bind args and kwargs to sig as PyTorch's FunctionSignature::parse does; raise _Refused
    (carrying PyTorch's text) where it would fail, return the bound values otherwise."""
    name, nargs = sig.name, len(args)
    varargs = sig.int_list_first and _int_list(args, False)
    if nargs > sig.max_pos_args and not varargs:
        raise _Refused(_extra_args(sig, nargs))
    bound, remaining, pos = {}, len(kwargs), 0
    for i, param in enumerate(sig.params):
        is_kwd = False
        if pos < nargs:
            if param.keyword_only:
                raise _Refused(_extra_args(sig, nargs))
            obj, present = args[pos], True
        else:
            is_kwd = True
            key = param.name if param.name in kwargs else _NUMPY_NAMES.get(param.name)
            present = key in kwargs
            obj = kwargs.get(key)
        if not present and param.optional:
            pass  # left to its default
        elif present and obj is None and param.allow_none:
            bound[param.name] = None
        elif not present:
            raise _Refused(_missing_args(sig, i))
        elif _check(param, obj, name) or (
            name == "to" and not is_kwd and i == 0 and param.type == DTYPE and number_dtype(obj)
        ):
            bound[param.name] = obj
        elif varargs and pos == 0 and not is_kwd:
            bound[param.name], pos = args, nargs  # view(2, 3) as view((2, 3))
            continue
        elif is_kwd:
            kind, got = param.type, c_name(type(obj))
            raise _Refused(f"{name}(): argument '{param.name}' must be {kind}, not {got}")
        else:
            kind, got = param.type, c_name(type(obj))
            if kind == "tuple of ints" and isinstance(obj, (tuple, list)) and obj:
                # only the first element was read: PyTorch names it
                got = f"{c_name(type(obj[0]))} at pos 0"
                raise _Refused(
                    f"{name}(): argument '{param.name}' (position {pos + 1}) must be {kind}, "
                    f"but found element of type {got}"
                )
            raise _Refused(
                f"{name}(): argument '{param.name}' (position {pos + 1}) must be {kind}, not {got}"
            )
        if not is_kwd:
            pos += 1
        elif present:
            remaining -= 1
    if remaining > 0:
        raise _Refused(_extra_kwargs(sig, kwargs, nargs))
    return bound


def rebound(name, args, kwargs, function=False):
    """The call as PyTorch's parser binds it, for an operation that takes its arguments by
    position: (positional values, keyword-only ones), from the first signature that takes it
    (view(size=(3, 2)) is view((3, 2)), unsqueeze(axis=0) is unsqueeze(0)); None where none
    does or a positional parameter before a given one was left to its default."""
    for sig in _signatures(name, function):
        try:
            bound = _parse(sig, args, kwargs)
        except _Refused:
            continue
        positional = [p.name for p in sig.params if not p.keyword_only]
        while positional and positional[-1] not in bound:
            positional.pop()
        if any(n not in bound for n in positional):
            return None
        keywords = {p.name: bound[p.name] for p in sig.params if p.keyword_only and p.name in bound}
        return [bound[n] for n in positional], keywords
    return None


def _unpack_error(sig, bound):
    """A list of ints is unpacked whole once its signature matched (only its first element was
    checked): PyTorch's text for an element that is not an int, or None."""
    for param in sig.params:
        values = bound.get(param.name)
        if param.type == "tuple of ints" and isinstance(values, (tuple, list)):
            for k, v in enumerate(values):
                if not is_index(v):
                    return (
                        f"{sig.name}(): argument '{param.name}' failed to unpack the object at "
                        f'pos {k + 1} with error "type must be tuple of ints,but got '
                        f'{c_name(type(v))}"'
                    )
    return None


def _extra_args(sig, nargs):
    if sig.min_args != sig.max_pos_args:
        return (
            f"{sig.name}() takes from {sig.min_args} to {sig.max_pos_args} positional "
            f"arguments but {nargs} were given"
        )
    s = "" if sig.max_pos_args == 1 else "s"
    was = "was" if nargs == 1 else "were"
    return f"{sig.name}() takes {sig.max_pos_args} positional argument{s} but {nargs} {was} given"


def _missing_args(sig, index):
    missing = [p.name for p in sig.params[index:] if not p.optional]
    names = ", ".join(f'"{n}"' for n in missing)
    s = "s" if len(missing) == 1 else ""  # sic: PyTorch's plural is the other way round
    return f"{sig.name}() missing {len(missing)} required positional argument{s}: {names}"


def _extra_kwargs(sig, kwargs, nargs):
    names = [p.name for p in sig.params]
    for key in kwargs:
        if key not in names:
            return f"{sig.name}() got an unexpected keyword argument '{key}'"
        if names.index(key) < nargs:
            return f"{sig.name}() got multiple values for argument '{key}'"
    return "invalid keyword arguments"


def error(name, args, kwargs, function=False):
    """PyTorch's TypeError for the method `name(*args, **kwargs)` (args without self), or
    the module's function (`function`, args with the input), or None when one of its
    signatures takes the call."""
    sigs = _signatures(name, function)
    for sig in sigs:
        try:
            bound = _parse(sig, args, kwargs)
        except _Refused:
            continue
        unpack = _unpack_error(sig, bound)
        return None if unpack is None else TypeError(unpack)
    n = len(args) + len(kwargs)
    plausible = [s for s in sigs if s.min_args <= n <= s.max_args and not s.hidden]
    if len(sigs) == 1 or len(plausible) == 1:
        try:
            _parse(sigs[0] if len(sigs) == 1 else plausible[0], args, kwargs)
        except _Refused as refused:
            return TypeError(str(refused))
    return TypeError(_invalid_combination(name, args, kwargs, [s for s in sigs if not s.hidden]))


# -- "received an invalid combination of arguments" (invalid_arguments.cpp) -----------------
# This part reads each signature back from its printed text, as PyTorch's does: every piece
# between ", " is an argument ("*" and the empty "()" too), named by its last word (so
# "Number alpha = 1" is named "1"), which decides which lines explain a mismatch.


def _pieces(sig):
    return [piece.rpartition(" ") for piece in sig.text[1:-1].split(", ")]


def _matches(kind, obj):
    names = {"float": ("float", "int"), "int": ("int",)}.get(kind, (kind,))
    return c_name(type(obj)) in names


def _unmatched_kwargs(pieces, kwargs):
    names = [name for _, _, name in pieces[max(len(pieces) - len(kwargs), 0) :]]
    return [key for key in reversed(kwargs) if key not in names]


def _described(obj):
    name = c_name(type(obj))
    if isinstance(obj, tuple):
        inner = ", ".join(c_name(type(v)) for v in obj)
        return f"{name} of ({inner}{',' if len(obj) == 1 else ''})"
    if isinstance(obj, list):
        return f"{name} of [{', '.join(c_name(type(v)) for v in obj)}]"
    return name


def _marked(pieces, args, kwargs):
    """The arguments, those the piece's type does not take between !s."""
    parts = []
    for i in range(len(args) + len(kwargs)):
        kind, _, name = pieces[i]
        obj = args[i] if i < len(args) else kwargs[name]
        text = (name + "=" if i >= len(args) else "") + _described(obj)
        parts.append(text if _matches(kind, obj) else f"!{text}!")
    return "(" + ", ".join(parts) + (")" if args else ", )")


def _given(args, kwargs):
    parts = [c_name(type(a)) for a in args]
    parts += [f"{k}={c_name(type(kwargs[k]))}" for k in reversed(kwargs)]
    return "(" + ", ".join(parts) + (")" if args or not kwargs else ", )")


def _invalid_combination(name, args, kwargs, sigs):
    head = f"{name}() received an invalid combination of arguments - "
    count = len(args) + len(kwargs)
    if len(sigs) == 1:
        pieces = _pieces(sigs[0])
        unmatched = _unmatched_kwargs(pieces, kwargs) if kwargs else []
        if unmatched:
            return head + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = _marked(pieces, args, kwargs) if count == len(pieces) else _given(args, kwargs)
        return head + f"got {got}, but expected {sigs[0].text}"
    lines = [head + f"got {_given(args, kwargs)}, but expected one of:"]
    for sig in sigs:
        lines.append(f" * {sig.text}")
        pieces = _pieces(sig)
        if count == len(pieces):
            unmatched = _unmatched_kwargs(pieces, kwargs) if kwargs else []
            if unmatched:
                why = "some of the keywords were incorrect: " + ", ".join(unmatched)
            else:
                why = "some of the arguments have invalid types: " + _marked(pieces, args, kwargs)
            lines.append(f"      didn't match because {why}")
    return "\n".join(lines) + "\n"


# Methods minigrad would otherwise read too leniently (view(2.0, 3), transpose(True, 0),
# view_as(array), float(1)): their arguments are checked before the call, unless they are
# plain ints or there are none where none is right.
_STRICT = {
    "transpose", "permute", "view", "reshape", "unsqueeze", "squeeze", "expand", "flatten",
    "repeat", "view_as", "expand_as", "type_as", "to", "narrow", "chunk", "unbind", "clone",
    "float", "double", "half", "long", "int", "bool", "cpu", "numpy",
}  # fmt: skip


_ONE_OBJECT = {"to", "view_as", "expand_as", "type_as"}

_FACTORIES = {
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "eye", "linspace",
    "tensor", "zeros_like", "ones_like", "rand_like", "randn_like",
}  # fmt: skip
_SIZED = {"zeros", "ones", "empty", "rand", "randn"}
# Options PyTorch's factories take that minigrad does not model: dropped at their defaults.
_UNMODELLED = frozenset(("out", "layout", "pin_memory", "generator", "memory_format"))


@functools.cache
def _one_object():
    from ._device import device
    from ._dtypes import dtype
    from .tensor import Tensor

    return (Tensor, dtype, device, str)


def _ints(args):
    """Plain ints, or one tuple of them: the common, valid call."""
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    for a in args:
        if a.__class__ is not int:
            return False
    return True


def _plain_options(kwargs):
    """Whether the keywords are only dtype, device and requires_grad, each of its own type."""
    if not kwargs:
        return True
    _, dtype, device, _ = _classes()
    for key, value in kwargs.items():
        if key == "dtype":
            ok = value is None or isinstance(value, dtype)
        elif key == "device":
            ok = value is None or isinstance(value, (str, device))
        elif key == "requires_grad":
            ok = value.__class__ is bool
        else:
            ok = False
        if not ok:
            return False
    return True


# PyTorch's parser reads every argument before the operation runs, so a type it refuses is
# refused before any check of the operation's own (stack([x], 2.5): the float, not the range).
# minigrad's operations check as they go: whatever they raise is put back in that order.
_PARSER_FIRST = (TypeError, ValueError, AttributeError, IndexError, RuntimeError)
# What an operation raises when it reads an argument the parser binds by keyword otherwise.
_MISREAD = (TypeError, ValueError, AttributeError)


def parsed(name, fn, function=False):
    """Tensor method `name` (fn(self, ...)), or the module's function (`function`, whose first
    argument is the input tensor), with PyTorch's argument-parser errors."""
    strict = name in _STRICT
    if strict:
        bare_ok = error(name, (), {}) is None  # whether the method alone is a valid call
        ints_ok = any(error(name, (0,) * n, {}) is None for n in (1, 2, 3))  # takes ints

    def check_first(args, kwargs):
        if not kwargs:
            if not args:
                if bare_ok:
                    return None
            elif ints_ok and _ints(args):
                return None
            elif len(args) == 1 and name in _ONE_OBJECT and isinstance(args[0], _one_object()):
                return None  # x.to(dtype), x.view_as(t): the common call
        return error(name, args, kwargs)

    def refused(args, kwargs):
        return error(name, args, kwargs, function)

    if function and name in _FACTORIES:
        sized = name in _SIZED

        def checked(*args, **kwargs):
            # The factories' Python signatures are looser than PyTorch's (randint(1.5, (2,)),
            # zeros(size=...)): a call is read against the table first, unless it is the
            # common one (sizes as ints, tensor(data), options of their own types).
            common = len(args) == 1 if name == "tensor" else sized and args and _ints(args)
            if not (common and _plain_options(kwargs)):
                error_ = refused(args, kwargs)
                if error_ is not None:
                    raise error_
            for key in _UNMODELLED.intersection(kwargs):
                if kwargs[key] is None or kwargs[key] is False:
                    del kwargs[key]
            return fn(*args, **kwargs)

    elif function:

        def checked(*args, **kwargs):
            if strict and check_first(args[1:], kwargs):
                error_ = refused(args, kwargs)
                if error_ is not None:
                    raise error_
            try:
                out = fn(*args, **kwargs)
            except _PARSER_FIRST:
                error_ = refused(args, kwargs)
                if error_ is None:
                    raise
                raise error_ from None
            if out is NotImplemented:  # pow('a', 2): an operand no overload reads
                raise refused(args, kwargs) or TypeError(f"{name}(): unsupported operand")
            return out

    else:

        def checked(self, *args, **kwargs):
            if strict:
                first = check_first(args, kwargs)
                if first is not None:
                    raise first
            try:
                out = fn(self, *args, **kwargs)
            except _PARSER_FIRST as exc:
                error_ = refused(args, kwargs)
                if error_ is not None:
                    raise error_ from None
                if not isinstance(exc, _MISREAD):
                    raise
                binding = rebound(name, args, kwargs) if kwargs else None
                if binding is None or binding == (list(args), kwargs):
                    raise
                out = fn(self, *binding[0], **binding[1])  # a keyword PyTorch's parser takes
            if out is NotImplemented:  # an operand the operator would hand back to Python
                raise refused(args, kwargs) or TypeError(f"{name}(): unsupported operand")
            return out

    checked.__name__ = checked.__qualname__ = name
    checked.__wrapped__ = fn
    return checked
