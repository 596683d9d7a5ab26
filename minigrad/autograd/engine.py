"""The backward pass: one iterative walk over the graph in topological order.

No recursion anywhere, so a chain of a million nodes works. Gradients travel as raw arrays
(NumPy or CuPy); they become tensors only where a user can see them (`.grad`, hooks).
"""

import heapq
import itertools
from collections.abc import Mapping

import numpy as np

from .. import _messages as msg
from .. import seams as _seams  # its modules are loaded once Tensor is (tensor.py)
from . import grad_mode
from .graph import AccumulateGrad


def _count_dependencies(roots):
    """How many edges lead into each node reachable from `roots`."""
    # Roots may share a node (backward([a, a]), outputs of unbind): walk each node once, or
    # its edges are counted twice and the nodes below never become ready.
    deps = dict.fromkeys(n for n in roots if n is not None)
    stack = list(deps)
    for n in stack:
        deps[n] = 0  # a node is in deps once it has been reached
    while stack:
        node = stack.pop()
        for nxt in node._next_nodes:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
    return deps


def _leading_to(roots, targets):
    """The nodes reachable from `roots` that have a path of one edge or more to a target.

    With `inputs` (backward) or in autograd.grad, PyTorch's engine executes only these (and,
    for backward, the targets themselves): other branches neither run, free their saved
    tensors, call hooks nor accumulate.
    """
    parents = {}
    stack = list(dict.fromkeys(n for n in roots if n is not None))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for nxt in node._next_nodes:
            if nxt is None:
                continue
            parents.setdefault(nxt, []).append(node)
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    leads = set()
    stack = [t for t in targets if t in parents]
    while stack:
        for p in parents[stack.pop()]:
            if p not in leads:
                leads.add(p)
                if p in parents:
                    stack.append(p)
    return leads


def _add_into(slot, g):
    """Sum a gradient into a slot [array, exclusive, version, takeable] as PyTorch's
    InputBuffer does.

    PyTorch adds into the gathered gradient in place when it holds that memory alone (a
    fresh array, not a pass-through or a view), otherwise out of place. A leaf's new `.grad`
    takes over the buffer when nobody else holds it and its layout is the leaf's, keeping
    the buffer's version (the in-place writes of the formula that made it, see
    Node.grad_version, and the in-place adds); otherwise it is copied. minigrad follows the
    same bookkeeping so that `.grad._version` reads as in PyTorch.
    """
    old = slot[0]
    if slot[1] and old.shape == g.shape and old.dtype == g.dtype:
        old += g
        slot[2] += 1
    else:
        total = old + g
        if isinstance(total, np.generic):  # keep 0-d sums arrays, so later adds stay in place
            total = np.asarray(total)
        slot[0], slot[1], slot[2], slot[3] = total, True, 0, True


def _root(a):
    while a.base is not None:
        a = a.base
    return a


def _slot(g, incoming, incoming_version, node):
    """The slot of a gradient `node` returned for one of its inputs."""
    if g is incoming:  # passed on unchanged: the caller or another slot holds it too
        return [g, False, 0, False]
    if g.base is None:
        return [g, True, node.grad_version, True]
    # a view shares the version of the array it views, as PyTorch's views do
    if incoming is not None and _root(g) is _root(incoming):
        return [g, False, incoming_version, True]
    return [g, False, node.grad_version, True]


