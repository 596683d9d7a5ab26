"""The leaf_nodes exercise: its prose, the order of its answer cells and its visible tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/leaf_nodes.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: who keeps a gradient
#
# minigrad calls four functions whenever a gradient is read, set or delivered: they are in
# `minigrad/seams/leaf_nodes.py`, and here you write
# them. A tensor's raw gradient slot is `tensor._grad`; `tensor.grad_fn` is None for a leaf;
# `tensor._retains_grad` says whether `retain_grad()` was called on it.
#
# **`read_grad(tensor)`** is what `tensor.grad` returns. Reading the `.grad` of a non-leaf
# that does not retain its gradient, while it has none, is the classic mistake: PyTorch
# returns None *and* warns, with the text `msg.NONLEAF_GRAD_ACCESS` (use `warn(...)`, which
# points the warning at the user's line).

# %% [seam] read_grad

# %% [markdown]
# **`retain_grad(tensor)`** asks a non-leaf to keep its gradient. On a leaf it changes
# nothing (a leaf keeps its gradient anyway, and `retains_grad` stays False); on a tensor
# that does not require grad it raises `RuntimeError(msg.RETAIN_GRAD_NO_GRAD)`. A non-leaf's
# node hands the gradient on during `backward()` to the tensors listed in its `_retained`
# (a list of `(output number, tensor)` pairs, or None): add `(tensor._output_nr, tensor)`.

# %% [seam] retain_grad

# %% [markdown]
# **`accumulate_grad(tensor, grad, version, retained)`** is called by `backward()` with the
# gradient (a NumPy or CuPy array) of each leaf that requires grad and each non-leaf that
# retains its gradient. The rules, each one a line or two:
#
# - a leaf whose `requires_grad` was turned off after the graph was built gets nothing;
# - the gradient is stored in the tensor's dtype (`grad.astype(...)`, then `version` is 0);
# - a leaf's first gradient becomes `.grad`: a new tensor
#   (`Tensor._make(array, tensor._device, tensor._dtype)`) on the engine's buffer, whose
#   version counter (`_version_counter.value`) starts at `version`. `version` None means the
#   buffer is shared with something else (the gradient you passed to `backward()`, say):
#   copy it, and that copy counts as one change (version 1). Two leaves never share a gradient;
# - a leaf's later gradients are added *in place*: the same object stays `.grad`, its version
#   goes up by one;
# - a retained non-leaf gets a new tensor every time: a copy the first time, then the sum of
#   the old gradient and the new one (version 0).

# %% [seam] accumulate_grad

# %% [markdown]
# **`set_grad(tensor, value)`** is `tensor.grad = value`. None is always allowed. Otherwise
# PyTorch checks, in this order, and raises with its own words (all in `msg`): a `Tensor`
# (`TypeError(msg.GRAD_NOT_TENSOR.format(msg.type_name(value)))`), not the tensor itself
# (`msg.GRAD_SELF`), the same dtype (`msg.grad_dtype(cpp_dtype_name(value._dtype),
# scalar_type_name(tensor._dtype))`), the same device (`msg.grad_device`) and the same shape
# (`msg.grad_size`).

# %% [seam] set_grad

# %% [markdown]
# ### Check: who gets `.grad` (L3) and `retain_grad` (L4)

# %% [test] L3
x = tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * x
h.sum().backward()
assert x.grad.tolist() == [2.0, 4.0, 6.0]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert h.grad is None
assert [str(w.message) for w in caught] == [msg.NONLEAF_GRAD_ACCESS]

# %% [test] L4
x = tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.retain_grad()
(h * h).sum().backward()
assert h.retains_grad and h.grad.tolist() == [6.0, 12.0]
x.retain_grad()
assert not x.retains_grad
try:
    tensor([1.0]).retain_grad()
except RuntimeError as error:
    assert str(error) == "can't retain_grad on Tensor that has requires_grad=False"
else:
    raise AssertionError("retain_grad() on a tensor that does not require grad must raise")

# %% [markdown]
# ### Check: accumulation (L8), gradients that own their memory (L11), late changes (L12)

# %% [test] L8
x = tensor([1.0, 2.0], requires_grad=True)
(x * 3).sum().backward()
first = x.grad
(x * x).sum().backward()
assert x.grad is first and x.grad.tolist() == [5.0, 7.0]
x.grad = None
(x * 3).sum().backward()
assert x.grad.tolist() == [3.0, 3.0]

# %% [test] L11
a = tensor([1.0, 2.0], requires_grad=True)
b = tensor([3.0, 4.0], requires_grad=True)
(a + b).sum().backward()
a.grad.add_(10)
assert b.grad.tolist() == [1.0, 1.0], "a.grad and b.grad must be two tensors"
seed = tensor([1.0, 1.0])
(a * 1).backward(seed)
assert a.grad.tolist() == [12.0, 12.0] and seed.tolist() == [1.0, 1.0]

# %% [test] L12
w = tensor([1.0, 2.0], requires_grad=True)
y = (w * 2).sum()
w.requires_grad_(False)
y.backward()
assert w.grad is None, "a leaf turned off before backward() gets no gradient"
x = tensor([1.0, 2.0], requires_grad=True)
h = x * 2
h.retain_grad()
(h * 3).sum().backward(retain_graph=True)
(h * 3).sum().backward()
assert h.grad.tolist() == [6.0, 6.0], "a retained non-leaf's .grad accumulates too"

# %% [markdown]
# ### Check: the `.grad` setter (L13)

# %% [test] L13
x = tensor([1.0, 2.0], requires_grad=True)
x.grad = tensor([0.5, 0.5])
assert x.grad.tolist() == [0.5, 0.5]
for value, error in [("0.5", TypeError), (x, RuntimeError), (tensor([1, 2]), RuntimeError),
                     (tensor([1.0]), RuntimeError)]:  # fmt: skip
    try:
        x.grad = value
    except error:
        pass
    else:
        raise AssertionError(f"x.grad = {value!r} must raise {error.__name__}")

# %% [markdown]
# ### On a GPU
#
# The same engine runs on a GPU when CuPy and a CUDA device are present: the gradient
# arrays are then CuPy's, and nothing in your functions changes.

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
(x * x).sum().backward()
assert x.grad.device == device("cuda:0") and x.grad.tolist() == [2.0, 4.0]
