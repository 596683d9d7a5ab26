"""The rebuilding_tensors exercise: its prose, the order of its answer cells and its visible
tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/rebuilding_tensors.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: `tensor()` copies values
#
# `torch.tensor([a, b])` of tensors that require grad is the classic way to cut a graph
# without noticing: the factory reads *numbers* out of its data and makes a new leaf. The
# functions of `minigrad/seams/rebuilding_tensors.py`
# that you write here are where minigrad does it. `finish(array, device, dtype,
# requires_grad)` makes the leaf; `infer_dtype(data)` and `check_ragged(data)` read nested
# lists as PyTorch does.

# %% [seam] to_python

# %% [seam] tensor_from_data

# %% [markdown]
# ## Your part: `stack` and `cat` keep the graph
#
# Both make one tensor from several and record one edge per input; their backward hands each
# input its part of the gradient. `join_prepare(tensors, name)` checks the list (not empty,
# one device) and returns it with the promoted dtype and the device; `meta(t)` is what a node
# keeps of an input (its shape and NumPy dtype); `t._edge()` is where its gradient goes.

# %% [seam] stack

# %% [seam] stack_backward

# %% [seam] cat

# %% [seam] cat_backward

# %% [markdown]
# ## Your part: `x[i] = v` is recorded
#
# Filling a tensor by index is an in-place operation: through a view for a basic index (the
# engine records the write on the base as `CopySlices`), through `IndexPutBackward0` for an
# advanced one.

# %% [seam] setitem

# %% [seam] index_put

# %% [markdown]
# ### Check: `tensor()` of tensors cuts the graph (R1)

# %% [test] R1
a = tensor([1.0, 2.0], requires_grad=True)
parts = [a[0] * 2, a[1] ** 2]
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    rebuilt = tensor(parts)
assert rebuilt.is_leaf and not rebuilt.requires_grad and rebuilt.tolist() == [2.0, 4.0]
try:
    tensor([a, a])
except ValueError as error:
    assert str(error) == "only one element tensors can be converted to Python scalars"
else:
    raise AssertionError("tensor() of tensors with two elements must raise")

# %% [markdown]
# ### Check: `stack` and `cat` keep it (R2)

# %% [test] R2
u = tensor([1.0, 2.0], requires_grad=True)
s = minigrad.stack([u[0] * 2, u[1] ** 2])
assert type(s.grad_fn).__name__ == "StackBackward0" and s.tolist() == [2.0, 4.0]
c = minigrad.cat([u, u * 3])
assert type(c.grad_fn).__name__ == "CatBackward0" and c.shape == (4,)
(s.sum() + c.sum()).backward()
assert u.grad.tolist() == [6.0, 8.0]
try:
    minigrad.cat([u[0], u[1]])
except RuntimeError as error:
    assert str(error) == "zero-dimensional tensor (at position 0) cannot be concatenated"
else:
    raise AssertionError("cat() of 0-d tensors must raise")

# %% [markdown]
# ### Check: filling by index keeps the graph (R3)

# %% [test] R3
p = tensor([1.0, 2.0], requires_grad=True)
filled = zeros(3)
filled[0] = p[0] * 2
filled[1] = p[1]
assert type(filled.grad_fn).__name__ == "CopySlices" and filled._version == 2
(filled * tensor([1.0, 1.0, 1.0])).sum().backward()
assert p.grad.tolist() == [2.0, 1.0]

# %% [markdown]
# ### On a GPU
#
# The same functions, with CuPy arrays.

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
s = minigrad.stack([x[0], x[1] * 2])
s.sum().backward()
assert s.device == device("cuda:0") and x.grad.tolist() == [1.0, 2.0]
