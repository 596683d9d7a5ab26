"""Student part of the leaf_nodes assignment: who joins the graph, who receives .grad."""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: leaves, `.grad` and `retain_grad`
#
# Four functions decide what every tensor reports about the graph. The skeleton calls them;
# you write them.
#
# **`record_history(result, inputs, make_node)`** is called by every differentiable operation
# right after it computed `result` from the tensors `inputs`. `make_node()` builds the
# operation's node (call it only when the result joins the graph: building it is what saves
# tensors for backward). Record the node with `set_grad_fn(result, node)`. The rules:
#
# - a result joins the graph when at least one input requires grad (one is enough);
# - a result of inputs none of which requires grad stays a leaf: no `grad_fn`, and
#   `requires_grad` stays False;
# - under `no_grad()` (ask `is_grad_enabled()`), nothing joins the graph.
#
# A tensor's `is_leaf` and `requires_grad` follow from its `grad_fn`: a tensor with a
# `grad_fn` is a non-leaf and requires grad.


# %% [solution]
def record_history(result, inputs, make_node):
    """Link `result` to the graph when grad mode is on and any of `inputs` requires grad."""
    ### BEGIN SOLUTION
    if is_grad_enabled() and any(t.requires_grad for t in inputs):
        set_grad_fn(result, make_node())
    ### END SOLUTION


# %% [markdown]
# ### Check: who is a leaf (L1), who is not (L2), and `no_grad` (L9)

# %% [test] L1
a = tensor([1.0, 2.0, 3.0])
b = tensor([0.5, 0.5, 0.5])
c = a + b
assert c.is_leaf and not c.requires_grad and c.grad_fn is None
w = tensor([1.0, 2.0], requires_grad=True)
assert w.is_leaf and w.grad_fn is None
assert (w > 1).is_leaf and not (w > 1).requires_grad

# %% [test] L2
x = tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2 + tensor([1.0, 1.0, 1.0])
assert not y.is_leaf and y.requires_grad
assert type(y.grad_fn).__name__ == "AddBackward0"
assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
assert y.grad_fn.next_functions[1][0] is None  # the constant does not require grad

# %% [test] L9
x = tensor([1.0, 2.0, 3.0], requires_grad=True)
with no_grad():
    z = x * 2
    with enable_grad():
        w = x * 2
assert z.is_leaf and not z.requires_grad
assert not w.is_leaf and type(w.grad_fn).__name__ == "MulBackward0"


# %% [markdown]
# **`deliver_grad(tensor, grad)`** is called by `backward()` with the gradient (a tensor
# that does not require grad, yours to keep) of every tensor on the way back: for each leaf
# that requires grad (from its `AccumulateGrad` node) and for each non-leaf that still
# exists. Decide who keeps it, in `tensor._grad`:
#
# - a leaf keeps its gradient, and **accumulates**: when `_grad` already holds a tensor,
#   add the new gradient into it *in place* (the same object stays `.grad`, its
#   `_version` goes up by one, as for any in-place change: use `bump_version`), until the
#   user zeroes it or sets it to None;
# - a non-leaf keeps nothing, unless `retain_grad()` was called on it (`tensor._retains_grad`).
#
# `tensor._grad` is the raw slot; `tensor.grad` (the property) calls `read_grad` below.


# %% [solution]
def deliver_grad(tensor, grad):
    """Store or accumulate `grad` into `tensor._grad` where PyTorch would keep it."""
    ### BEGIN SOLUTION
    if tensor.grad_fn is not None and not tensor._retains_grad:
        return
    if tensor._grad is None:
        tensor._grad = grad
    else:
        tensor._grad._data += grad._data
        bump_version(tensor._grad)
    ### END SOLUTION


# %% [markdown]
# **`read_grad(tensor)`** is what `tensor.grad` returns. Reading the `.grad` of a non-leaf
# that does not retain its gradient is a classic mistake: PyTorch returns None *and* warns
# (a `UserWarning`, with exactly the text in `NON_LEAF_GRAD_WARNING`, use
# `warnings.warn(NON_LEAF_GRAD_WARNING, stacklevel=2)`).
#
# **`retain_grad(tensor)`** asks a non-leaf to keep its gradient (`tensor._retains_grad`).
# On a leaf it does nothing (a leaf keeps its gradient anyway, and its `retains_grad` stays
# False); on a tensor that does not require grad it raises
# `RuntimeError("can't retain_grad on Tensor that has requires_grad=False")`.

# %%
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


# %% [solution]
def read_grad(tensor):
    """What `tensor.grad` returns, warning on a non-leaf that does not retain its gradient."""
    ### BEGIN SOLUTION
    if tensor.grad_fn is not None and not tensor._retains_grad:
        warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=3)
    return tensor._grad
    ### END SOLUTION


def retain_grad(tensor):
    """Make a non-leaf keep its gradient; nothing on a leaf; refused without requires_grad."""
    ### BEGIN SOLUTION
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.grad_fn is not None:
        tensor._retains_grad = True
    ### END SOLUTION


# %% [markdown]
# ### Check: who gets `.grad` (L3), `retain_grad` (L4), accumulation (L8)

# %% [test] L3
x = tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * x
h.sum().backward()
assert x.grad.tolist() == [2.0, 4.0, 6.0]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert h.grad is None
assert [str(w.message) for w in caught] == [NON_LEAF_GRAD_WARNING]

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

# %% [test] L8
x = tensor([1.0, 2.0], requires_grad=True)
(x * 3).sum().backward()
first = x.grad
(x * x).sum().backward()
assert x.grad is first and x.grad.tolist() == [5.0, 7.0]
x.grad = None
(x * 3).sum().backward()
assert x.grad.tolist() == [3.0, 3.0]

# %% [markdown]
# ### On a GPU
#
# The same engine runs on a GPU when CuPy and a CUDA device are present: `array_module`
# then hands every operation CuPy instead of NumPy, and nothing in your functions changes.

# %% [cuda]
require_gpu()
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
(x * x).sum().backward()
assert x.grad.device == device("cuda:0") and x.grad.tolist() == [2.0, 4.0]
