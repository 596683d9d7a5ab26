"""Planted bugs in the engine: minigrad with exactly one mistake students typically make.

Each is a text edit of minigrad's source (coursekit/planted.py: the format and the one helper
that plants it, `planted_engine`), here as data only:

    BUGS[name] = Bug(rule, file relative to minigrad/, text, replacement, why)

`text` must occur exactly once in the file (planted_engine asserts it). A bug edits the
function that makes the mistake; one made in several places (or in no one function, as
grad_into_nonleaves) edits a module's last lines to append code that rebinds what it changes.
"""

from coursekit.planted import Bug

BUGS = {
    "grad_into_nonleaves": Bug(
        "L3",
        "tensor.py",
        "from .seams import not_built  # noqa: E402\n",
        "from .seams import not_built  # noqa: E402\n"
        "\n"
        '_grad_fn_slot = Tensor.__dict__["_grad_fn"]\n'
        "\n"
        "\n"
        "def _record_and_retain(t, fn):\n"
        "    _grad_fn_slot.__set__(t, fn)\n"
        "    if fn is not None:\n"
        "        fn._retained = (fn._retained or []) + [(0, t)]\n"
        "\n"
        "\n"
        "Tensor._grad_fn = property(_grad_fn_slot.__get__, _record_and_retain)\n"
        "Tensor.grad = property(lambda t: t._grad, Tensor.grad.fset)\n",
        "Every result of an operation gets its gradient written, like a leaf's, without warning.",
    ),
    "grads_overwritten": Bug(
        "L8",
        "seams/leaf_nodes.py",
        "    if not retained and not tensor._requires_grad:\n",
        "    tensor._grad = None\n    if not retained and not tensor._requires_grad:\n",
        "backward() replaces .grad instead of adding to it.",
    ),
    "no_version_check": Bug(
        "I2",
        "autograd/graph.py",
        "            if isinstance(s, Saved):  # checked against in-place changes since it was"
        " saved\n",
        "            if isinstance(s, Saved):  # checked against in-place changes since it was"
        " saved\n"
        "                s.version = s.counter.value\n",
        "Saved tensors are used at backward whatever happened to them since.",
    ),
    "version_not_shared_with_views": Bug(
        "I1",
        "ops/views.py",
        "    _versions.share_version(out, self)\n    out._base = base\n",
        "    out._version_counter.value = self._version_counter.value\n    out._base = base\n",
        "A view counts its own in-place changes, apart from its base.",
    ),
    "version_not_shared_with_detach": Bug(
        "D2",
        "seams/detach_numpy.py",
        "    out._version_counter = tensor._version_counter\n",
        "",
        "detach() shares memory but starts its own version counter.",
    ),
    "detach_copies": Bug(
        "D2",
        "seams/detach_numpy.py",
        "    out = Tensor._make(tensor._data, tensor._device, tensor._dtype)\n",
        "    out = Tensor._make(tensor._data.copy(), tensor._device, tensor._dtype)\n",
        "detach() copies the values instead of aliasing them.",
    ),
    "tensor_keeps_graph": Bug(
        "R1",
        "factories.py",
        '    dtype = _dtypes.argument("tensor", dtype)\n',
        "    if (\n"
        "        isinstance(data, (list, tuple))\n"
        "        and data\n"
        "        and builtins.all(isinstance(x, Tensor) and x.dim() == 0 for x in data)\n"
        "    ):\n"
        "        return _rebuild.stack(list(data), 0)\n"
        '    dtype = _dtypes.argument("tensor", dtype)\n',
        "tensor([t0, t1, ...]) of tensors stacks them, keeping the graph.",
    ),
    "stack_cuts_graph": Bug(
        "R2",
        "ops/joining.py",
        "    return _rebuild.stack(tensors, dim)\n",
        "    return _rebuild.stack(tensors, dim).detach()\n",
        "stack() returns a tensor cut from its inputs' graph.",
    ),
    "numpy_not_refusing": Bug(
        "D1",
        "tensor.py",
        "        return _detach_numpy.numpy(self, force)\n",
        "        return _detach_numpy.numpy(self, True)\n",
        "numpy() of a tensor that requires grad returns its memory anyway.",
    ),
    "to_returns_a_leaf": Bug(
        "V1",
        "seams/devices.py",
        "        out._grad_fn = ToCopyBackward0((tensor._edge(),), tensor._dtype,"
        " tensor._device)\n",
        "        out._requires_grad = True\n",
        "A dtype or device copy is a new leaf that requires grad instead of a ToCopyBackward0.",
    ),
    "no_broadcast_reduction": Bug(
        "N1",
        "ops/_common.py",
        "    if g.shape != tuple(shape):\n",
        "    if False:\n",
        "Gradients of broadcast inputs are not summed back to the input's shape.",
    ),
    "retain_graph_ignored": Bug(
        "L7",
        "autograd/engine.py",
        "            if not retain_graph:\n                node.release()\n",
        "            node.release()\n",
        "backward(retain_graph=True) frees the graph anyway.",
    ),
    "saved_tensors_never_freed": Bug(
        "L7",
        "autograd/graph.py",
        "        if self._saved is not None:\n            self._saved = dict.fromkeys(",
        "        if False:\n            self._saved = dict.fromkeys(",
        "backward() keeps every saved tensor, so a second backward always works.",
    ),
    "no_grad_still_records": Bug(
        "L9",
        "__init__.py",
        "from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled\n",
        "from .autograd import enable_grad, is_grad_enabled, set_grad_enabled\n"
        "from .autograd import enable_grad as no_grad\n",
        "no_grad() is accepted but operations inside it still record a graph.",
    ),
    "leaf_inplace_allowed": Bug(
        "I3",
        "seams/inplace_versions.py",
        "    base = tensor._base\n",
        "    return\n    base = tensor._base\n",
        "In-place changes of leaves that require grad (and of their views) go through.",
    ),
    "nonleaf_requires_grad_settable": Bug(
        "L5",
        "tensor.py",
        "    def requires_grad(self, flag):\n",
        "    def requires_grad(self, flag):\n"
        "        self._requires_grad = bool(flag)\n"
        "        return\n",
        "Assigning requires_grad on a non-leaf is accepted silently.",
    ),
    "retain_grad_ignored": Bug(
        "L4",
        "tensor.py",
        "        return _leaf.retain_grad(self)\n",
        "        self._retains_grad = True\n",
        "retain_grad() sets the flag but nothing keeps the gradient.",
    ),
    "data_is_tracked": Bug(
        "L10",
        "tensor.py",
        "        return Tensor._make(self._data, self._device, self._dtype)\n\n    @data.setter\n",
        "        out = Tensor._make(self._data, self._device, self._dtype)\n"
        "        out._version_counter = self._version_counter\n"
        "        return out\n\n    @data.setter\n",
        ".data shares the version counter, so edits through it count as in-place changes.",
    ),
    "tensor_shares_numpy_memory": Bug(
        "D3",
        "factories.py",
        '    dtype = _dtypes.argument("tensor", dtype)\n',
        "    if isinstance(data, np.ndarray) and dtype is None and device is None and not"
        " requires_grad:\n"
        "        return from_numpy(data)\n"
        '    dtype = _dtypes.argument("tensor", dtype)\n',
        "tensor(ndarray) wraps the array instead of copying it.",
    ),
    "clone_shares_memory": Bug(
        "I5",
        "ops/copies.py",
        "    out = Tensor._make(self._data.copy(), self._device, self._dtype)\n"
        "    if _needs_grad(self):\n"
        "        out._grad_fn = CloneBackward0",
        "    out = Tensor._make(self._data, self._device, self._dtype)\n"
        "    if _needs_grad(self):\n"
        "        out._grad_fn = CloneBackward0",
        "clone() records CloneBackward0 but aliases the memory.",
    ),
    "float_returns_a_copy": Bug(
        "V1",
        "seams/devices.py",
        "    dtype = dtype or tensor._dtype\n"
        "    if device == tensor._device and dtype is tensor._dtype and not copy:\n"
        "        return tensor\n",
        "    dtype = dtype or tensor._dtype\n",
        ".to(dtype) / .float() copy even when nothing changes.",
    ),
    "python_floats_give_float64": Bug(
        "N2",
        "factories.py",
        "    return out or _dtypes.float32\n",
        "    out = out or _dtypes.float32\n"
        "    return _dtypes.float64 if out is _dtypes.float32 else out\n",
        "Python floats are stored as float64 (NumPy's default) rather than float32.",
    ),
    "repr_ignores_dtype_and_autograd": Bug(
        "N3",
        "_format.py",
        "    if dtype_name not in _NUMPY_DTYPES:\n",
        '    requires_grad, grad_fn_name, dtype_name = False, None, "float32"\n'
        "    if dtype_name not in _NUMPY_DTYPES:\n",
        "repr prints every tensor as float32 values, without dtype, requires_grad or grad_fn.",
    ),
    "tensor_class_infers_dtype": Bug(
        "N2",
        "factories.py",
        '    if kwargs.keys() - {"device"}:\n'
        '        raise _signatures.error("new", args, kwargs)\n',
        "    if len(args) == 1 and isinstance(args[0], list):\n"
        "        return tensor(args[0])\n"
        '    if kwargs.keys() - {"device"}:\n'
        '        raise _signatures.error("new", args, kwargs)\n',
        "Tensor(data) infers the dtype like tensor() (ints stay int64) instead of float32.",
    ),
    "integer_results_require_grad": Bug(
        "L1",
        "ops/__init__.py",
        "Tensor.__hash__ = object.__hash__  # __eq__ returns a tensor; hashing stays by identity\n",
        "Tensor.__hash__ = object.__hash__  # __eq__ returns a tensor; hashing stays by identity\n"
        "\n"
        "\n"
        "def _as_its_input(method):\n"
        "    def result(self, *args, **kwargs):\n"
        "        out = method(self, *args, **kwargs)\n"
        "        out._requires_grad = self.requires_grad\n"
        "        return out\n"
        "\n"
        "    return result\n"
        "\n"
        "\n"
        "Tensor.long, Tensor.argmax = _as_its_input(Tensor.long), _as_its_input(Tensor.argmax)\n",
        "long() and argmax() of a tensor that requires grad say they require grad too.",
    ),
    "once_only_warnings_repeat": Bug(
        "R1",
        "_warnings.py",
        "        if once_key in _already:\n            return\n",
        "",
        "Warnings PyTorch gives once per process are given every time.",
    ),
    "cat_accepts_0d": Bug(
        "R2",
        "ops/joining.py",
        "    tensors, skipped, dtype = _without_legacy_empty(tensors)\n",
        "    tensors, skipped, dtype = _without_legacy_empty(tensors)\n"
        "    tensors = list(tensors)\n"
        "    if builtins.any(t.dim() == 0 for t in tensors):\n"
        "        return stack(tensors, dim)\n",
        "cat() of 0-d tensors is accepted (as a stack) instead of refused.",
    ),
    "parameter_copies": Bug(
        "R4",
        "nn/parameter.py",
        "        p = Tensor._make.__func__(cls, data._data, data._device, data._dtype)\n"
        "        _versions.share_version(p, data)\n",
        "        p = Tensor._make.__func__(cls, data._data.copy(), data._device, data._dtype)\n",
        "nn.Parameter(x) copies x instead of sharing its memory.",
    ),
    "module_to_replaces_parameters": Bug(
        "V5",
        "nn/modules.py",
        "        with grad_mode.no_grad():\n"
        "            for p in self.parameters():\n"
        "                moved = p.to(*args, **kwargs)\n"
        "                if moved is not p:\n"
        "                    p.data = moved\n"
        "                    if p._grad is not None:\n"
        "                        p._grad.data = p._grad.to(*args, **kwargs)\n",
        "        for owner in self.modules():\n"
        "            for name, p in list(owner._parameters.items()):\n"
        "                if p is not None:\n"
        "                    owner._parameters[name] = Parameter(p.detach().to(*args, **kwargs))\n",
        "Module.to() puts new converted tensors in place of the parameters.",
    ),
    "leaf_keeps_the_gradient_handed_to_it": Bug(
        "L11",
        "seams/leaf_nodes.py",
        "    if isinstance(grad, np.generic):  # NumPy turns 0-d results into scalars\n"
        "        grad = np.asarray(grad)\n"
        "    if grad.dtype != tensor._data.dtype:\n"
        "        grad, version = grad.astype(tensor._data.dtype), 0\n"
        "    if tensor._grad is None or retained:\n"
        "        if tensor._grad is not None:\n"
        "            grad, version = tensor._grad._data + grad, 0\n"
        "        elif retained:\n"
        "            grad, version = grad.copy(), 0\n"
        "        elif version is None:\n"
        "            # PyTorch copies a buffer it cannot take over with copy_() into a fresh"
        " tensor:\n"
        "            # that in-place copy is the new gradient's version 1.\n"
        "            grad, version = grad.copy(), 1\n"
        "        tensor._grad = Tensor._make(grad.reshape(tensor._data.shape), tensor._device,"
        " tensor._dtype)\n"
        "        tensor._grad._version_counter.value = version\n"
        "    else:\n"
        "        tensor._grad._data += grad\n"
        "        tensor._grad._version_counter.value += 1\n",
        "    if tensor._grad is None:\n"
        "        array = grad.reshape(tensor._data.shape)\n"
        "        tensor._grad = Tensor._make(array, tensor._device, tensor._dtype)\n"
        "    else:\n"
        "        tensor._grad._data += grad\n",
        "A leaf's first .grad is the incoming gradient array itself, never copied (so after "
        "(a + b).sum().backward() a.grad and b.grad share one array).",
    ),
    "requires_grad_read_when_recorded": Bug(
        "L12",
        "seams/leaf_nodes.py",
        "    if not retained and not tensor._requires_grad:\n        return\n",
        "",
        "A leaf gets its gradient even when requires_grad was turned off before backward.",
    ),
    "grad_setter_unchecked": Bug(
        "L13",
        "seams/leaf_nodes.py",
        "    if value is not None:\n        if not isinstance(value, Tensor):\n",
        "    if False:\n        if not isinstance(value, Tensor):\n",
        "Assigning .grad takes anything, of any shape, dtype or type.",
    ),
    "detach_in_place_keeps_requires_grad": Bug(
        "D2",
        "seams/detach_numpy.py",
        "    if tensor._base is not None:\n"
        "        raise RuntimeError(msg.DETACH_VIEW_INPLACE)\n"
        "    tensor._grad_fn = None\n"
        "    tensor._requires_grad = False\n",
        "    tensor._grad_fn = None\n    tensor._requires_grad = True\n",
        "detach_() drops the grad_fn but leaves requires_grad on (the tensor still records).",
    ),
    "tensor_of_a_tensor_silent": Bug(
        "D3",
        "seams/rebuilding_tensors.py",
        '        warn(msg.COPY_CONSTRUCT.format(f"{msg.LIB}.tensor"))\n',
        "",
        "tensor(t) of a tensor copies without PyTorch's copy-construct warning.",
    ),
    "ufunc_results_are_arrays": Bug(
        "N1",
        "tensor.py",
        "    def __array_wrap__(self, array):\n",
        "    def _array_wrap(self, array):\n",
        "A NumPy ufunc applied to a tensor gives a NumPy array, not a tensor.",
    ),
    "device_strings_split_by_hand": Bug(
        "V1",
        "_device.py",
        '_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")\n',
        '_DEVICE_STRING = re.compile(r"([a-zA-Z_ ]+)(?::(.*))?")\n',
        "device('cuda:x') and other malformed strings fail with Python's own errors.",
    ),
    "roots_walked_per_entry": Bug(
        "L8",
        "autograd/engine.py",
        "    deps = dict.fromkeys(n for n in roots if n is not None)\n    stack = list(deps)\n",
        "    stack = [n for n in roots if n is not None]\n    deps = dict.fromkeys(stack)\n",
        "backward's dependency count walks a node once per root naming it, so roots sharing a "
        "node (backward([a, a]), outputs of unbind) leave everything below without a gradient.",
    ),
    "backward_inputs_ignored": Bug(
        "L3",
        "autograd/engine.py",
        "    run_backward([t._edge() for t in tensors], grads, bool(retain_graph),"
        " inputs=targets)\n",
        "    run_backward([t._edge() for t in tensors], grads, bool(retain_graph))\n",
        "backward(inputs=...) is checked but then every leaf accumulates.",
    ),
    "grad_runs_every_branch": Bug(
        "L7",
        "autograd/engine.py",
        "    parents = {}\n"
        "    stack = list(dict.fromkeys(n for n in roots if n is not None))\n"
        "    seen = set(stack)\n",
        "    seen, stack = set(), [n for n in roots if n is not None]\n"
        "    while stack:\n"
        "        node = stack.pop()\n"
        "        if node not in seen and type(node) is not AccumulateGrad:\n"
        "            seen.add(node)\n"
        "            stack.extend(n for n in node._next_nodes if n is not None)\n"
        "    return seen\n"
        "    parents = {}\n"
        "    stack = list(dict.fromkeys(n for n in roots if n is not None))\n"
        "    seen = set(stack)\n",
        "autograd.grad runs (and frees) every node it reaches, not only those leading to the "
        "requested inputs.",
    ),
    "shared_modules_visited_twice": Bug(
        "N1",
        "nn/modules.py",
        "                if t is None or t in memo:\n",
        "                if t is None:\n",
        "named_parameters() yields a parameter once per module or attribute that holds it, so "
        "SGD steps a shared layer twice.",
    ),
    "to_ignores_cpu_index": Bug(
        "V1",
        "ops/copies.py",
        '            copy = copy or (d.type == "cpu" and d.index is not None)\n',
        "",
        'to("cpu:0") returns a CPU tensor itself, as to("cpu") does.',
    ),
    "hooks_skip_missing_gradients": Bug(
        "L3",
        "autograd/engine.py",
        "            if hook(None) is not None:\n"
        "                raise RuntimeError(msg.HOOK_REPLACED_NONE)\n",
        "",
        "A hook on an output that got no gradient is not called (PyTorch calls it with None).",
    ),
    "retain_grad_stays_on_old_node": Bug(
        "L4",
        "ops/inplace.py",
        "    if not t._retains_grad:\n        return\n    old_fn = t._grad_fn\n",
        "    return\n    old_fn = t._grad_fn\n",
        "After an in-place change, .grad of a retained tensor is the old version's gradient.",
    ),
    "grad_mode_decorator_only_at_creation": Bug(
        "L9",
        "autograd/grad_mode.py",
        "    if inspect.isgeneratorfunction(fn):\n",
        "    if False:\n",
        "@no_grad() on a generator function sets the mode only while the generator object is "
        "made, not while its body runs.",
    ),
    "python_ints_not_wrapped": Bug(
        "N2",
        "ops/_common.py",
        "    if not -(1 << 63) <= v < (1 << 64):\n",
        "    return v\n    if not -(1 << 63) <= v < (1 << 64):\n",
        "A Python int operand is used as its exact value: int32 + 2**40 raises NumPy's "
        "OverflowError and int32 < 2**40 compares exactly, where PyTorch wraps it to the dtype.",
    ),
    "views_ignore_base_requires_grad": Bug(
        "I3",
        "tensor.py",
        "        if self._requires_grad or self._grad_fn is not None:\n"
        "            return True\n"
        "        base = self._base\n"
        "        return base is not None and base.requires_grad\n",
        "        return self._requires_grad or self.grad_fn is not None\n",
        "A view made before base.requires_grad_() keeps requires_grad=False, so in-place ops on "
        "it are recorded instead of refused.",
    ),
    "no_grad_views_rebuilt": Bug(
        "I4",
        "tensor.py",
        "        base = self._base\n        if self._grad_fn is None and not base.requires_grad:\n",
        "        if self._view_flags is not None:\n"
        "            self._view_version = self._version_counter.value\n"
        "            return\n"
        "        base = self._base\n        if self._grad_fn is None and not base.requires_grad:\n",
        "A view made under no_grad and then written in place gets a rebuilt history (or none) "
        "instead of refusing to be used in autograd.",
    ),
    "scalar_arguments_unchecked": Bug(
        "N2",
        "ops/_common.py",
        '    as the Python number it holds."""\n',
        '    as the Python number it holds."""\n    return v\n',
        "fill_, clamp, full, pow, alpha, where and __setitem__ take a Python number their dtype "
        "cannot hold and leave it to NumPy (its OverflowError, or a silently wrapped value).",
    ),
    "remainder_like_c": Bug(
        "N1",
        "ops/arithmetic.py",
        '    "__mod__": quiet_operator(remainder),\n',
        '    "__mod__": quiet_operator(_floor_op(np.fmod)),\n',
        "% keeps the dividend's sign (C's fmod) instead of the divisor's, as PyTorch does.",
    ),
    "softmax_grad_without_sum": Bug(
        "N1",
        "ops/unary.py",
        "        return (gr - r * gr.sum(axis=self.dim, keepdims=True),)\n",
        "        return (gr,)\n",
        "SoftmaxBackward0 returns g * softmax, forgetting the term through the normaliser.",
    ),
    "loss_modules_ignore_reduction": Bug(
        "N1",
        "nn/modules.py",
        '    "Tensor",\n]\n',
        '    "Tensor",\n]\n'
        "\n"
        "MSELoss.forward = lambda self, input, target: F.mse_loss(input, target)\n"
        "CrossEntropyLoss.forward = lambda self, input, target: F.cross_entropy(input, target)\n",
        "nn.MSELoss and nn.CrossEntropyLoss always average, whatever `reduction=` says.",
    ),
    "adam_without_bias_correction": Bug(
        "N1",
        "optim.py",
        "        step_size = lr / bias_correction1\n        bias_correction2_sqrt ="
        " bias_correction2**0.5\n",
        "        step_size = lr\n        bias_correction2_sqrt = 1\n",
        "Adam steps by lr * m / (sqrt(v) + eps), without dividing by 1 - beta ** step.",
    ),
    "out_written_without_version_bump": Bug(
        "N1",
        "ops/out.py",
        "    if not isinstance(out, Tensor):\n"
        '        raise TypeError(msg.arg_type(name, "out", len(inputs) + 1, "Tensor", out))\n',
        "    out._data[...] = result._data\n"
        "    return out\n"
        "    if not isinstance(out, Tensor):\n"
        '        raise TypeError(msg.arg_type(name, "out", len(inputs) + 1, "Tensor", out))\n',
        "torch.add/mul/matmul(..., out=) write into `out` without bumping its version and "
        "without resizing it (NumPy broadcasts the result into it, or fails).",
    ),
    "new_tensor_infers_dtype": Bug(
        "N2",
        "factories.py",
        '        warn(msg.COPY_CONSTRUCT.format("tensor.new_tensor"))\n'
        "        data = data.detach()._data\n"
        "    return tensor(\n"
        "        data,\n"
        "        dtype=dtype or self.dtype,\n"
        "        device=device or self.device,\n",
        "        data = data.detach()._data\n"
        "    return tensor(\n"
        "        data,\n"
        "        dtype=dtype,\n",
        "t.new_tensor(data) infers the dtype from the data instead of taking t's.",
    ),
    "maximum_ties_to_the_first": Bug(
        "N1",
        "ops/arithmetic.py",
        "        win = self._pick(a, b)\n"
        "        tie = a == b\n"
        "        half = g / 2\n"
        "        zero = xp.zeros_like(g)\n"
        "        ga = xp.where(tie, half, xp.where(win, g, zero))\n"
        "        gb = xp.where(tie, half, xp.where(win, zero, g))\n",
        "        win = self._pick(a, b) | (a == b)\n"
        "        zero = xp.zeros_like(g)\n"
        "        ga = xp.where(win, g, zero)\n"
        "        gb = xp.where(win, zero, g)\n",
        "torch.max(a, b)'s gradient goes wholly to `a` where a == b (PyTorch splits it).",
    ),
    "chunk_sizes_rounded_down": Bug(
        "N1",
        "ops/views.py",
        "    step = -(-size // chunks)\n"
        "    sizes = [builtins.min(step, size - i) for i in range(0, size, step)] if step else"
        " [0]\n"
        "    node = None\n"
        "    if _needs_grad(self):\n"
        "        node = SplitBackward0((self._edge(),), self._data.shape, d, sizes)\n",
        "    step = -(-size // chunks)\n"
        "    sizes = [builtins.min(step, size - i) for i in range(0, size, step)] if step else"
        " [0]\n"
        "    if size // chunks:\n"
        "        sizes = [size // chunks] * chunks\n"
        "    node = None\n"
        "    if _needs_grad(self):\n"
        "        rest = [size - builtins.sum(sizes)]  # the dropped end: zeros at backward\n"
        "        node = SplitBackward0((self._edge(),), self._data.shape, d, sizes + rest)\n",
        "chunk(n) cuts pieces of size // n (and drops the rest) instead of ceil(size / n).",
    ),
    "shape_errors_from_numpy": Bug(
        "N1",
        "ops/_common.py",
        "def _check_shapes(sa, sb):\n",
        "def _numpy_matmul_error(*sizes):\n"
        '    raise ValueError("matmul: mismatch")\n'
        "\n"
        "\n"
        "msg.batch2_size = _numpy_matmul_error\n"
        "\n"
        "\n"
        "def _check_shapes(sa, sb):\n"
        "    np.broadcast_shapes(sa, sb)\n"
        "    return\n",
        "Batched matmul and broadcasting mismatches reach the user as NumPy's ValueError.",
    ),
    "remainder_divisor_gets_no_gradient": Bug(
        "N1",
        "ops/arithmetic.py",
        "            gb = -g * xp.floor_divide(a, b)\n",
        "            gb = None\n",
        "a % b of tensors treats floor(a / b) as if it did not depend on b: the divisor's"
        " gradient is left out instead of -floor(a / b).",
    ),
    "type_names_unqualified": Bug(
        "N3",
        "_cnames.py",
        '        _TYPE_NAME.__set__(cls, f"{LIB}.{name}")\n',
        "        pass\n",
        "Size, dtype and device keep Python's bare class names, so Python's messages say 'Size'"
        " object is not callable where PyTorch's say 'torch.Size'.",
    ),
    "ufunc_bool_results_stay_bool": Bug(
        "N2",
        "tensor.py",
        "        return from_numpy(array.astype(np.uint8) if array.dtype == np.bool_ else array)\n",
        "        return from_numpy(array)\n",
        "A NumPy ufunc's bool result comes back as a bool tensor, where PyTorch makes it uint8.",
    ),
    "int_division_wraps_the_number": Bug(
        "N1",
        "ops/arithmetic.py",
        '        b = b.astype(dtype.np) if hasattr(b, "astype") else other\n',
        '        b = b.astype(dtype.np) if hasattr(b, "astype") else b\n',
        "int32 / 2**40 wraps the number into int32 first (0, so inf), as an integer op would,"
        " where PyTorch divides by the number itself.",
    ),
    "python_argument_errors": Bug(
        "N1",
        "ops/__init__.py",
        "    setattr(Tensor, _name, _signatures.parsed(_name, getattr(Tensor, _name)))\n",
        "    pass\n",
        "Methods are plain Python functions: a call PyTorch's parser refuses gets Python's or"
        " NumPy's own error (or a NotImplemented result) instead of the parser's text.",
    ),
    "python_function_argument_errors": Bug(
        "N1",
        "__init__.py",
        "    globals()[_name] = _signatures.parsed(_name, globals()[_name], function=True)\n",
        "    pass\n",
        "The factories and torch.* functions are plain Python functions: randint(1.5, (2,))"
        " runs, and a call PyTorch's parser refuses gets Python's own error (or a"
        " NotImplemented result) instead of the parser's text.",
    ),
    "repeating_view_gradient_overwritten": Bug(
        "I4",
        "ops/views.py",
        "    if not _may_overlap(region):\n",
        "    if True:\n",
        "A view rebuilt after an in-place change of its base writes its gradient back through"
        " itself: where it shows one element several times (an expanded tensor), only the last"
        " showing's gradient is kept.",
    ),
    "list_index_not_read_as_a_tuple": Bug(
        "N1",
        "ops/indexing.py",
        "    index = _sequence_as_tuple(index)\n",
        "",
        "x[[[0, 1]]] is read as one 2-D index (shape (1, 2, k)), where PyTorch 2.13 reads the"
        " outer list as a tuple of indices, x[[0, 1]], and warns that this is deprecated.",
    ),
    "range_checked_before_type": Bug(
        "N1",
        "_signatures.py",
        "_PARSER_FIRST = (TypeError, ValueError, AttributeError, IndexError, RuntimeError)\n",
        "_PARSER_FIRST = (TypeError, ValueError, AttributeError)\n",
        "stack([x], 2.5) is refused for its range (IndexError) where PyTorch's parser refuses"
        " the float first (TypeError: argument 'dim' must be int, not float).",
    ),
    "detach_in_place_keeps_a_leaf_requiring_grad": Bug(
        "D2",
        "seams/detach_numpy.py",
        "    tensor._grad_fn = None\n    tensor._requires_grad = False\n",
        "    tensor._grad_fn = None\n",
        "detach_() drops the history but leaves a leaf's requires_grad on.",
    ),
    "from_numpy_takes_anything": Bug(
        "D3",
        "seams/detach_numpy.py",
        "    if not isinstance(array, np.ndarray):\n"
        '        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")\n',
        "",
        "from_numpy of a list fails on the list's missing strides (AttributeError) instead of"
        " PyTorch's TypeError.",
    ),
    "from_numpy_refuses_zero_strides": Bug(
        "D3",
        "seams/detach_numpy.py",
        "    if any(s < 0 for s in array.strides):\n",
        "    if any(s <= 0 for s in array.strides):\n",
        "from_numpy refuses zero strides too, where PyTorch refuses only negative ones.",
    ),
    "cat_backward_drops_none_slots": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "            out.append(grad[lead + (slice(start, start + n),)].astype(dt, copy=False))\n"
        "        else:\n"
        "            out.append(None)\n",
        "            out.append(grad[lead + (slice(start, start + n),)].astype(dt, copy=False))\n",
        "cat's backward leaves out the slot of an input that needs no gradient: the next"
        " inputs' gradients shift by one.",
    ),
    "in_place_refused_for_a_leaf_without_grad": Bug(
        "I3",
        "seams/inplace_versions.py",
        "    if tensor.requires_grad and tensor.grad_fn is None:\n",
        "    if tensor.requires_grad or tensor.grad_fn is None:\n",
        "In-place into a leaf that needs no grad (or a view of one) is refused as if it"
        " required grad.",
    ),
    "custom_function_output_views_writable": Bug(
        "X4",
        "autograd/function.py",
        '            out._view_flags = "custom"  # PyTorch\'s CreationMeta::IN_CUSTOM_FUNCTION\n',
        "            pass\n",
        "An input a custom Function returns as it is can be written in place afterwards,"
        " overriding the custom backward.",
    ),
    "custom_backward_shape_unchecked": Bug(
        "X2",
        "autograd/function.py",
        "    if data.shape != shape:\n",
        "    if data.shape != shape and False:\n",
        "A custom backward's gradient of the wrong shape goes on unchecked.",
    ),
    "custom_gradients_not_materialized": Bug(
        "X1",
        "autograd/function.py",
        "            if g is None and meta is not None and self.materialize_grads:\n",
        "            if g is None and meta is not None and not self.materialize_grads:\n",
        "A custom backward gets None for an output that received no gradient, not zeros.",
    ),
    "custom_function_instantiation_silent": Bug(
        "X1",
        "autograd/function.py",
        "        warn(msg.FUNCTION_INSTANTIATED.format(type(self)), DeprecationWarning)\n",
        "        pass\n",
        "Instantiating a Function says nothing, where PyTorch warns it is deprecated.",
    ),
    "mark_dirty_without_version_bump": Bug(
        "X4",
        "autograd/function.py",
        "    _seams.inplace_versions.bump_version(t)\n",
        "    pass\n",
        "An input marked dirty keeps its version: PyTorch counts one more change.",
    ),
    "module_list_not_renumbered": Bug(
        "N4",
        "nn/modules.py",
        "        _renumber(self)\n",
        "        pass\n",
        "Deleting from a ModuleList or Sequential leaves a gap in the names (0, 2, ...).",
    ),
    "buffers_left_out_of_state_dict": Bug(
        "N4",
        "nn/modules.py",
        "            if b is not None and k not in self._non_persistent_buffers_set:\n",
        "            if False:\n",
        "state_dict() holds the parameters only: a registered buffer is neither saved nor loaded.",
    ),
    "optimizer_state_not_loaded": Bug(
        "N4",
        "optim.py",
        "                state[p] = {key: _cast_state(p, key, value) for key, value in"
        " v.items()}\n",
        "                pass\n",
        "Optimizer.load_state_dict takes the settings but not the momentum or Adam moments.",
    ),
    "bce_mean_not_divided": Bug(
        "N4",
        "nn/logits_loss.py",
        '        if self.reduction == _REDUCTIONS["mean"]:\n',
        "        if False:\n",
        "The gradient of a mean BCEWithLogits loss is not divided by the number of elements.",
    ),
    "dataloader_skips_the_base_seed": Bug(
        "N4",
        "utils/data.py",
        "        _random.random_int64()  # the iterator's base seed (for workers), drawn as PyTorch"
        " does\n",
        "        pass\n",
        "DataLoader shuffles from the next draw of the generator, not the one PyTorch uses.",
    ),
    "setup_context_ignored": Bug(
        "X1",
        "autograd/function.py",
        "        separate = cls.setup_context is not Function.setup_context\n",
        "        separate = False\n",
        "A Function written with setup_context gets ctx passed to forward as its first input.",
    ),
    "amax_ties_all_get_the_gradient": Bug(
        "N5",
        "ops/reductions.py",
        "        return (masked((g / count).astype(g.dtype, copy=False), hit),)\n",
        "        return (masked(g, hit),)\n",
        "amax/amin give the whole gradient to every tied extreme instead of sharing it.",
    ),
    "var_divides_by_n": Bug(
        "N5",
        "ops/reductions.py",
        "        correction = 0 if unbiased is False else 1\n",
        "        correction = 0\n",
        "std and var divide by N by default, not by N - 1 (Bessel's correction).",
    ),
    "gather_gradient_overwrites_repeats": Bug(
        "N5",
        "ops/indexing.py",
        "        add_at(out, _along(xp, idx, self.dim), _at_least_1d(g))\n",
        "        out[_along(xp, idx, self.dim)] = _at_least_1d(g)\n",
        "gather's gradient keeps one contribution of an index picked twice instead of their sum.",
    ),
    "one_hot_as_floats": Bug(
        "N5",
        "nn/functional.py",
        "(data[..., None] == xp.arange(num_classes)).astype(np.int64)",
        "(data[..., None] == xp.arange(num_classes)).astype(np.float32)",
        "one_hot returns float32 rows instead of int64 ones.",
    ),
    "whole_setitem_through_a_view": Bug(
        "I4",
        "ops/indexing.py",
        "    if _selects_whole(parts, self._data.shape):\n",
        "    if False:\n",
        "t[...] = v writes through a view (CopySlices), where PyTorch copies into t itself.",
    ),
    # The single-point mistakes among the killed mutants of the exercises' answers that no
    # diagnosis named (bench/diagnoses.py lists them; issue 34, item 4), made as a student
    # makes them: a check left out, a condition half written, a line forgotten.
    "read_grad_warns_for_a_retained_nonleaf": Bug(
        "L3",
        "seams/leaf_nodes.py",
        "    if tensor._grad is None and tensor.grad_fn is not None"
        " and not tensor._retains_grad:\n",
        "    if tensor._grad is None and tensor.grad_fn is not None:\n",
        "reading .grad of a non-leaf that retains its gradient warns before backward(), as if it "
        "did not retain it.",
    ),
    "retain_grad_accepts_a_tensor_without_grad": Bug(
        "L4",
        "seams/leaf_nodes.py",
        "    if not tensor.requires_grad:\n        raise RuntimeError(msg.RETAIN_GRAD_NO_GRAD)\n",
        "",
        "retain_grad() of a tensor that does not require grad is accepted instead of refused.",
    ),
    "retain_grad_leaves_the_flag_off": Bug(
        "L4",
        "seams/leaf_nodes.py",
        "    tensor._retains_grad = True\n",
        "",
        "retain_grad() registers the tensor with its node but leaves .retains_grad False.",
    ),
    "retained_grad_replaced": Bug(
        "L12",
        "seams/leaf_nodes.py",
        "        if tensor._grad is not None:\n"
        "            grad, version = tensor._grad._data + grad, 0\n"
        "        elif retained:\n",
        "        if retained:\n",
        "a retained non-leaf's .grad is replaced by each backward()'s gradient instead of summed.",
    ),
    "later_gradients_dropped": Bug(
        "L8",
        "seams/leaf_nodes.py",
        "        tensor._grad._data += grad\n",
        "",
        "a leaf's .grad keeps the first backward()'s gradient: later ones add nothing to it.",
    ),
    "grad_setter_takes_a_non_tensor": Bug(
        "L13",
        "seams/leaf_nodes.py",
        "        if not isinstance(value, Tensor):\n"
        "            raise TypeError(msg.GRAD_NOT_TENSOR.format(msg.type_name(value)))\n",
        "",
        "t.grad = value does not refuse a value that is not a tensor (TypeError in PyTorch).",
    ),
    "grad_setter_takes_the_tensor_itself": Bug(
        "L13",
        "seams/leaf_nodes.py",
        "        if value is tensor:\n            raise RuntimeError(msg.GRAD_SELF)\n",
        "",
        "t.grad = t is accepted instead of refused.",
    ),
    "grad_setter_takes_another_dtype": Bug(
        "L13",
        "seams/leaf_nodes.py",
        "        if value._dtype is not tensor._dtype:\n",
        "        if False:\n",
        "t.grad = g accepts a gradient of another dtype than t's instead of refusing it.",
    ),
    "detach_in_place_of_a_view_allowed": Bug(
        "D2",
        "seams/detach_numpy.py",
        "    if tensor._base is not None:\n        raise RuntimeError(msg.DETACH_VIEW_INPLACE)\n",
        "",
        "detach_() of a view is carried out instead of refused.",
    ),
    "numpy_refused_inside_no_grad": Bug(
        "D1",
        "seams/detach_numpy.py",
        "    if tensor.requires_grad and grad_mode._enabled and not force:\n",
        "    if tensor.requires_grad and not force:\n",
        "numpy() of a tensor that requires grad is refused inside no_grad() too, where PyTorch "
        "returns the array.",
    ),
    "from_numpy_takes_negative_strides": Bug(
        "D3",
        "seams/detach_numpy.py",
        "    if any(s < 0 for s in array.strides):\n"
        "        raise ValueError(msg.NEGATIVE_STRIDES)\n",
        "",
        "from_numpy() of an array with negative strides (a[::-1]) is accepted instead of refused.",
    ),
    "from_numpy_silent_on_a_read_only_array": Bug(
        "D3",
        "seams/detach_numpy.py",
        "    if not array.flags.writeable:\n"
        '        warn(msg.NON_WRITABLE_NUMPY, once_key="non-writable-numpy")\n',
        "",
        "from_numpy() of a read-only array does not warn that the tensor can write into it.",
    ),
    "in_place_through_a_no_grad_view_allowed": Bug(
        "I3",
        "seams/inplace_versions.py",
        "        if tensor._view_flags is not None:\n"
        "            raise RuntimeError(tensor._view_rebase_message(indirect=False))\n",
        "",
        "an in-place write through a view PyTorch won't write through (made under no_grad(), or "
        "one of several outputs) is allowed.",
    ),
    "in_place_on_a_view_of_a_leaf_allowed": Bug(
        "I3",
        "seams/inplace_versions.py",
        "        if tensor.requires_grad and base.grad_fn is None:\n"
        "            raise RuntimeError(msg.VIEW_OF_LEAF_INPLACE)\n",
        "",
        "an in-place change of a view of a leaf that requires grad is allowed.",
    ),
    "tensor_of_tensors_without_the_grad_warning": Bug(
        "R1",
        "seams/rebuilding_tensors.py",
        "        return values._scalar(warn_if_grad=True)\n",
        "        return values._scalar(warn_if_grad=False)\n",
        "tensor([t0, t1]) of tensors that require grad takes their numbers without PyTorch's "
        "warning.",
    ),
    "tensor_of_a_tensor_shares_memory": Bug(
        "D3",
        "seams/rebuilding_tensors.py",
        "        arr = src._data.astype((dtype or src._dtype).np, copy=True)\n",
        "        arr = src._data.astype((dtype or src._dtype).np, copy=False)\n",
        "tensor(t) in t's own dtype shares t's memory instead of copying it.",
    ),
    "stack_sizes_left_to_numpy": Bug(
        "N1",
        "seams/rebuilding_tensors.py",
        "        if t._data.shape != shape:\n",
        "        if False:\n",
        "stack() of tensors of different shapes is not refused with PyTorch's RuntimeError "
        "(NumPy's ValueError comes out instead).",
    ),
    "stack_backward_along_dim_0": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "        grad[lead + (i,)].astype(dt, copy=False) if node is not None else None\n",
        "        grad[i].astype(dt, copy=False) if node is not None else None\n",
        "stack's backward takes each input's slice of the gradient along dim 0, whatever dim "
        "was stacked on.",
    ),
    "cat_backward_never_moves_on": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "        start += n\n",
        "",
        "cat's backward gives every input the first part of the gradient (its start never "
        "moves on).",
    ),
    "cat_backward_along_dim_0": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "            out.append(grad[lead + (slice(start, start + n),)].astype(dt, copy=False))\n",
        "            out.append(grad[start : start + n].astype(dt, copy=False))\n",
        "cat's backward cuts the gradient along dim 0, whatever dim was joined on.",
    ),
    "cat_takes_a_0d_tensor": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "    for i, t in enumerate(tensors):\n"
        "        if t._data.ndim == 0:\n"
        "            raise RuntimeError(msg.CAT_ZERO_DIM.format(i))\n",
        "",
        "cat() of a 0-d tensor is not refused with PyTorch's message.",
    ),
    "cat_ranks_left_to_numpy": Bug(
        "N1",
        "seams/rebuilding_tensors.py",
        "        if len(shape) != len(first):\n"
        "            raise RuntimeError(msg.cat_ndim(len(first), len(shape)))\n",
        "",
        "cat() of tensors with different numbers of dimensions is not refused with PyTorch's "
        "RuntimeError (NumPy's ValueError comes out instead).",
    ),
    "cat_sizes_compared_along_dim": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "            if k != d and want != got:\n",
        "            if want != got:\n",
        "cat() refuses inputs whose sizes differ along the joined dim, the one that may differ.",
    ),
    "cat_cuts_graph": Bug(
        "R2",
        "seams/rebuilding_tensors.py",
        "    if needs_grad(*tensors) and dtype.is_floating_point:\n"
        "        out._grad_fn = CatBackward0(\n"
        "            tuple(t._edge() for t in tensors), d, [meta(t) for t in tensors]\n"
        "        )\n",
        "",
        "cat() returns a tensor cut from its inputs' graph (no CatBackward0).",
    ),
    "setitem_without_return": Bug(
        "R3",
        "seams/rebuilding_tensors.py",
        "        copy_(region, value)\n        return\n",
        "        copy_(region, value)\n",
        "x[i] = v with a basic index writes through the view, then again as an advanced index "
        "(a forgotten return): IndexPutBackward0 instead of CopySlices.",
    ),
    "index_put_not_recorded": Bug(
        "R3",
        "seams/rebuilding_tensors.py",
        "        if needs_grad(old, value_t):\n"
        "            value_meta = meta(value_t) if value_t is not None else None\n"
        "            out._grad_fn = IndexPutBackward0((old._edge(), edge(value_t)), index,"
        " value_meta)\n",
        "",
        "x[idx] = v with an index tensor or list is not recorded (no IndexPutBackward0).",
    ),
    "to_compares_only_the_device": Bug(
        "V1",
        "seams/devices.py",
        "    if device == tensor._device and dtype is tensor._dtype and not copy:\n"
        "        return tensor\n"
        "    return to_copy(",
        "    if device == tensor._device and not copy:\n        return tensor\n    return to_copy(",
        ".to(dtype) and .float() return the tensor itself whenever the device stays, whatever "
        "the dtype.",
    ),
    "to_copy_records_integer_copies": Bug(
        "V1",
        "seams/devices.py",
        "    if needs_grad(tensor) and dtype.is_floating_point:\n",
        "    if needs_grad(tensor):\n",
        "a copy to an integer or bool dtype of a tensor that requires grad is recorded "
        "(ToCopyBackward0) instead of being a leaf.",
    ),
}
