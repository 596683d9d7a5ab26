"""Student part of the inplace_versions assignment: version counters and the checks on them."""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: version counters, the saved-tensor check, in-place on leaves
#
# Every tensor has a `_version_counter` (a `VersionCounter`: one integer, `.value`).
# `t._version` reads it.
#
# **`share_version(alias, source)`** is called whenever a new tensor `alias` is made that
# uses `source`'s memory: every view (`x[0]`, `x.view(6)`, `x.t()`, ...), every
# `detach()`, every `nn.Parameter(x)`. They must all count changes on **one** counter.
#
# **`bump_version(t)`** is called by every in-place operation once it has written into
# `t`'s memory (`add_`, `+=`, `x[i] = v`, `copy_`, `zero_`, ...). One change, one step.


# %% [solution]
def share_version(alias, source):
    """Make `alias` count its changes on `source`'s version counter."""
    ### BEGIN SOLUTION
    alias._version_counter = source._version_counter
    ### END SOLUTION


def bump_version(t):
    """Record one in-place change of `t`'s memory."""
    ### BEGIN SOLUTION
    t._version_counter.value += 1
    ### END SOLUTION


# %% [test] I1
x = tensor([[1.0, 2.0], [3.0, 4.0]])
row, d = x[0], x.detach()
row.add_(1)
assert x._version == row._version == d._version == 1
x.mul_(2)
d[1, 1] = 0.0
assert x._version == row._version == d._version == 3
assert x.tolist() == [[4.0, 6.0], [6.0, 0.0]]


# %% [markdown]
# **`save_for_backward(tensor, node, is_output)`** is called when `node` keeps `tensor` for
# its backward (`is_output` tells whether `tensor` is the node's own result, as for `exp`).
# Return a `SavedTensor(tensor, version, node, is_output)` remembering the version the
# tensor has now.
#
# **`unpack_saved(saved)`** is called at backward, when the node needs the tensor again.
# If the tensor was changed in place since it was saved, its values are not the ones the
# forward pass used: refuse with PyTorch's `RuntimeError`, whose text names the tensor's
# type and shape, the operation that produced it and both versions, for example
#
#     one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2, 3]], which is output 0 of Mul, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
#
# - `[torch.FloatTensor [2, 3]]`: `type_name(tensor)` and the shape as a list
#   (`[]` for a 0-d tensor);
# - `, which is output 0 of Mul,`: the operation that produced the tensor, as
#   `short_node_name(node)` spells it: for a saved *output*, the node that saved it; for a
#   saved input, the tensor's `grad_fn` now (after the in-place op, that is the in-place op's
#   node). A tensor without one (a leaf, a constant) has no such part: the text goes on
#   with ` is at version 1; ...` right after the `]`;
# - the version now, and the version at saving time.
#
# Otherwise return the tensor.


# %% [solution]
def save_for_backward(tensor, node, is_output=False):
    """What `node` keeps of `tensor`: the tensor and its version now."""
    ### BEGIN SOLUTION
    return SavedTensor(tensor, tensor._version, node, is_output)
    ### END SOLUTION


def unpack_saved(saved):
    """The saved tensor, refused with PyTorch's message when it was changed in place."""
    ### BEGIN SOLUTION
    tensor = saved.tensor
    if tensor._version != saved.version:
        producer = saved.node if saved.is_output else tensor.grad_fn
        made_by = (
            f", which is output 0 of {short_node_name(producer)}," if producer is not None else ""
        )
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_name(tensor)} {list(tensor.shape)}]{made_by} is at "
            f"version {tensor._version}; expected version {saved.version} instead. Hint: "
            "enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )
    return tensor
    ### END SOLUTION


# %% [test] I2
a = tensor([1.0, 2.0, 3.0], requires_grad=True)
x = a * 2
y = x**2  # PowBackward0 saves x
x.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    message = str(error)
else:
    raise AssertionError("backward must refuse: x changed after y's node saved it")
assert message.startswith(
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected "
    "version 0 instead. Hint:"
)


# %% [markdown]
# **`check_inplace(t)`** is called by every in-place operation *before* it writes. With grad
# mode on, PyTorch refuses to change in place:
#
# - a leaf that requires grad: `a leaf Variable that requires grad is being used in an in-place operation.`
# - a view of such a leaf (`t._base` is a leaf that requires grad):
#   `a view of a leaf Variable that requires grad is being used in an in-place operation.`
# - a view made under `no_grad()` of a tensor that requires grad (`t._made_in_no_grad`):
#   `NO_GRAD_VIEW_ERROR`.
#
# Under `no_grad()` all three are allowed: that is how optimisers update parameters.

# %%
NO_GRAD_VIEW_ERROR = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked)."
)


# %% [solution]
def check_inplace(t):
    """Refuse in-place changes PyTorch refuses (leaves and their views, with grad mode on)."""
    ### BEGIN SOLUTION
    if not is_grad_enabled():
        return
    if t._base is not None and t._made_in_no_grad:
        raise RuntimeError(NO_GRAD_VIEW_ERROR)
    if t._base is not None and t._base.is_leaf and t._base.requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    if t.is_leaf and t.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    ### END SOLUTION


# %% [test] I3
a = tensor([1.0, 2.0], requires_grad=True)
attempts = [
    (
        lambda: a.add_(1),
        "a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    (
        lambda: a[0].mul_(2),
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
    ),
]
for attempt, expected in attempts:
    try:
        attempt()
    except RuntimeError as error:
        assert str(error) == expected, str(error)
    else:
        raise AssertionError(f"must raise: {expected}")
with no_grad():
    a.add_(1)
assert a.tolist() == [2.0, 3.0] and a.is_leaf

# %% [markdown]
# ### On a GPU
#
# On a GPU the version error names the tensor's type as `torch.cuda.FloatTensor`.

# %% [cuda]
require_gpu()
x = tensor([1.0, 2.0], device="cuda", requires_grad=True) * 1
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    assert "[torch.cuda.FloatTensor [2]], which is output 0 of Exp," in str(error)
else:
    raise AssertionError("backward must refuse: exp's saved result was changed")
