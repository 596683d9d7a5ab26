"""Linear algebra: mm, dot, mv and matmul (batched and broadcast), with PyTorch's checks in
its order and its gradients' memory layouts."""

import math

import numpy as np

from .. import _dtypes
from .. import _messages as msg
from ..autograd.graph import Node
from ..tensor import Tensor
from ._common import (
    _arr,
    _check_kernel_devices,
    _check_shapes,
    _meta,
    _needs_grad,
    array_module,
    quiet_functions,
    unbroadcast,
)


def _check_mm_dtypes(self, other):
    if self._dtype is not other._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{_dtypes.CPP_NAME[self._dtype]} != {_dtypes.CPP_NAME[other._dtype]}"
        )


def _check_mm(self, mat2, mat1_shape=None):
    """mm's checks in PyTorch's order: devices, matrices, inner sizes, then dtypes (so a
    float64 input of the wrong width reports the sizes). `mat1_shape`: the 2-D shape a
    batch is folded into (matmul of a batch with a matrix, nn.Linear)."""
    _check_kernel_devices("mm", self=self, mat2=mat2)
    a, b = mat1_shape or self._data.shape, mat2._data.shape
    if len(a) != 2:
        raise RuntimeError("self must be a matrix")
    if len(b) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a[1] != b[0]:
        raise RuntimeError(msg.mm_shapes(a, b))
    _check_mm_dtypes(self, mat2)


def _type_name(t):
    return _dtypes.SCALAR_TYPE_NAME[t._dtype]


def _column_major(a):
    """Whether a matrix is laid out by columns (a transposed one, such as nn.Linear's
    `weight.t()`): PyTorch then computes its gradient in that layout too."""
    return a.ndim == 2 and a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize


def _mm_grads(g, mat1, mat2, need1, need2, col_major):
    """PyTorch's mm_mat1_backward and mm_mat2_backward, layouts included (the layout decides
    whether a leaf's .grad can take the array over, see the engine)."""
    g1 = g2 = None
    if need1:
        g1 = (mat2 @ g.T).T if col_major[0] else g @ mat2.T
    if need2:
        g2 = (g.T @ mat1).T if col_major[1] else mat1.T @ g
    return g1, g2


class MmBackward0(Node):
    def __init__(self, edges, col_major=(False, False)):
        super().__init__(edges)
        self.col_major = col_major

    def apply(self, g):
        s = self.unpack()
        need1, need2 = (n is not None for n in self._next_nodes)
        return _mm_grads(g, s.get("self"), s.get("mat2"), need1, need2, self.col_major)


def mm(self, mat2):
    _check_mm(self, mat2)
    a, b = self._data, mat2._data
    out = Tensor._make(a @ b, self._device, self._dtype)
    if _needs_grad(self, mat2) and self._dtype.is_floating_point:
        node = MmBackward0((self._edge(), mat2._edge()), (_column_major(a), _column_major(b)))
        save = {}
        if mat2.requires_grad:
            save["self"] = self
        if self.requires_grad:
            save["mat2"] = mat2
        node.save(**save)
        out._grad_fn = node
    return out


class DotBackward0(Node):
    def apply(self, g):
        s = self.unpack()
        ga = g * s["tensor"] if self._next_nodes[0] is not None else None
        gb = g * s["self"] if self._next_nodes[1] is not None else None
        return ga, gb


def dot(self, other):
    _check_kernel_devices("_dot", self=self, tensor=other)
    if self._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {self._data.ndim}D and {other._data.ndim}D tensors"
        )
    if self._dtype is not other._dtype:
        raise RuntimeError(msg.dot_dtypes(_type_name(self), _type_name(other)))
    if self._data.shape != other._data.shape:
        raise RuntimeError(msg.dot_sizes(self._data.shape[0], other._data.shape[0]))
    out = Tensor._make(_arr(self._data @ other._data, self._dtype), self._device)
    if _needs_grad(self, other) and self._dtype.is_floating_point:
        node = DotBackward0((self._edge(), other._edge()))
        node.save(self=self, tensor=other)
        out._grad_fn = node
    return out


class MvBackward0(Node):
    def apply(self, g):
        xp = array_module(g)
        s = self.unpack()
        ga = xp.outer(g, s["vec"]) if self._next_nodes[0] is not None else None
        gb = s["self"].T @ g if self._next_nodes[1] is not None else None
        return ga, gb


