"""The catalogue observes every grad_fn name the course subset can produce (rules N1, L2).

The list is the grad_fn names PyTorch 2.13 was observed to give on the subset, with the in-place
and indexing nodes (CopySlices, AsStridedBackward0, ...) and the few the subset reaches that
PyTorch's derivatives table does not list (`fill_` with a number or with a 0-d
tensor, `softplus`, `(n,) @ (n, m)`).
A name missing here means no scenario checks that engines name that node as PyTorch does.
"""

import torch

from autograder import observe
from autograder.scenarios import select

SUBSET_GRAD_FNS = {
    # arithmetic, with Python scalars on either side
    "AddBackward0", "SubBackward0", "RsubBackward1", "MulBackward0", "DivBackward0",
    "NegBackward0", "PowBackward0", "PowBackward1", "PowBackward2",
    # elementwise functions
    "ExpBackward0", "LogBackward0", "SqrtBackward0", "AbsBackward0", "TanhBackward0",
    "SigmoidBackward0", "ReluBackward0", "ClampBackward0", "ClampBackward1", "WhereBackward0",
    # reductions
    "SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1",
    "MaxBackward0", "MaxBackward1", "MinBackward0", "MinBackward1",
    # matrix products
    "MmBackward0", "MvBackward0", "DotBackward0", "UnsafeViewBackward0", "SqueezeBackward4",
    # nn
    "AddmmBackward0", "MseLossBackward0", "NllLossBackward0", "SoftplusBackward0",
    # views, copies, rebuilding
    "ViewBackward0", "SelectBackward0", "SliceBackward0", "IndexBackward0", "TBackward0",
    "PermuteBackward0", "TransposeBackward0", "UnsqueezeBackward0", "SqueezeBackward0",
    "SqueezeBackward1", "ExpandBackward0", "CloneBackward0", "ToCopyBackward0",
    "StackBackward0", "CatBackward0",
    # in-place
    "ZeroBackward0", "FillBackward2", "FillBackward3", "CopyBackwards", "CopySlices",
    "AsStridedBackward0", "IndexPutBackward0",
    # the beginner tutorials' (issue #16)
    "SoftmaxBackward0", "LinalgVectorNormBackward0", "MaximumBackward0", "MinimumBackward0",
    "RepeatBackward0", "SplitBackward0",
    # // and % (issue #16): remainder has a derivative, floor_divide records NotImplemented
    "RemainderBackward0", "RemainderBackward1", "NotImplemented",
}  # fmt: skip


def _grad_fn_names(x, found):
    if isinstance(x, dict):
        if isinstance(x.get("grad_fn"), str):
            found.add(x["grad_fn"])
        for v in x.values():
            _grad_fn_names(v, found)
    elif isinstance(x, list):
        for v in x:
            _grad_fn_names(v, found)
    return found


def test_catalogue_observes_every_grad_fn_of_the_subset():
    # the topics that exercise operations; basics/leaf/numpy add no node of their own
    topics = ["values", "inplace", "rebuild", "devices"]
    ids = [sc.id for sc in select(topics=topics, device="cpu") if not sc.fresh_process]
    observed = observe(torch, ids, seed=1)["scenarios"]
    found = set()
    for result in observed.values():
        _grad_fn_names(result["observations"], found)
    missing = sorted(SUBSET_GRAD_FNS - found)
    assert missing == [], f"grad_fn names no scenario observes: {missing}"
