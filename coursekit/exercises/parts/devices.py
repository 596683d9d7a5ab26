"""The devices exercise: its prose, the order of its answer cells and its visible tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/devices.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: `.to()`
#
# `t.to(...)`, `t.cuda()`, `t.cpu()`, `t.float()`, `t.double()` and `model.to(...)` all end
# in one function of `minigrad/seams/devices.py`, once
# the arguments are read into a device (`tensor._device`'s kind), a dtype (`tensor._dtype`'s
# kind) and a `copy` flag: **`to(tensor, device, dtype, copy)`**. Nothing to change means
# no copy at all: the very same tensor comes back.

# %% [seam] to

# %% [markdown]
# **`to_copy(tensor, device, dtype)`** makes the copy. It is an operation like any other:
# recorded when it should be, so the copy of a leaf that requires grad is a non-leaf (the
# pitfall of `w = torch.randn(3, requires_grad=True).cuda()`, whose `w.grad` stays None).

# %% [seam] to_copy

# %% [markdown]
# **`to_copy_backward(grad, src_dtype, src_device)`** sends the copy's gradient back to the
# source: its device, its dtype.

# %% [seam] to_copy_backward

# %% [markdown]
# ### Check: nothing to change, no copy (V1)

# %% [test] V1
x = tensor([1.0, 2.0], requires_grad=True)
assert x.to("cpu") is x and x.float() is x and x.to(float32) is x
y = x.double()
assert y is not x and y.dtype is float64
assert not y.is_leaf and type(y.grad_fn).__name__ == "ToCopyBackward0"

# %% [markdown]
# ### Check: the gradient comes back in the source's dtype (V2)

# %% [test] V2
x = tensor([1.0, 2.0], requires_grad=True)
(x.double() * 3).sum().backward()
assert x.grad.dtype is float32 and x.grad.tolist() == [3.0, 3.0]

# %% [markdown]
# ### On a GPU
#
# Where a GPU is present, `.cuda()` is the same recorded copy, and the gradient of the copy
# comes back to the CPU leaf.

# %% [cuda]
x = tensor([1.0, 2.0], requires_grad=True)
y = x.cuda()
assert y.device == device("cuda:0") and not y.is_leaf
(y * 2).sum().backward()
assert x.grad.device == device("cpu") and x.grad.tolist() == [2.0, 2.0]
