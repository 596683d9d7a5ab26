"""The rules minigrad keeps (PyTorch 2.13's behaviour on the course subset) and the course
grades, one sentence each, as feedback quotes them. This module is the contract: docs/RULES.md
is written from it (`make rules`, autograder/rules_doc.py), with the assignment that builds
each rule and the lecture section that teaches it."""

RULES = {
    # Leaf nodes
    "L1": "A tensor you create is a leaf, and so is any result computed only from inputs that do "
    "not require grad (comparisons, argmax and integer casts never require grad).",
    "L2": "The result of a differentiable operation on an input that requires grad is a non-leaf "
    "that requires grad and carries a grad_fn named as PyTorch names it.",
    "L3": "backward() fills .grad only on leaves that require grad; reading .grad of a non-leaf "
    "gives None with PyTorch's warning unless retain_grad() was called on it.",
    "L4": "retain_grad() keeps the gradient of a non-leaf, does nothing on a leaf, and raises on a "
    "tensor that does not require grad.",
    "L5": "requires_grad can be changed only on leaves and only floating-point tensors can require "
    "grad, with PyTorch's exact error texts for each way of asking.",
    "L6": "backward() of a non-scalar needs a `gradient` of the output's shape, and a tensor "
    "without grad_fn cannot go backward.",
    "L7": "backward() frees saved tensors unless retain_graph=True, so a second backward fails "
    "exactly where a node on the path saved tensors.",
    "L8": "Gradients accumulate into .grad across backward() calls until zeroed or set to None.",
    "L9": "Under no_grad() or set_grad_enabled(False) nothing is recorded, while enable_grad() "
    "inside it records again.",
    "L10": ".data reads and writes values outside the graph and outside the version counter.",
    "L11": "A fresh .grad owns its memory (never the gradient passed to backward() nor another "
    "leaf's .grad); later gradients add into a leaf's .grad in place, also into one you "
    "assigned, while a retained non-leaf's .grad is replaced by a new tensor.",
    "L12": "A leaf whose requires_grad is turned off between forward and backward gets no "
    "gradient, and a retained non-leaf's .grad accumulates across backward() calls.",
    "L13": "Assigning .grad accepts None or a tensor of the same shape, dtype and device, on "
    "leaves and non-leaves alike; anything else raises PyTorch's text.",
    # detach and NumPy
    "D1": "numpy() refuses a tensor that requires grad, except inside no_grad, where it returns "
    "an array sharing the tensor's memory.",
    "D2": "detach() returns a tensor sharing storage and version counter with its source; "
    "detach_() turns a non-leaf into a leaf and refuses views.",
    "D3": "numpy() and from_numpy() share memory both ways, while tensor() always copies and "
    "warns when given a tensor.",
    "D4": "tensor(float64_array, requires_grad=True).float() is a non-leaf copy "
    "(ToCopyBackward0), while the same call on float32 data returns the leaf itself.",
    # In-place operations
    "I1": "Every in-place change bumps a version counter shared by a tensor, its views and its "
    "detached aliases.",
    "I2": "A node that saved a tensor checks its version at backward() and fails with PyTorch's "
    "message naming the tensor type, shape, forward op and both versions.",
    "I3": "In-place on a leaf that requires grad fails, in-place on a view of such a leaf fails "
    "with the 'view of a leaf' message, and no_grad allows both.",
    "I4": "__setitem__ and in-place ops on a non-leaf rewrite its history (CopySlices on the base, "
    "AsStridedBackward0 on the view) and gradients flow correctly through it.",
    "I5": "Views (view, slicing, t, transpose, permute, unsqueeze, squeeze, expand) share memory "
    "with their base, while clone and reshape of a non-contiguous tensor copy.",
    # Rebuilding tensors
    "R1": "tensor([t0, t1, ...]) of tensors that require grad copies values out of the graph "
    "(warning once per process), and refuses tensors of more than one element.",
    "R2": "stack and cat keep the graph, and cat refuses 0-d tensors.",
    "R3": "Filling a fresh tensor by index keeps the graph (CopySlices), unless a filled value was "
    "computed from the same tensor before the fill changed it, which fails at backward.",
    "R4": "nn.Parameter(x) is a new leaf sharing x's memory; Parameter(...).view(...) is a "
    "non-leaf while Parameter(t.view(...)) is a leaf.",
    # Devices and dtypes
    "V1": ".to(device), .cuda(), .cpu(), .to(dtype), .float() and .double() return the tensor "
    "itself when nothing changes, otherwise a copy recorded as ToCopyBackward0.",
    "V2": "The gradient through such a copy returns to the source in the source's device and "
    "dtype.",
    "V3": "A tensor created with device= (or moved and then made to require grad) is a leaf.",
    "V4": "Mixing devices in one operation fails, and numpy() of a non-CPU tensor fails, with "
    "PyTorch's texts.",
    "V5": "nn.Module.to() converts parameters in place, so they stay the same leaf objects.",
    # Values
    "N1": "Forward values and gradients of every operation match PyTorch, through broadcasting "
    "(gradients reduced to the input's shape) and for every dtype of the subset.",
    "N2": "dtype inference and promotion match PyTorch (Python float gives float32, NumPy "
    "float64 stays, ints give int64, 0-d tensors and scalars do not promote float32).",
    "N3": "repr matches PyTorch for float, integer and bool tensors up to 2-D, with the "
    "requires_grad, grad_fn, dtype and device suffixes.",
    "N4": "The nn, optim and data APIs of a training script (ModuleList, Sequential item "
    "assignment, buffers, state_dict and load_state_dict of modules and optimizers, AdamW, "
    "BCEWithLogitsLoss, ReLU(inplace=True), requires_grad_ of a module, TensorDataset and "
    "DataLoader) behave as PyTorch's, refusals and their texts included.",
    "N5": "The tensor operations beyond arithmetic (all/any, std/var with correction, amax/amin, "
    "logsumexp, log_softmax, gather, scatter, index_add, one_hot, nonzero, where(condition), "
    "squeeze of several dims) give PyTorch's values, dtypes, node names and gradients (amax and "
    "amin share a gradient evenly among tied extremes), with its warnings and refusals.",
    # Extending autograd
    "X1": "Function.apply runs forward with grad mode off and records one node named "
    "<Name>Backward, which is the ctx: needs_input_grad, saved_tensors and what forward stored "
    "on it are read there, and outputs' gradients that never came are zeros.",
    "X2": "A custom backward returns one gradient per forward input (None for an input that is not "
    "a tensor); a shape its input broadcasts to is summed down and the dtype cast, anything else "
    "raises PyTorch's text.",
    "X3": "A tensor kept with save_for_backward and changed in place before backward fails with "
    "the version-counter error naming the custom node.",
    "X4": "An input returned as it is comes back as a view that refuses in-place writes; an input "
    "written in place must be passed to mark_dirty, which takes over its history and is refused "
    "on a leaf that requires grad.",
}

RULE_IDS = tuple(RULES)
# A rule id's letter: the part of autograd it is about.
TOPICS = {
    "L": "Leaf nodes and .grad",
    "D": "detach() and NumPy",
    "I": "In-place operations and version counters",
    "R": "Rebuilding tensors",
    "V": "Devices and dtypes",
    "N": "Values, dtypes and printing",
    "X": "Extending autograd with Function",
}


def statement(rule_id: str) -> str:
    return RULES.get(rule_id, f"(unknown rule {rule_id})")
