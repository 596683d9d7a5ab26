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

# %% [zh-CN]
# ## 你的部分：`tensor()` 复制数值
#
# 对需要梯度的张量调用 `torch.tensor([a, b])`，是在不知不觉中切断计算图的经典方式：这个工厂函数从它的
# 数据中读出*数字*，并创建一个新的叶子节点。你在这里编写的 `minigrad/seams/rebuilding_tensors.py`
# 中的函数，正是 minigrad 做这件事的地方。`finish(array, device, dtype, requires_grad)` 创建叶子
# 节点；`infer_dtype(data)` 和 `check_ragged(data)` 像 PyTorch 那样读取嵌套的列表。

# %% [seam] to_python

# %% [zh-CN]
# 嵌套的列表和元组，其中的每个张量都被替换成它的 Python 数字
# （`t._scalar(warn_if_grad=True)`：拒绝含有不止一个元素的张量；当它需要梯度时，每个进程警告一次）。
# 计算图就是在这里被切断的（R1）。

# %% [seam] tensor_from_data

# %% [zh-CN]
# 对一个张量、或对包含张量的嵌套列表调用 `minigrad.tensor(data, dtype=..., device=..., requires_grad=...)`
# （由普通数值构成的张量，引擎用 `values_tensor` 自己创建）：一个持有数值副本的新叶子节点，从不属于
# 任何计算图。
# - 一个张量：复制（只复制数值）并发出警告 `msg.COPY_CONSTRUCT`（用工厂函数的名字
#   f"{msg.LIB}.tensor" 格式化），除非另行给出，否则保持它的 dtype 和设备（由 `finish` 创建叶子节点）；
# - 嵌套的列表：除非另行给出，dtype 由元素推断（`infer_dtype`，包括其中张量的 dtype），检查长度
#   （`check_ragged`），然后把其中的张量变成数字（`to_python`），再由
#   `values_tensor(values, dtype, device, requires_grad)` 把这些数值做成张量（R1）。

# %% [markdown]
# ## Your part: `stack` and `cat` keep the graph
#
# Both make one tensor from several and record one edge per input; their backward hands each
# input its part of the gradient. `join_prepare(tensors, name)` checks the list (not empty,
# one device) and returns it with the promoted dtype and the device; `meta(t)` is what a node
# keeps of an input (its shape and NumPy dtype); `t._edge()` is where its gradient goes.

# %% [zh-CN]
# ## 你的部分：`stack` 与 `cat` 保留计算图
#
# 两者都由多个张量构成一个张量，并为每个输入记录一条边；它们的反向计算把梯度中属于每个输入的那一部分
# 交给它。`join_prepare(tensors, name)` 检查列表（非空，同一个设备），并连同提升后的 dtype 和设备一起
# 返回它；`meta(t)` 是节点为一个输入保留的东西（它的形状和 NumPy dtype）；`t._edge()` 是它的梯度的
# 去处。

# %% [seam] stack

# %% [zh-CN]
# `minigrad.stack(tensors, dim)`：形状相同的张量（其余由 `join_prepare` 检查）沿结果的一个新维度
# `dim`（用 `wrap_dim` 在多一维的范围内规整）放置，采用它们提升后的 dtype，使用它们设备的数组模块
# （`tensor._xp`）。形状不同时以 PyTorch 的文本拒绝。计算图被保留：当被记录且为浮点类型时，结果的
# `_grad_fn` 是 `StackBackward0(edges of the inputs, dim, [meta(t) for each input])`（R2）。

# %% [seam] stack_backward

# %% [zh-CN]
# StackBackward0 的反向计算：对每个输入，返回 `grad` 沿 `dim` 的那一片（一个视图，如同 PyTorch 的
# unbind），采用该输入的 dtype（`metas[i]` 是它的（形状, NumPy dtype）），在输入不需要梯度的地方
# （它在 `next_nodes` 中的那一项为 None）返回 None（R2）。

# %% [seam] cat

# %% [zh-CN]
# `minigrad.cat(tensors, dim)`：沿它们的维度 `dim` 连接的张量，采用它们提升后的 dtype。以 PyTorch
# 的文本拒绝：0 维张量（`msg.CAT_ZERO_DIM`，附带它的位置），维数不同的张量（`msg.cat_ndim`），在
# `dim` 之外大小不同的张量（`msg.cat_sizes`）。计算图被保留：当被记录且为浮点类型时，结果的
# `_grad_fn` 是 `CatBackward0(edges of the inputs, dim, [meta(t) for each input])`（R2）。

# %% [seam] cat_backward

# %% [zh-CN]
# CatBackward0 的反向计算：对每个输入，返回 `grad` 沿 `dim` 属于它的那一部分（一个视图，如同
# PyTorch 的 narrow；`metas[i]` 是该输入的（形状, NumPy dtype）），采用该输入的 dtype，在输入不需要
# 梯度的地方（它在 `next_nodes` 中的那一项为 None）返回 None（R2）。

# %% [markdown]
# ## Your part: `x[i] = v` is recorded
#
# Filling a tensor by index is an in-place operation: through a view for a basic index (the
# engine records the write on the base as `CopySlices`), through `IndexPutBackward0` for an
# advanced one.

# %% [zh-CN]
# ## 你的部分：`x[i] = v` 会被记录
#
# 按索引填充一个张量是一次原地操作：对基本索引，经由一个视图（引擎在基张量上把这次写入记录为
# `CopySlices`）；对高级索引，经由 `IndexPutBackward0`。

# %% [seam] setitem

# %% [zh-CN]
# `tensor[index] = value`，此时值和索引都已检查过：`index` 是由索引部分组成的元组，`value` 是一个
# 张量或一个 Python 数字。一次原地写入，记录在 `tensor` 的历史中。对基本索引（`is_basic`），区域
# `getitem(tensor, index)`（末尾加一个 Ellipsis，使 0 维的区域也是视图）是 `tensor` 的一个视图，
# 值（一个适配到该区域的张量，`fit_value`）用 `copy_` 复制进去：这是一次经由视图的写入，原地操作的
# 路径会在基张量上把它记录为 CopySlices。其他任何索引都交给 `index_put`（R3、I4）。

# %% [seam] index_put

# %% [zh-CN]
# 对高级索引（由索引部分组成的元组，其中含有索引数组）执行 `tensor[index] = value`：一次原地操作
# （`inplace(tensor, op, others=(the value tensor or None,))`），它的 `op(old)` 返回 `old` 数值的
# 一份副本，其中被索引的那些值被替换（值转换为 `old` 的 dtype）；当 `needs_grad(old, value)` 时，
# 记录为 `IndexPutBackward0((edge(old), edge(value)), index, meta(value) or None)`（R3、I4）。

# %% [markdown]
# ### Check: `tensor()` of tensors cuts the graph (R1)

# %% [zh-CN]
# ### 检查：对张量调用 `tensor()` 会切断计算图（R1）

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

# %% [zh-CN]
# ### 检查：`stack` 与 `cat` 保留计算图（R2）

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

# %% [zh-CN]
# ### 检查：按索引填充保留计算图（R3）

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

# %% [zh-CN]
# ### 在 GPU 上
#
# 同样的函数，用的是 CuPy 数组。

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
s = minigrad.stack([x[0], x[1] * 2])
s.sum().backward()
assert s.device == device("cuda:0") and x.grad.tolist() == [1.0, 2.0]
