"""Typical student answers, as data: the reference answer, planted bugs and a noisy answer.

Each planted bug is an edit of the reference answer (the text it has, what the buggy answer
has instead) that breaks one rule; tests/test_exercises.py checks through nbgrader that each
costs exactly the points of that rule's test cell, and the grading pipeline's demo builds its
class of students from them.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import nbformat

from coursekit.exercises.cells import without_markers
from coursekit.exercises.release import SOLUTIONS

# (rule, text of the reference answer, what the buggy answer has instead)
BUGS = {
    "leaf_nodes": [
        (  # later gradients are added in, but .grad's version does not count the change
            "L8",
            "        tensor._grad._version_counter.value += 1\n",
            "",
        ),
        (  # retain_grad() marks the tensor but never registers it with its node
            "L4",
            "    fn._retained = (fn._retained or []) + [(tensor._output_nr, tensor)]\n",
            "",
        ),
        (  # a retained non-leaf's .grad is added into in place (a leaf's way), not replaced
            "L11",
            "            grad, version = tensor._grad._data + grad, 0\n",
            "            tensor._grad._data += grad\n"
            "            grad, version = tensor._grad._data, 0\n",
        ),
        (  # a leaf turned off before backward() still gets its gradient
            "L12",
            "    if not retained and not tensor._requires_grad:\n        return\n",
            "",
        ),
        (  # the .grad setter takes a gradient of another shape
            "L13",
            "        if value.shape != tensor.shape:\n",
            "        if False:\n",
        ),
    ],
    "detach_numpy": [
        (  # detach() shares the memory but not the version counter
            "D2",
            "    out._version_counter = tensor._version_counter\n",
            "",
        ),
        (  # numpy() does not refuse a tensor that requires grad
            "D1",
            "        raise RuntimeError(msg.NUMPY_REQUIRES_GRAD)\n",
            "        pass\n",
        ),
        (  # from_numpy() copies the array: writes no longer reach the tensor
            "D3",
            "    return Tensor._make(array, CPU, dtype_from_numpy(array.dtype))\n",
            "    return Tensor._make(array.copy(), CPU, dtype_from_numpy(array.dtype))\n",
        ),
    ],
    "inplace_versions": [
        (  # in-place on a leaf that requires grad allowed
            "I3",
            "        raise RuntimeError(msg.LEAF_INPLACE)\n",
            "        pass\n",
        ),
        (  # the version error names the tensor's grad_fn even for a saved output
            "I2",
            "    node = node if saved.is_output else saved.tensor.grad_fn\n",
            "    node = saved.tensor.grad_fn if saved.tensor is not None else node\n",
        ),
        (  # an in-place write leaves the version as it was
            "I1",
            "    tensor._version_counter.value += 1\n",
            "    pass\n",
        ),
    ],
    "rebuilding_tensors": [
        (  # tensor() of parts keeps the graph (it stacks them)
            "R1",
            "    target = dtype or infer_dtype(data)\n",
            "    if isinstance(data, list) and data and all(isinstance(x, Tensor) for x in data):\n"
            "        return stack(data, 0)\n"
            "    target = dtype or infer_dtype(data)\n",
        ),
        (  # stack() counts a negative dim over the inputs' dimensions, not the result's
            "R2",
            "    d = wrap_dim(dim, len(shape) + 1)\n",
            "    d = wrap_dim(dim, len(shape) + (dim < 0)) - (dim < 0)\n",
        ),
        (  # x[i] = v written into the whole tensor: IndexPutBackward0, never CopySlices
            "R3",
            "    if is_basic(index):\n",
            "    if False:\n",
        ),
    ],
    "devices": [
        (  # .to() copies even when nothing changes
            "V1",
            "    if device == tensor._device and dtype is tensor._dtype and not copy:\n"
            "        return tensor\n",
            "",
        ),
    ],
}

# A correct answer whose run makes NumPy and PyTorch warn (in the student's cells, printed to
# stderr there) and that turns every warning on for the rest of the kernel.
WARNING_PREAMBLE = (
    "import warnings\n\nimport torch as _torch\n\n"
    'warnings.simplefilter("always")\n'
    "np.log(np.zeros(1))  # NumPy: RuntimeWarning, divide by zero\n"
    "_torch.tensor(_torch.ones(1))  # PyTorch: UserWarning, copy construct from a tensor\n\n"
)


def solution_sources(name: str) -> dict[str, str]:
    """grade_id -> reference answer (markers removed) of each solution cell."""
    nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: without_markers(c.source)
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def planted_in(source: str, edit) -> str | None:
    """`source` with the bug `edit` (its text, what replaces it) planted, or None when the
    text is not in it; the text may end the source (an answer's last line with its newline).
    Its text must occur once, so that a bug is planted where it was meant to be."""
    old, new = edit
    text = source + "\n"
    if old not in text:
        return None
    assert text.count(old) == 1, f"the bug's text occurs more than once: {old!r}"
    return text.replace(old, new).rstrip("\n")


def answered(released: Path, name: str, edit=None, preamble: str = "") -> str:
    """The released notebook with its solution cells answered (as a student would)."""
    nb = nbformat.read(released, as_version=4)
    answers = solution_sources(name)
    edited = 0
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("solution"):
            continue
        cell.source = answers[meta["grade_id"]]
        buggy = planted_in(cell.source, edit) if edit is not None else None
        if buggy is not None:
            cell.source, edited = buggy, edited + 1
    if preamble:
        first = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
        first.source = preamble + first.source
    assert edit is None or edited == 1, f"the bug's text is not in exactly one answer: {edit[0]!r}"
    return nbformat.writes(nb)


def answer_functions(assignment: str, edit=None) -> dict:
    """The assignment's graded functions as a student's notebook defines them from the
    reference answers (markers removed), optionally with one planted bug: the seam module's
    helpers, then the answers, executed in one namespace."""
    from coursekit.edition import graded_functions, seam_source
    from minigrad import seams

    functions = graded_functions(seam_source(assignment)).values()
    source = "\n\n".join(without_markers(f) for f in functions)
    if edit is not None:
        source = planted_in(source, edit)
        assert source is not None, f"the bug's text is in no answer: {edit[0]!r}"
    helpers = seams.module(assignment)
    namespace = {"__name__": "answers", **{n: getattr(helpers, n) for n in helpers.__all__}}
    exec(compile(source, f"<{assignment} answers>", "exec"), namespace)
    return namespace


@contextlib.contextmanager
def answered_engine(assignment: str, edit=None):
    """minigrad with the assignment's reference answers (one bug planted by `edit`) bound in,
    as the hidden tests bind a student's (coursekit.exercises.grading.bound)."""
    from coursekit.exercises.grading import bound
    from minigrad import seams

    rules = {rule for decided in seams.graded(assignment).values() for rule in decided}
    with bound(answer_functions(assignment, edit), assignment, rules) as engine:
        yield engine
