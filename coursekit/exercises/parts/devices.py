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

# %% [zh-CN]
# ## 你的部分：`.to()`
#
# `t.to(...)`、`t.cuda()`、`t.cpu()`、`t.float()`、`t.double()` 和 `model.to(...)` 在把参数读成一个
# 设备（与 `tensor._device` 同类的对象）、一个 dtype（与 `tensor._dtype` 同类的对象）和一个 `copy` 标志之后，
# 最终都落到 `minigrad/seams/devices.py` 中的一个函数上：**`to(tensor, device, dtype, copy)`**。
# 没有什么要改变，就意味着根本不复制：返回的正是同一个张量。

# %% [seam] to

# %% [zh-CN]
# `tensor.to(device, dtype, copy=copy)`，其中 `device` 或 `dtype` 为 None 表示不变：当两者都不变、
# 且没有要求复制时，返回张量本身（同一个对象，原来是叶子节点就仍是叶子节点）；否则返回
# `to_copy(tensor, device, dtype)`（V1）。

# %% [markdown]
# **`to_copy(tensor, device, dtype)`** makes the copy. It is an operation like any other:
# recorded when it should be, so the copy of a leaf that requires grad is a non-leaf (the
# pitfall of `w = torch.randn(3, requires_grad=True).cuda()`, whose `w.grad` stays None).

# %% [zh-CN]
# **`to_copy(tensor, device, dtype)`** 做出副本。它和其他任何运算一样：在应该记录时被记录，所以
# 需要梯度的叶子节点的副本是一个非叶子节点（这正是 `w = torch.randn(3, requires_grad=True).cuda()`
# 的陷阱，它的 `w.grad` 始终是 None）。

# %% [seam] to_copy

# %% [zh-CN]
# `tensor` 在 `device` 上、以 `dtype` 存放于新内存中的副本（`to_device_array(array, device)`
# 移动一个数组；它可能返回数组本身）。它是作用在 `tensor` 上的一个运算：当它被记录（`needs_grad`）
# 且 dtype 是浮点类型时，副本的 `_grad_fn` 是
# `ToCopyBackward0((tensor._edge(),), source dtype, source device)`，所以需要梯度的叶子节点的
# 副本是一个非叶子节点；复制到整数或 bool dtype 的副本，或者不需要梯度的张量的副本，是一个叶子节点
# （V1）。

# %% [markdown]
# **`to_copy_backward(grad, src_dtype, src_device)`** sends the copy's gradient back to the
# source: its device, its dtype.

# %% [zh-CN]
# **`to_copy_backward(grad, src_dtype, src_device)`** 把副本的梯度送回源张量：回到它的设备、它的
# dtype。

# %% [seam] to_copy_backward

# %% [zh-CN]
# ToCopyBackward0 的反向计算：把副本的梯度（一个数组）返回给源张量，位于源张量的设备上，采用
# 它的 dtype（V2）。

# %% [markdown]
# ### Check: nothing to change, no copy (V1)

# %% [zh-CN]
# ### 检查：没有要改变的，就不复制（V1）

# %% [test] V1
x = tensor([1.0, 2.0], requires_grad=True)
assert x.to("cpu") is x and x.float() is x and x.to(float32) is x
y = x.double()
assert y is not x and y.dtype is float64
assert not y.is_leaf and type(y.grad_fn).__name__ == "ToCopyBackward0"

# %% [markdown]
# ### Check: the gradient comes back in the source's dtype (V2)

# %% [zh-CN]
# ### 检查：梯度以源张量的 dtype 返回（V2）

# %% [test] V2
x = tensor([1.0, 2.0], requires_grad=True)
(x.double() * 3).sum().backward()
assert x.grad.dtype is float32 and x.grad.tolist() == [3.0, 3.0]

# %% [markdown]
# ### On a GPU
#
# Where a GPU is present, `.cuda()` is the same recorded copy, and the gradient of the copy
# comes back to the CPU leaf.

# %% [zh-CN]
# ### 在 GPU 上
#
# 在有 GPU 的地方，`.cuda()` 是同样的被记录的复制，副本的梯度会回到 CPU 上的叶子节点。

# %% [cuda]
x = tensor([1.0, 2.0], requires_grad=True)
y = x.cuda()
assert y.device == device("cuda:0") and not y.is_leaf
(y * 2).sum().backward()
assert x.grad.device == device("cpu") and x.grad.tolist() == [2.0, 2.0]