def mv(self, vec):
    # PyTorch's mv is addmv_ into a result made on vec's device: that device is the common one
    _check_kernel_devices("addmv_", self=vec, mat=self, vec=vec)
    (n, *k), (m, *_) = self._data.shape or (0,), vec._data.shape or (0,)
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if k[0] != m:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k[0]}), vec ({m})")
    if self._dtype is not vec._dtype:
        raise RuntimeError(msg.mv_dtypes(_type_name(self), _type_name(vec)))
    out = Tensor._make(self._data @ vec._data, self._device, self._dtype)
    if _needs_grad(self, vec) and self._dtype.is_floating_point:
        node = MvBackward0((self._edge(), vec._edge()))
        node.save(self=self, vec=vec)
        out._grad_fn = node
    return out


class UnsafeViewBackward0(Node):
    """Batched matmul (the node PyTorch leaves on top of bmm) or a copying reshape."""

    def __init__(self, edges, shape, a_meta=None, b_meta=None):
        super().__init__(edges)
        self.shape, self.a_meta, self.b_meta = shape, a_meta, b_meta

    def apply(self, g):
        if self.a_meta is None:  # reshape that had to copy
            return (g.reshape(self.shape),)
        xp = array_module(g)
        s = self.unpack()
        a, b = s["self"], s["other"]
        # 1-D operands act as a row (left) or a column (right), as in matmul itself.
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = xp.expand_dims(g2, -2)
        if b.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        ga = gb = None
        if self._next_nodes[0] is not None:
            ga = unbroadcast(g2 @ xp.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
            ga = ga.astype(self.a_meta[1], copy=False)
        if self._next_nodes[1] is not None:
            gb = unbroadcast(xp.swapaxes(a2, -1, -2) @ g2, b2.shape).reshape(b.shape)
            gb = gb.astype(self.b_meta[1], copy=False)
        return ga, gb


# A matrix that requires grad times a batch: PyTorch folds the batch into one mm of the
# transposed batch, and the result comes from a contiguous copy.
BatchedCloneBackward0 = type("CloneBackward0", (UnsafeViewBackward0,), {"__module__": __name__})


def _copies_result(a, b):
    """Whether PyTorch's matmul takes that folded path: `a` requires grad and is a matrix (or
    a batch of one, which it first squeezes to a matrix, against a 3-D batch of more)."""
    sa, sb = a._data.shape, b._data.shape
    matrix = len(sa) == 2 or (len(sa) == 3 and len(sb) == 3 and sa[0] == 1 and sb[0] != 1)
    return matrix and a.requires_grad


class SqueezeBackward4(Node):
    """(n,) @ (n, m): PyTorch squeezes the mm result in place (its version becomes 1)."""

    def __init__(self, edges, shape):
        super().__init__(edges)
        self.shape = shape

    def apply(self, g):
        return (g.reshape(self.shape),)


def matmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    da, db = self._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 2 and db == 2:
        return mm(self, other)
    if da == 1 and db == 1:
        return dot(self, other)
    if da == 2 and db == 1:
        return mv(self, other)
    if da == 1 and db == 2:
        out = mm(self.unsqueeze(0), other)
        out._data = out._data.reshape(out._data.shape[1:])
        _versions.bump_version(out)  # PyTorch squeezes the mm result in place
        if out._grad_fn is not None:
            out._grad_fn = SqueezeBackward4((out._edge(),), (1,) + out._data.shape)
        return out
    if da >= 3 and db == 2:  # PyTorch folds the batch into one mm
        *batch, k = self._data.shape
        _check_mm(self, other, (math.prod(batch), k))
    else:  # a batched product: the batch dimensions broadcast, then PyTorch's bmm
        sa = self._data.shape if da > 1 else (1,) + self._data.shape
        sb = other._data.shape if db > 1 else other._data.shape + (1,)
        _check_shapes(sa[:-2], sb[:-2])
        _check_kernel_devices("bmm", self=self, mat2=other)
        if sa[-1] != sb[-2]:
            batch = math.prod(np.broadcast_shapes(sa[:-2], sb[:-2]))
            raise RuntimeError(msg.batch2_size(batch, sa[-1], sb[-2]))
        _check_mm_dtypes(self, other)
    out = Tensor._make(self._xp.matmul(self._data, other._data), self._device, self._dtype)
    if _needs_grad(self, other) and self._dtype.is_floating_point:
        a_meta, b_meta = _meta(self), _meta(other)
        node_cls = BatchedCloneBackward0 if _copies_result(self, other) else UnsafeViewBackward0
        node = node_cls((self._edge(), other._edge()), out._data.shape, a_meta, b_meta)
        node.save(self=self, other=other)
        out._grad_fn = node
    return out


quiet_functions(globals())

METHODS = {"matmul": matmul, "mm": mm, "dot": dot, "mv": mv, "__matmul__": matmul}

# The graded functions students build live in seams/ and call back into these operations:
# imported last, once every operation above exists.
from ..seams import inplace_versions as _versions  # noqa: E402
