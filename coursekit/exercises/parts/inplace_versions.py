"""The inplace_versions exercise: its prose, the order of its answer cells and its visible
tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/inplace_versions.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: version counters
#
# Every tensor counts the in-place changes of its memory on `tensor._version_counter` (an
# object with one integer, `.value`; `tensor._version` reads it). Tensors on the same memory
# (a view, a detached alias) must share one counter, and every in-place write counts once.
# The engine calls your functions of
# `minigrad/seams/inplace_versions.py` for both.

# %% [zh-CN]
# ## 你的部分：版本计数器
#
# 每个张量都在 `tensor._version_counter`（一个带有一个整数 `.value` 的对象；`tensor._version` 读取
# 它）上计数其内存的原地修改。位于同一块内存上的张量（一个视图，一个被分离出的别名）必须共享同一个
# 计数器，每次原地写入计数一次。对这两件事，引擎都会调用你在 `minigrad/seams/inplace_versions.py`
# 中的函数。

# %% [seam] share_version

# %% [zh-CN]
# 让 `alias`（一个刚在 `source` 的内存上创建的张量）在 `source` 的版本计数器（同一个对象）上计数
# 它的修改，使得通过任何一方的写入都能被双方看到（I1）。

# %% [seam] bump_version

# %% [zh-CN]
# 记录对 `tensor` 内存的一次原地修改：它的计数器加一（I1）。

# %% [markdown]
# ## Your part: the checks on them
#
# A node that saved a tensor for its backward (`y = x ** 2` saves `x`) keeps, in a `Saved`,
# the array, the counter and its value at saving time. At backward it asks `unpack_saved`
# for the array; a tensor changed since is refused with PyTorch's most famous message, whose
# text `version_error` composes.

# %% [zh-CN]
# ## 你的部分：基于它们的检查
#
# 为其反向计算保存了一个张量的节点（`y = x ** 2` 保存 `x`），在一个 `Saved` 中保留数组、计数器以及
# 保存时计数器的值。反向传播时，它向 `unpack_saved` 要这个数组；此后被修改过的张量会被拒绝，给出
# PyTorch 最著名的那条消息，其文本由 `version_error` 生成。

# %% [seam] unpack_saved

# %% [zh-CN]
# 反向传播时，一个节点保存的数组（`saved`，一个 `Saved`：`.data`；`.counter` 是张量的版本
# 计数器；`.version` 是保存时它的值）。如果张量此后被原地修改过，它的值就不是前向传播所用的那些：
# 以一个文本为 `version_error(saved, node)` 的 `RuntimeError` 拒绝（I2）。

# %% [seam] version_error

# %% [zh-CN]
# PyTorch 对被原地修改的保存的张量给出的文本，`msg.version_mismatch(type_name,
# shape, producer, current, expected)`：张量的类型（`saved.type_name`，
# "torch.FloatTensor"）、它的形状、产生它的运算（`producer_name(n)`：对于节点自己保存的输出
# （`saved.is_output`），是保存它的那个节点，否则是张量现在的 `grad_fn`；对没有 `grad_fn` 的张量为
# None，消息中也就没有这一段）、现在的版本以及保存时的版本（I2）。

# %% [markdown]
# Some in-place writes are refused before they happen: into a leaf that requires grad (its
# values are what the gradient is about), or into a view of one.

# %% [zh-CN]
# 有些原地写入在发生之前就被拒绝：写入需要梯度的叶子节点（它的值正是梯度所关乎的东西），或者写入
# 这种叶子节点的视图。

# %% [seam] check_inplace

# %% [zh-CN]
# 在一次原地写入发生之前拒绝它：自动微分会把这次写入记录到一个它必须保持不变的张量中（PyTorch
# 的 check_inplace；引擎只在梯度模式开启、且有东西需要梯度时调用它）。按顺序：
# - 一个视图（设置了 `_base`），而 PyTorch 不允许经由它写入（设置了 `_view_flags`：在
#   `no_grad()` 下创建的，或者是多个输出之一）：`tensor._view_rebase_message(indirect=False)`；
# - 一个需要梯度的视图，其基张量没有 `grad_fn`（是叶子节点）：`msg.VIEW_OF_LEAF_INPLACE`；
# - 一个需要梯度的叶子节点（没有 `grad_fn`）：`msg.LEAF_INPLACE`。
# 它们都是 `RuntimeError`（I3）。

# %% [markdown]
# ### Check: one counter per memory, one count per write (I1)

# %% [zh-CN]
# ### 检查：每块内存一个计数器，每次写入计数一次（I1）

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
# ### Check: a saved tensor changed in place is refused at backward (I2)

# %% [zh-CN]
# ### 检查：被原地修改的保存的张量在反向传播时被拒绝（I2）

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
    f"operation: [{msg.LIB}.FloatTensor [3]], which is output 0 of Add, is at version 1; "
    "expected version 0 instead. Hint:"
), message

# %% [markdown]
# ### Check: in-place on a leaf that requires grad is refused (I3)

# %% [zh-CN]
# ### 检查：对需要梯度的叶子节点做原地操作被拒绝（I3）

# %% [test] I3
a = tensor([1.0, 2.0], requires_grad=True)
attempts = [
    (lambda: a.add_(1), msg.LEAF_INPLACE),
    (lambda: a[0].mul_(2), msg.VIEW_OF_LEAF_INPLACE),
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
# Version counters do not care where the memory is.

# %% [zh-CN]
# ### 在 GPU 上
#
# 版本计数器并不在乎内存位于何处。

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True) * 1
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    assert f"[{msg.LIB}.cuda.FloatTensor [2]], which is output 0 of Exp," in str(error)
else:
    raise AssertionError("backward must refuse: exp's saved result was changed")
