"""Planted bugs: minigrad with exactly one mistake students typically make.

Each engine is a fresh copy of the minigrad package, loaded under its own module name, with one
thing patched, so a patch never leaks into the real minigrad or into another planted engine.
`BUGS` maps a bug's name to (the SPEC.md rule it breaks, what goes wrong, the patch).
"""

import importlib.util
import itertools
import sys
from pathlib import Path

import numpy as np

MINIGRAD_DIR = Path(__file__).resolve().parent.parent / "minigrad"
_copies = itertools.count()


def fresh_minigrad(tag: str = "copy"):
    """A new, independent minigrad package object (its own Tensor class, state and nodes)."""
    name = f"minigrad_planted_{tag}_{next(_copies)}"
    spec = importlib.util.spec_from_file_location(
        name, MINIGRAD_DIR / "__init__.py", submodule_search_locations=[str(MINIGRAD_DIR)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # relative imports inside the copy resolve through this name
    spec.loader.exec_module(module)
    return module


def _sub(m, dotted):
    return sys.modules[f"{m.__name__}.{dotted}"]


def _wrap(owner, attr, make):
    """Replace owner.attr by make(original)."""
    original = getattr(owner, attr)
    setattr(owner, attr, make(original))


# -- the bugs --------------------------------------------------------------------------------


def grad_into_nonleaves(m):
    """Every result of an operation gets its gradient written, like a leaf's, without warning."""
    Tensor = m.Tensor
    slot = Tensor.__dict__["_grad_fn"]

    def set_grad_fn(t, fn):
        slot.__set__(t, fn)
        if fn is not None:
            fn._retained = (fn._retained or []) + [(0, t)]

    Tensor._grad_fn = property(slot.__get__, set_grad_fn)
    Tensor.grad = property(lambda t: t._grad, Tensor.grad.fset)


def grads_overwritten(m):
    """backward() replaces .grad instead of adding to it."""

    def make(original):
        def accumulate_grad(tensor, grad, version=None, retained=False):
            tensor._grad = None
            return original(tensor, grad, version, retained)

        return accumulate_grad

    _wrap(_sub(m, "seams.leaf_nodes"), "accumulate_grad", make)


def no_version_check(m):
    """Saved tensors are used at backward whatever happened to them since."""
    graph = _sub(m, "autograd.graph")

    def make(original):
        def unpack(self):
            for saved in (self._saved or {}).values():
                if isinstance(saved, graph.Saved):
                    saved.version = saved.counter.value
            return original(self)

        return unpack

    _wrap(graph.Node, "unpack", make)


def version_not_shared_with_views(m):
    """A view counts its own in-place changes, apart from its base."""
    ops = _sub(m, "ops")
    counter_type = type(m.tensor([0.0])._version_counter)

    def make(original):
        def view(self, *args, **kwargs):
            out = original(self, *args, **kwargs)
            out._version_counter = counter_type()
            out._version_counter.value = self._version_counter.value
            out._view_version = out._version_counter.value
            return out

        return view

    _wrap(ops, "_view", make)


def version_not_shared_with_detach(m):
    """detach() shares memory but starts its own version counter."""

    def make(original):
        def detach(self):
            out = original(self)
            out._version_counter = type(self._version_counter)()
            return out

        return detach

    _wrap(m.Tensor, "detach", make)


def detach_copies(m):
    """detach() copies the values instead of aliasing them."""

    def make(original):
        def detach(self):
            out = original(self)
            out._data = self._data.copy()
            return out

        return detach

    _wrap(m.Tensor, "detach", make)


def tensor_keeps_graph(m):
    """tensor([t0, t1, ...]) of tensors stacks them, keeping the graph."""

    def make(original):
        def tensor(data, **kwargs):
            if (
                isinstance(data, (list, tuple))
                and data
                and all(isinstance(x, m.Tensor) and x.dim() == 0 for x in data)
            ):
                return m.stack(list(data))
            return original(data, **kwargs)

        return tensor

    _wrap(m, "tensor", make)


def stack_cuts_graph(m):
    """stack() returns a tensor cut from its inputs' graph."""
    _wrap(m, "stack", lambda original: lambda tensors, dim=0: original(tensors, dim).detach())


def numpy_not_refusing(m):
    """numpy() of a tensor that requires grad returns its memory anyway."""

    def make(original):
        def numpy(self, *, force=False):
            return original(self, force=True)

        return numpy

    _wrap(m.Tensor, "numpy", make)


def to_returns_a_leaf(m):
    """A dtype or device copy is a new leaf that requires grad instead of a ToCopyBackward0."""

    def make(original):
        def to_copy(tensor, device, dtype):
            out = original(tensor, device, dtype)
            if out.grad_fn is not None:
                out._grad_fn, out._requires_grad = None, True
            return out

        return to_copy

    _wrap(_sub(m, "seams.devices"), "to_copy", make)


def no_broadcast_reduction(m):
    """Gradients of broadcast inputs are not summed back to the input's shape."""
    functions = _sub(m, "functions")

    def unbroadcast(g, shape, dtype=None):
        return g if dtype is None or g.dtype == dtype else g.astype(dtype)

    functions.unbroadcast = unbroadcast


def retain_graph_ignored(m):
    """backward(retain_graph=True) frees the graph anyway."""
    engine = _sub(m, "autograd.engine")

    def make(original):
        def run_backward(roots, root_grads, retain_graph, *args, **kwargs):
            return original(roots, root_grads, False, *args, **kwargs)

        return run_backward

    _wrap(engine, "run_backward", make)


def saved_tensors_never_freed(m):
    """backward() keeps every saved tensor, so a second backward always works."""
    graph = _sub(m, "autograd.graph")
    graph.Node.release = lambda self: None


def no_grad_still_records(m):
    """no_grad() is accepted but operations inside it still record a graph."""
    m.no_grad = m.enable_grad


def leaf_inplace_allowed(m):
    """In-place changes of leaves that require grad (and of their views) go through."""
    _sub(m, "seams.inplace_versions").check_inplace = lambda tensor: None


def nonleaf_requires_grad_settable(m):
    """Assigning requires_grad on a non-leaf is accepted silently."""
    prop = m.Tensor.requires_grad

    def setter(t, flag):
        t._requires_grad = bool(flag)

    m.Tensor.requires_grad = property(prop.fget, setter)


def retain_grad_ignored(m):
    """retain_grad() sets the flag but nothing keeps the gradient."""

    def retain_grad(self):
        self._retains_grad = True

    m.Tensor.retain_grad = retain_grad


def data_is_tracked(m):
    """.data shares the version counter, so edits through it count as in-place changes."""
    prop = m.Tensor.data

    def data(t):
        out = prop.fget(t)
        out._version_counter = t._version_counter
        return out

    m.Tensor.data = property(data, prop.fset)


def tensor_shares_numpy_memory(m):
    """tensor(ndarray) wraps the array instead of copying it."""

    def make(original):
        def tensor(data, **kwargs):
            if isinstance(data, np.ndarray) and not kwargs:
                return m.from_numpy(data)
            return original(data, **kwargs)

        return tensor

    _wrap(m, "tensor", make)


def clone_shares_memory(m):
    """clone() records CloneBackward0 but aliases the memory."""

    def make(original):
        def clone(self, **kwargs):
            out = original(self, **kwargs)
            out._data = self._data
            return out

        return clone

    _wrap(m.Tensor, "clone", make)


def float_returns_a_copy(m):
    """.to(dtype) / .float() copy even when nothing changes."""
    devices = _sub(m, "seams.devices")
    devices.to = lambda tensor, device, dtype, copy: devices.to_copy(
        tensor, device or tensor._device, dtype or tensor._dtype
    )


def python_floats_give_float64(m):
    """Python floats are stored as float64 (NumPy's default) rather than float32."""
    factories = _sub(m, "factories")

    def make(original):
        def infer(values):
            found = original(values)
            return m.float64 if found is m.float32 else found

        return infer

    _wrap(factories, "_infer_dtype", make)


def repr_ignores_dtype_and_autograd(m):
    """repr prints every tensor as float32 values, without dtype, requires_grad or grad_fn."""
    fmt = _sub(m, "_format")
    plain = {"requires_grad": False, "grad_fn_name": None, "dtype_name": "float32"}

    def make(original):
        def format_tensor(host, **kwargs):
            return original(host, **{**kwargs, **plain})

        return format_tensor

    _wrap(fmt, "format_tensor", make)


def cat_accepts_0d(m):
    """cat() of 0-d tensors is accepted (as a stack) instead of refused."""

    def make(original):
        def cat(tensors, dim=0):
            tensors = list(tensors)
            if any(t.dim() == 0 for t in tensors):
                return m.stack(tensors, dim)
            return original(tensors, dim)

        return cat

    _wrap(m, "cat", make)


def parameter_copies(m):
    """nn.Parameter(x) copies x instead of sharing its memory."""
    base = m.nn.Parameter

    class Parameter(base):
        def __new__(cls, data=None, requires_grad=True):
            if data is not None:
                data = data.detach().clone()
            return base.__new__(cls, data, requires_grad)

    m.nn.Parameter = Parameter


def module_to_replaces_parameters(m):
    """Module.to() puts new converted tensors in place of the parameters."""

    def to(self, *args, **kwargs):
        owners = [self]
        while owners:
            owner = owners.pop()
            owners.extend(owner._modules.values())
            for name, p in list(owner._parameters.items()):
                if p is not None:
                    owner._parameters[name] = m.nn.Parameter(p.detach().to(*args, **kwargs))
        return self

    m.nn.Module.to = to


def tensor_class_infers_dtype(m):
    """Tensor(data) infers the dtype like tensor() (ints stay int64) instead of float32."""
    factories = _sub(m, "factories")

    def make(original):
        def legacy_construct(cls, dtype, args, kwargs):
            if len(args) == 1 and isinstance(args[0], list):
                return m.tensor(args[0])
            return original(cls, dtype, args, kwargs)

        return legacy_construct

    _wrap(factories, "legacy_construct", make)


def integer_results_require_grad(m):
    """long() and argmax() of a tensor that requires grad say they require grad too."""
    for name in ("long", "argmax"):

        def make(original):
            def method(self, *args, **kwargs):
                out = original(self, *args, **kwargs)
                out._requires_grad = self.requires_grad
                return out

            return method

        _wrap(m.Tensor, name, make)


def once_only_warnings_repeat(m):
    """Warnings PyTorch gives once per process are given every time."""

    class Forgetful(set):
        def __contains__(self, key):
            return False

    _sub(m, "_warnings")._already = Forgetful()


def leaf_keeps_the_gradient_handed_to_it(m):
    """A leaf's first .grad is the incoming gradient array itself, never copied (so after
    (a + b).sum().backward() a.grad and b.grad share one array)."""
    Tensor = m.Tensor

    def accumulate_grad(tensor, grad, version=None, retained=False):
        if not retained and not tensor._requires_grad:
            return
        if tensor._grad is None:
            array = grad.reshape(tensor._data.shape)
            tensor._grad = Tensor._make(array, tensor._device, tensor._dtype)
        else:
            tensor._grad._data += grad

    _sub(m, "seams.leaf_nodes").accumulate_grad = accumulate_grad


def requires_grad_read_when_recorded(m):
    """A leaf gets its gradient even when requires_grad was turned off before backward."""
    leaf_nodes = _sub(m, "seams.leaf_nodes")

    def make(original):
        def accumulate_grad(tensor, grad, version=None, retained=False):
            if not retained and not tensor._requires_grad:
                tensor._requires_grad = True  # as if the flag were read when recorded
                try:
                    return original(tensor, grad, version, retained)
                finally:
                    tensor._requires_grad = False
            return original(tensor, grad, version, retained)

        return accumulate_grad

    _wrap(leaf_nodes, "accumulate_grad", make)


def grad_setter_unchecked(m):
    """Assigning .grad takes anything, of any shape, dtype or type."""
    Tensor = m.Tensor
    Tensor.grad = property(Tensor.grad.fget, lambda t, value: setattr(t, "_grad", value))


def roots_walked_per_entry(m):
    """backward's dependency count walks a node once per root naming it, so roots sharing a
    node (backward([a, a]), outputs of unbind) leave everything below without a gradient."""
    engine = _sub(m, "autograd.engine")

    def count(roots):
        stack = [n for n in roots if n is not None]
        deps = dict.fromkeys(stack, 0)
        while stack:
            node = stack.pop()
            for nxt, _ in node.next_functions:
                if nxt is None:
                    continue
                if nxt not in deps:
                    deps[nxt] = 0
                    stack.append(nxt)
                deps[nxt] += 1
        return deps

    engine._count_dependencies = count


def backward_inputs_ignored(m):
    """backward(inputs=...) is checked but then every leaf accumulates."""
    engine = _sub(m, "autograd.engine")
    _wrap(
        engine,
        "run_backward",
        lambda run: lambda *args, inputs=None, **kwargs: run(*args, **kwargs),
    )


def grad_runs_every_branch(m):
    """autograd.grad runs (and frees) every node it reaches, not only those leading to the
    requested inputs."""
    engine = _sub(m, "autograd.engine")
    AccumulateGrad = _sub(m, "autograd.graph").AccumulateGrad

    def everything(roots, targets):
        seen, stack = set(), [n for n in roots if n is not None]
        while stack:
            node = stack.pop()
            if node not in seen and type(node) is not AccumulateGrad:
                seen.add(node)
                stack.extend(n for n, _ in node.next_functions if n is not None)
        return seen

    engine._leading_to = everything


def shared_modules_visited_twice(m):
    """named_parameters() and named_modules() yield a module or parameter once per name that
    holds it, so SGD steps a shared layer twice."""
    Module = _sub(m, "nn.modules").Module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        yield prefix, self
        for name, sub in self._modules.items():
            yield from sub.named_modules(None, prefix + ("." if prefix else "") + name)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        for mprefix, sub in self.named_modules(prefix=prefix):
            for name, p in sub._parameters.items():
                if p is not None:
                    yield mprefix + ("." if mprefix else "") + name, p

    Module.named_modules = named_modules
    Module.named_parameters = named_parameters
    Module.children = lambda self: iter(self._modules.values())


def to_ignores_cpu_index(m):
    """to("cpu:0") returns a CPU tensor itself, as to("cpu") does."""
    ops = _sub(m, "ops")
    _wrap(
        ops,
        "_parse_to",
        lambda parse: lambda args, kwargs: (*parse(args, kwargs)[:2], kwargs.get("copy", False)),
    )


def hooks_skip_missing_gradients(m):
    """A hook on an output that got no gradient is not called (PyTorch calls it with None)."""
    engine = _sub(m, "autograd.engine")

    def run_hooks(run):
        def wrapped(node, grads):
            hooks = node._hooks
            node._hooks = [(nr, h) for nr, h in hooks or () if grads[nr] is not None] or None
            try:
                return run(node, grads)
            finally:
                node._hooks = hooks

        return wrapped

    _wrap(engine, "_run_tensor_hooks", run_hooks)


def retain_grad_stays_on_old_node(m):
    """After an in-place change, .grad of a retained tensor is the old version's gradient."""
    _sub(m, "ops")._move_retained = lambda t, new_fn: None


def grad_mode_decorator_only_at_creation(m):
    """@no_grad() on a generator function sets the mode only while the generator object is
    made, not while its body runs."""
    grad_mode = _sub(m, "autograd.grad_mode")

    def decorate(fn, make_context):
        def wrapper(*args, **kwargs):
            with make_context():
                return fn(*args, **kwargs)

        return wrapper

    grad_mode._decorate = decorate


def python_ints_not_wrapped(m):
    """A Python int operand is used as its exact value: int32 + 2**40 raises NumPy's
    OverflowError and int32 < 2**40 compares exactly, where PyTorch wraps it to the dtype."""
    _sub(m, "ops")._int_scalar = lambda v, dtype: v


def views_ignore_base_requires_grad(m):
    """A view made before base.requires_grad_() keeps requires_grad=False, so in-place ops on
    it are recorded instead of refused."""
    Tensor = m.Tensor
    Tensor.requires_grad = property(
        lambda t: t._requires_grad or t.grad_fn is not None, Tensor.requires_grad.fset
    )


def no_grad_views_rebuilt(m):
    """A view made under no_grad and then written in place gets a rebuilt history (or none)
    instead of refusing to be used in autograd."""
    Tensor = m.Tensor

    def make(original):
        def regenerate(self):
            if self._view_flags is not None:
                self._view_version = self._version_counter.value
                return
            return original(self)

        return regenerate

    _wrap(Tensor, "_regenerate_view_history", make)


def scalar_arguments_unchecked(m):
    """fill_, clamp, full, pow, alpha, where and __setitem__ take a Python number their dtype
    cannot hold and leave it to NumPy (its OverflowError, or a silently wrapped value)."""
    _sub(m, "ops")._checked_scalar = lambda v, dtype, half=True: v


def remainder_like_c(m):
    """% keeps the dividend's sign (C's fmod) instead of the divisor's, as PyTorch does."""
    ops = _sub(m, "ops")
    m.Tensor.__mod__ = ops.quiet_operator(ops._floor_op(np.fmod))


def remainder_divisor_gets_no_gradient(m):
    """a % b of tensors treats floor(a / b) as if it did not depend on b: the divisor's
    gradient is left out instead of -floor(a / b)."""
    node = _sub(m, "functions").RemainderBackward1
    node.apply = lambda self, g: self._out(g, None)


def type_names_unqualified(m):
    """Size, dtype and device keep Python's bare class names, so Python's messages say
    'Size' object is not callable where PyTorch's say 'torch.Size'; size() and the like are
    Python methods ('method' object is not subscriptable)."""
    for cls in (m.Size, m.dtype, m.device):
        type.__dict__["__name__"].__set__(cls, cls.__qualname__)
    for name in ("size", "dim", "numel", "item", "tolist"):
        setattr(m.Tensor, name, getattr(m.Tensor, name))  # the class reads the plain function


def ufunc_bool_results_stay_bool(m):
    """A NumPy ufunc's bool result comes back as a bool tensor, where PyTorch makes it uint8."""
    from_numpy = m.from_numpy
    m.Tensor.__array_wrap__ = lambda self, array: from_numpy(array)


def int_division_wraps_the_number(m):
    """int32 / 2**40 wraps the number into int32 first (0, so inf), as an integer op would,
    where PyTorch divides by the number itself."""
    ops = _sub(m, "ops")

    def div(self, other):
        if other.__class__ is int and self.dtype in (m.int32, m.int64):
            other = ops._int_scalar(other, self.dtype)
        return ops.div(self, other)

    m.Tensor.__truediv__ = ops.quiet_operator(div)


def python_argument_errors(m):
    """Methods are plain Python functions: a call PyTorch's parser refuses gets Python's or
    NumPy's own error (or a NotImplemented result) instead of the parser's text."""
    signatures = _sub(m, "_signatures")
    for name in signatures.SIGNATURES.keys() - {"new"}:
        setattr(m.Tensor, name, getattr(m.Tensor, name).__wrapped__)
    for name in signatures.FUNCTIONS:
        setattr(m, name, getattr(m, name).__wrapped__)


def detach_in_place_keeps_requires_grad(m):
    """detach_() drops the grad_fn but leaves requires_grad on (the tensor still records)."""

    def detach_(self):
        self._grad_fn, self._requires_grad = None, True
        return self

    m.Tensor.detach_ = detach_


def tensor_of_a_tensor_silent(m):
    """tensor(t) of a tensor copies without PyTorch's copy-construct warning."""
    messages = _sub(m, "_messages")
    rebuilding = _sub(m, "seams.rebuilding_tensors")
    original = rebuilding.warn

    def warn(text, *args, **kwargs):
        if text != messages.COPY_CONSTRUCT.format(f"{messages.LIB}.tensor"):
            original(text, *args, **kwargs)

    rebuilding.warn = warn


def softmax_grad_without_sum(m):
    """SoftmaxBackward0 returns g * softmax, forgetting the term through the normaliser."""
    F = _sub(m, "functions")
    F.SoftmaxBackward0.apply = lambda self, g: (g * self.unpack()["result"],)


def loss_modules_ignore_reduction(m):
    """nn.MSELoss and nn.CrossEntropyLoss always average, whatever `reduction=` says."""
    modules = _sub(m, "nn.modules")
    functional = _sub(m, "nn.functional")
    modules.MSELoss.forward = lambda self, a, b: functional.mse_loss(a, b)
    modules.CrossEntropyLoss.forward = lambda self, a, b: functional.cross_entropy(a, b)


def adam_without_bias_correction(m):
    """Adam steps by lr * m / (sqrt(v) + eps), without dividing by 1 - beta ** step."""
    optim = _sub(m, "optim")

    def update(self, p, d):
        state = self.state[p]
        if not state:
            state["step"] = optim._step_tensor()
            state["exp_avg"] = m.zeros_like(p)
            state["exp_avg_sq"] = m.zeros_like(p)
        beta1, beta2 = d["betas"]
        g = p._grad + p * d["weight_decay"] if d["weight_decay"] else p._grad
        state["step"].add_(1)
        state["exp_avg"].mul_(beta1).add_(g * (1 - beta1))
        state["exp_avg_sq"].mul_(beta2).add_(g * g * (1 - beta2))
        p.sub_(state["exp_avg"] / (state["exp_avg_sq"].sqrt() + d["eps"]) * d["lr"])

    optim.Adam._update = update


def out_written_without_version_bump(m):
    """torch.add/mul/matmul(..., out=) write into `out` without bumping its version and
    without resizing it (NumPy broadcasts the result into it, or fails)."""
    ops = _sub(m, "ops")

    def into_out(name, result, out, inputs):
        out._data[...] = result._data
        return out

    ops._into_out = into_out


def new_tensor_infers_dtype(m):
    """t.new_tensor(data) infers the dtype from the data instead of taking t's."""
    factories = _sub(m, "factories")

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        if isinstance(data, m.Tensor):
            data = data.detach()._data
        return factories.tensor(data, dtype=dtype, requires_grad=requires_grad)

    m.Tensor.new_tensor = new_tensor


def maximum_ties_to_the_first(m):
    """torch.max(a, b)'s gradient goes wholly to `a` where a == b (PyTorch splits it)."""
    import operator

    F = _sub(m, "functions")

    def apply(self, g):
        s = self.unpack()
        win = self._pick(s["self"], s["other"]) | (s["self"] == s["other"])
        return self._out(np.where(win, g, 0 * g), np.where(win, 0 * g, g))

    F.MaximumBackward0.apply = apply
    F.MinimumBackward0._pick = staticmethod(operator.lt)


def chunk_sizes_rounded_down(m):
    """chunk(n) cuts pieces of size // n (and drops the rest) instead of ceil(size / n)."""
    ops = _sub(m, "ops")
    original = ops.chunk

    def chunk(self, chunks, dim=0):
        d = dim % max(self.ndim, 1)
        step = self.shape[d] // chunks if chunks > 0 else 0
        if chunks <= 0 or step == 0:
            return original(self, chunks, dim)
        return tuple(self.narrow(d, i * step, step) for i in range(chunks))

    m.Tensor.chunk = chunk
    m.chunk = chunk


def shape_errors_from_numpy(m):
    """Batched matmul and broadcasting mismatches reach the user as NumPy's ValueError."""
    ops = _sub(m, "ops")

    def check_shapes(sa, sb):
        np.broadcast_shapes(sa, sb)

    ops._check_shapes = check_shapes
    ops.msg.batch2_size = lambda *a: (_ for _ in ()).throw(ValueError("matmul: mismatch"))


def ufunc_results_are_arrays(m):
    """A NumPy ufunc applied to a tensor gives a NumPy array, not a tensor."""
    del m.Tensor.__array_wrap__


def device_strings_split_by_hand(m):
    """device('cuda:x') and other malformed strings fail with Python's own errors."""
    device_module = _sub(m, "_device")
    device_module._DEVICE_STRING = __import__("re").compile(r"([a-zA-Z_ ]+)(?::(.*))?")


BUGS = {
    "grad_into_nonleaves": ("L3", grad_into_nonleaves),
    "grads_overwritten": ("L8", grads_overwritten),
    "no_version_check": ("I2", no_version_check),
    "version_not_shared_with_views": ("I1", version_not_shared_with_views),
    "version_not_shared_with_detach": ("D2", version_not_shared_with_detach),
    "detach_copies": ("D2", detach_copies),
    "tensor_keeps_graph": ("R1", tensor_keeps_graph),
    "stack_cuts_graph": ("R2", stack_cuts_graph),
    "numpy_not_refusing": ("D1", numpy_not_refusing),
    "to_returns_a_leaf": ("V1", to_returns_a_leaf),
    "no_broadcast_reduction": ("N1", no_broadcast_reduction),
    "retain_graph_ignored": ("L7", retain_graph_ignored),
    "saved_tensors_never_freed": ("L7", saved_tensors_never_freed),
    "no_grad_still_records": ("L9", no_grad_still_records),
    "leaf_inplace_allowed": ("I3", leaf_inplace_allowed),
    "nonleaf_requires_grad_settable": ("L5", nonleaf_requires_grad_settable),
    "retain_grad_ignored": ("L4", retain_grad_ignored),
    "data_is_tracked": ("L10", data_is_tracked),
    "tensor_shares_numpy_memory": ("D3", tensor_shares_numpy_memory),
    "clone_shares_memory": ("I5", clone_shares_memory),
    "float_returns_a_copy": ("V1", float_returns_a_copy),
    "python_floats_give_float64": ("N2", python_floats_give_float64),
    "repr_ignores_dtype_and_autograd": ("N3", repr_ignores_dtype_and_autograd),
    "tensor_class_infers_dtype": ("N2", tensor_class_infers_dtype),
    "integer_results_require_grad": ("L1", integer_results_require_grad),
    "once_only_warnings_repeat": ("R1", once_only_warnings_repeat),
    "cat_accepts_0d": ("R2", cat_accepts_0d),
    "parameter_copies": ("R4", parameter_copies),
    "module_to_replaces_parameters": ("V5", module_to_replaces_parameters),
    "leaf_keeps_the_gradient_handed_to_it": ("L11", leaf_keeps_the_gradient_handed_to_it),
    "requires_grad_read_when_recorded": ("L12", requires_grad_read_when_recorded),
    "grad_setter_unchecked": ("L13", grad_setter_unchecked),
    "detach_in_place_keeps_requires_grad": ("D2", detach_in_place_keeps_requires_grad),
    "tensor_of_a_tensor_silent": ("D3", tensor_of_a_tensor_silent),
    "ufunc_results_are_arrays": ("N1", ufunc_results_are_arrays),
    "device_strings_split_by_hand": ("V1", device_strings_split_by_hand),
    "roots_walked_per_entry": ("L8", roots_walked_per_entry),
    "backward_inputs_ignored": ("L3", backward_inputs_ignored),
    "grad_runs_every_branch": ("L7", grad_runs_every_branch),
    "shared_modules_visited_twice": ("N1", shared_modules_visited_twice),
    "to_ignores_cpu_index": ("V1", to_ignores_cpu_index),
    "hooks_skip_missing_gradients": ("L3", hooks_skip_missing_gradients),
    "retain_grad_stays_on_old_node": ("L4", retain_grad_stays_on_old_node),
    "grad_mode_decorator_only_at_creation": ("L9", grad_mode_decorator_only_at_creation),
    "python_ints_not_wrapped": ("N2", python_ints_not_wrapped),
    "views_ignore_base_requires_grad": ("I3", views_ignore_base_requires_grad),
    "no_grad_views_rebuilt": ("I4", no_grad_views_rebuilt),
    "scalar_arguments_unchecked": ("N2", scalar_arguments_unchecked),
    "remainder_like_c": ("N1", remainder_like_c),
    "python_argument_errors": ("N1", python_argument_errors),
    "int_division_wraps_the_number": ("N1", int_division_wraps_the_number),
    "ufunc_bool_results_stay_bool": ("N2", ufunc_bool_results_stay_bool),
    "type_names_unqualified": ("N3", type_names_unqualified),
    "remainder_divisor_gets_no_gradient": ("N1", remainder_divisor_gets_no_gradient),
    "softmax_grad_without_sum": ("N1", softmax_grad_without_sum),
    "loss_modules_ignore_reduction": ("N1", loss_modules_ignore_reduction),
    "adam_without_bias_correction": ("N1", adam_without_bias_correction),
    "out_written_without_version_bump": ("N1", out_written_without_version_bump),
    "new_tensor_infers_dtype": ("N2", new_tensor_infers_dtype),
    "maximum_ties_to_the_first": ("N1", maximum_ties_to_the_first),
    "chunk_sizes_rounded_down": ("N1", chunk_sizes_rounded_down),
    "shape_errors_from_numpy": ("N1", shape_errors_from_numpy),
}


def planted_engine(bug: str):
    """A fresh minigrad copy with `bug` planted."""
    m = fresh_minigrad(bug)
    BUGS[bug][1](m)
    return m