def _dense(a):
    """PyTorch's is_non_overlapping_and_dense: the elements fill their memory exactly."""
    expected = a.itemsize
    for stride, n in sorted((st, n) for n, st in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _obeys_layout(g, var):
    """PyTorch's layout contract for a leaf's new .grad: a dense leaf's own strides (size-1
    dimensions aside, unless broadcast), else plain row-major order."""
    if g.shape != var.shape or not _dense(var):
        return bool(g.flags.c_contiguous)
    return all(
        gs // g.itemsize == vs // var.itemsize if n != 1 else gs != 0
        for n, gs, vs in zip(g.shape, g.strides, var.strides)
    )


def run_backward(roots, root_grads, retain_graph, capture=None, inputs=None):
    """Propagate `root_grads` (arrays) from the `roots` edges through the graph.

    Nodes run when every edge into them has delivered, later-created nodes first.
    `capture` holds nodes whose incoming gradient is returned instead of being accumulated
    (this is how `autograd.grad` reads gradients without touching `.grad`); `inputs` holds
    the nodes backward(inputs=...) runs to. Either restricts the walk to the nodes that lead
    to them (see _leading_to).
    """
    deps = _count_dependencies([node for node, _ in roots])
    wanted = leads = None
    if capture is not None or inputs is not None:
        targets = capture if capture is not None else inputs
        leads = _leading_to([node for node, _ in roots], targets)
        wanted = leads | set(targets)
    buffers = {}  # node -> one slot per output (see _add_into)
    for (node, nr), g in zip(roots, root_grads):
        if node is None or (wanted is not None and node not in wanted):
            continue
        slots = buffers.setdefault(node, [None] * node.n_outputs)
        if slots[nr] is None:
            slots[nr] = [g, False, 0, False]  # the caller still holds root gradients
        else:
            _add_into(slots[nr], g)
    ready = []
    # Ties (leaves' AccumulateGrad nodes all rank last) are broken by the order nodes became
    # ready, never by memory address: an error raised half-way through a backward then
    # leaves the same gradients behind on every run.
    order = itertools.count()
    for node in buffers:
        if deps.get(node, 0) == 0:
            ready.append((-node._seq, next(order), node))
    heapq.heapify(ready)
    push, pop = heapq.heappush, heapq.heappop
    captured = {}
    # Gradients at edge points (log at 0, sqrt at 0) are inf/nan without warnings, as in
    # PyTorch.
    # One ready node is held outside the heap: in a chain it is the only candidate, and the
    # heap's push and pop are saved. It joins the heap when others are waiting.
    following = None
    with grad_mode.no_grad(), np.errstate(all="ignore"):
        while ready or following is not None:
            if following is None:
                node = pop(ready)[2]
            elif ready:
                node = heapq.heappushpop(ready, (-following._seq, next(order), following))[2]
            else:
                node = following
            following = None
            slots = buffers.pop(node)
            if len(slots) == 1:
                grads = [slots[0][0]]
            else:
                grads = [None if s is None else s[0] for s in slots]
            if node._hooks or node._retained:
                grads = _run_tensor_hooks(node, grads)
            first = slots[0]
            if first is not None and grads[0] is not first[0]:  # a hook returned a new tensor
                first = [grads[0], True, 0, True]
            if capture is not None and node in capture:
                # every output's gradient with its buffer's version (PyTorch hands back the
                # buffer itself, in-place adds counted)
                captured[node] = [
                    (g, s[2] if s is not None and s[0] is g else 0) for g, s in zip(grads, slots)
                ]
                if node not in leads:  # a captured node runs only on the way to another
                    continue
            if type(node) is AccumulateGrad:
                if grads[0] is not None:
                    take = first[3] and _obeys_layout(grads[0], node.variable._data)
                    node.apply(grads[0], first[2] if take else None)
                continue
            out = node.apply(*grads)
            if not retain_graph:
                node.release()
            incoming = grads[0]
            incoming_version = first[2] if first is not None else 0
            for nxt, nr, g in zip(node._next_nodes, node._next_nrs, out):
                if nxt is None:
                    continue
                if g is not None:
                    if g.__class__ is not np.ndarray and isinstance(g, np.generic):
                        g = np.asarray(g)  # NumPy turns 0-d results into immutable scalars
                    slots = buffers.get(nxt)
                    if slots is None:
                        if wanted is not None and nxt not in wanted:
                            continue  # a branch that leads to no requested input
                        slots = buffers[nxt] = [None] * nxt.n_outputs
                    if slots[nr] is not None:
                        _add_into(slots[nr], g)
                    elif g is incoming:  # the common cases of _slot, inlined
                        slots[nr] = [g, False, 0, False]
                    elif g.base is None:
                        slots[nr] = [g, True, node.grad_version, True]
                    else:
                        slots[nr] = _slot(g, incoming, incoming_version, node)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if nxt not in buffers:
                        _skip_branch(nxt, deps, buffers, ready, order)
                    elif following is None:
                        following = nxt
                    else:
                        push(ready, (-nxt._seq, next(order), nxt))
    return captured


def _skip_branch(node, deps, buffers, ready, order):
    """A node that received no gradient at all: release its inputs' dependency counts."""
    stack = [node]
    while stack:
        n = stack.pop()
        for nxt in n._next_nodes:
            if nxt is None:
                continue
            deps[nxt] -= 1
            if deps[nxt] == 0:
                if nxt in buffers:
                    heapq.heappush(ready, (-nxt._seq, next(order), nxt))
                else:
                    stack.append(nxt)


def _run_tensor_hooks(node, grads):
    from ..tensor import Tensor

    grads = list(grads)
    for nr, hook in node._hooks or ():
        if grads[nr] is None:
            # an output of a node that ran without a gradient for it (one output of unbind
            # used): PyTorch calls its hooks with None, and a hook may not invent one
            if hook(None) is not None:
                raise RuntimeError(msg.HOOK_REPLACED_NONE)
            continue
        if type(node) is AccumulateGrad and grads[nr].dtype != node.variable._data.dtype:
            # PyTorch casts a gradient to its input's dtype before any hook sees it
            grads[nr] = grads[nr].astype(node.variable._data.dtype)
        grad = Tensor._wrap(grads[nr])
        result = hook(grad)
        if result is not None:
            _check_hook_result(hook, grad, result)
            grads[nr] = result._data
    for nr, t in node._retained or ():
        if grads[nr] is not None:
            _seams.leaf_nodes.accumulate_grad(t, grads[nr], retained=True)
    return grads


def _check_hook_result(hook, grad, result):
    """PyTorch's checks on what a tensor hook returns: a tensor of the same type and size."""
    from ..tensor import Tensor

    name = getattr(hook, "__name__", "<unknown>")
    if not isinstance(result, Tensor):
        raise TypeError(msg.HOOK_NOT_TENSOR.format(msg.type_name(result)))
    if result.type() != grad.type():
        raise RuntimeError(msg.HOOK_CHANGED_TYPE.format(name, grad.type(), result.type()))
    if result.shape != grad.shape:
        raise RuntimeError(msg.HOOK_CHANGED_SIZE.format(name))


def as_grad_sequence(tensors, grads):
    """PyTorch's reading of `gradient`/`grad_outputs`: None, one Tensor, or a sequence of
    Tensors or None, paired with the outputs as zip pairs them. A number or a list of numbers
    is refused, not converted."""
    from ..tensor import Tensor

    if grads is None:
        return [None] * len(tensors)
    if isinstance(grads, Tensor):
        return [grads]
    grads = list(grads)[: len(tensors)]  # a float raises "'float' object is not iterable"
    for g in grads:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(msg.GRADIENTS_NOT_TENSORS.format(type(g).__name__))
    if len(grads) != len(tensors):
        raise RuntimeError(msg.GRADIENTS_COUNT.format(len(tensors), len(grads)))
    return grads


def check_roots(tensors, grad_tensors):
    """PyTorch's checks on what backward starts from, in PyTorch's order."""
    from ..tensor import Tensor

    grads = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not t.requires_grad:
            raise RuntimeError(msg.NO_GRAD_FN.format(i))
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(msg.IMPLICIT_GRAD_NON_SCALAR)
            grads.append(t._xp.ones(t._data.shape, dtype=t._data.dtype))
        else:
            if not isinstance(g, Tensor):
                g = Tensor._wrap(t._xp.asarray(g, dtype=t._data.dtype))
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(msg.shape_mismatch(g.shape, t.shape))
            grads.append(g._data.astype(t._data.dtype, copy=False))
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    from ..tensor import Tensor

    # `inputs` read as PyTorch reads it: one tensor, a plain dict's values, or any iterable
    if inputs is not None:
        if isinstance(inputs, Tensor):
            inputs = [inputs]
        elif type(inputs) is dict:
            inputs = list(inputs.values())
        elif isinstance(inputs, Mapping):
            raise TypeError(msg.BACKWARD_INPUTS_MAPPING.format(type(inputs).__name__))
        else:
            inputs = list(inputs)
        if not inputs:
            raise RuntimeError(msg.BACKWARD_EMPTY_INPUTS)
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    grad_tensors = as_grad_sequence(tensors, grad_tensors)
    if create_graph:
        raise NotImplementedError("minigrad computes first-order gradients only")
    grads = check_roots(tensors, grad_tensors)
    targets = None
    if inputs is not None:
        for t in inputs:
            if not isinstance(t, Tensor):
                raise RuntimeError(msg.BACKWARD_INPUT_NOT_TENSOR.format(type(t).__name__))
            # as PyTorch's engine: a non-leaf input keeps its gradient in .grad; one that
            # does not require grad is refused by retain_grad's own text
            t.retain_grad()
        targets = {t._edge()[0] for t in inputs}
    run_backward([t._edge() for t in tensors], grads, bool(retain_graph), inputs=targets)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    materialize_grads=False,
):
    """Gradients of `outputs` with respect to `inputs`, returned, not accumulated."""
    from ..tensor import Tensor

    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    grad_outputs = as_grad_sequence(outputs, grad_outputs)
    if create_graph:
        raise NotImplementedError("minigrad computes first-order gradients only")
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError(msg.INPUT_NO_GRAD)
    grads = check_roots(outputs, grad_outputs)
    targets = [t._edge() for t in inputs]
    captured = run_backward(
        [t._edge() for t in outputs],
        grads,
        bool(retain_graph),
        capture={node for node, _ in targets},
    )
    result = []
    for i, (t, (node, nr)) in enumerate(zip(inputs, targets)):
        g, version = captured[node][nr] if node in captured else (None, 0)
        if g is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError(msg.UNUSED_INPUT.format(i))  # the first unused one
            result.append(Tensor._wrap(t._xp.zeros_like(t._data)) if materialize_grads else None)
            continue
        if g.dtype != t._data.dtype:
            g, version = g.astype(t._data.dtype), 0
        out = Tensor._wrap(g)
        out._version_counter.value = version
        result.append(out)
    return tuple(result)
