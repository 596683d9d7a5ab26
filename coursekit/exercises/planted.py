"""Typical student answers, as data: the reference answer, planted bugs and a noisy answer.

Each planted bug is a `Bug` (coursekit/planted.py) whose text lies inside the reference answer
of its assignment's seam module, so that it plants into an answer cell as into minigrad's
source; it breaks one rule. tests/test_exercises.py checks through nbgrader that each costs
exactly the points of that rule's test cell, and the grading pipeline's demo builds its class
of students from them.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from coursekit.content import folder
from coursekit.exercises.cells import without_markers
from coursekit.planted import Bug, planted_in

# assignment -> its typical wrong answers (text and replacement inside the reference answer)
BUGS = {
    "leaf_nodes": [
        Bug(
            "L8",
            "seams/leaf_nodes.py",
            "        tensor._grad._version_counter.value += 1\n",
            "",
            "later gradients are added in, but .grad's version does not count the change.",
        ),
        Bug(
            "L4",
            "seams/leaf_nodes.py",
            "    fn._retained = (fn._retained or []) + [(tensor._output_nr, tensor)]\n",
            "",
            "retain_grad() marks the tensor but never registers it with its node.",
        ),
        Bug(
            "L11",
            "seams/leaf_nodes.py",
            "            grad, version = tensor._grad._data + grad, 0\n",
            "            tensor._grad._data += grad\n"
            "            grad, version = tensor._grad._data, 0\n",
            "a retained non-leaf's .grad is added into in place (a leaf's way), not replaced.",
        ),
        Bug(
            "L12",
            "seams/leaf_nodes.py",
            "    if not retained and not tensor._requires_grad:\n        return\n",
            "",
            "a leaf turned off before backward() still gets its gradient.",
        ),
        Bug(
            "L13",
            "seams/leaf_nodes.py",
            "        if value.shape != tensor.shape:\n",
            "        if False:\n",
            "the .grad setter takes a gradient of another shape.",
        ),
        Bug(
            "L3",
            "seams/leaf_nodes.py",
            "    if tensor._grad is None and tensor.grad_fn is not None"
            " and not tensor._retains_grad:\n"
            "        warn(msg.NONLEAF_GRAD_ACCESS)\n",
            "",
            "reading .grad of a non-leaf that does not retain it gives None without PyTorch's "
            "warning.",
        ),
    ],
    "detach_numpy": [
        Bug(
            "D2",
            "seams/detach_numpy.py",
            "    out._version_counter = tensor._version_counter\n",
            "",
            "detach() shares the memory but not the version counter.",
        ),
        Bug(
            "D1",
            "seams/detach_numpy.py",
            "        raise RuntimeError(msg.NUMPY_REQUIRES_GRAD)\n",
            "        pass\n",
            "numpy() does not refuse a tensor that requires grad.",
        ),
        Bug(
            "D3",
            "seams/detach_numpy.py",
            "    return Tensor._make(array, CPU, dtype_from_numpy(array.dtype))\n",
            "    return Tensor._make(array.copy(), CPU, dtype_from_numpy(array.dtype))\n",
            "from_numpy() copies the array: writes no longer reach the tensor.",
        ),
    ],
    "inplace_versions": [
        Bug(
            "I3",
            "seams/inplace_versions.py",
            "        raise RuntimeError(msg.LEAF_INPLACE)\n",
            "        pass\n",
            "in-place on a leaf that requires grad allowed.",
        ),
        Bug(
            "I2",
            "seams/inplace_versions.py",
            "    node = node if saved.is_output else saved.tensor.grad_fn\n",
            "    node = saved.tensor.grad_fn if saved.tensor is not None else node\n",
            "the version error names the tensor's grad_fn even for a saved output.",
        ),
        Bug(
            "I1",
            "seams/inplace_versions.py",
            "    tensor._version_counter.value += 1\n",
            "    pass\n",
            "an in-place write leaves the version as it was.",
        ),
    ],
    "rebuilding_tensors": [
        Bug(
            "R1",
            "seams/rebuilding_tensors.py",
            "    target = dtype or infer_dtype(data)\n",
            "    if isinstance(data, list) and data and all(isinstance(x, Tensor) for x in data):\n"
            "        return stack(data, 0)\n"
            "    target = dtype or infer_dtype(data)\n",
            "tensor() of parts keeps the graph (it stacks them).",
        ),
        Bug(
            "R2",
            "seams/rebuilding_tensors.py",
            "    d = wrap_dim(dim, len(shape) + 1)\n",
            "    d = wrap_dim(dim, len(shape) + (dim < 0)) - (dim < 0)\n",
            "stack() counts a negative dim over the inputs' dimensions, not the result's.",
        ),
        Bug(
            "R3",
            "seams/rebuilding_tensors.py",
            "    if is_basic(index):\n",
            "    if False:\n",
            "x[i] = v written into the whole tensor: IndexPutBackward0, never CopySlices.",
        ),
    ],
    "devices": [
        Bug(
            "V1",
            "seams/devices.py",
            "    dtype = dtype or tensor._dtype\n"
            "    if device == tensor._device and dtype is tensor._dtype and not copy:\n"
            "        return tensor\n",
            "    dtype = dtype or tensor._dtype\n",
            ".to() copies even when nothing changes.",
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


# Notebooks are read as the JSON they are (nbformat 4), not through nbformat: a GPU machine
# lent for `make gpu-check` has no Jupyter packages, and it plants these answers too.


def _solution_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("solution")]


def _source(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def solution_sources(name: str) -> dict[str, str]:
    """grade_id -> reference answer (markers removed) of each solution cell."""
    nb = json.loads((folder("solutions") / name / f"{name}.ipynb").read_text(encoding="utf-8"))
    return {
        c["metadata"]["nbgrader"]["grade_id"]: without_markers(_source(c))
        for c in _solution_cells(nb)
    }


def answered(released: Path, name: str, bug: Bug | None = None, preamble: str = "") -> str:
    """The released notebook with its solution cells answered (as a student would), `bug`
    planted in the one answer that holds its text."""
    nb = json.loads(Path(released).read_text(encoding="utf-8"))
    answers = solution_sources(name)
    edited = 0
    for cell in _solution_cells(nb):
        cell["source"] = answers[cell["metadata"]["nbgrader"]["grade_id"]]
        buggy = planted_in(cell["source"], bug) if bug is not None else None
        if buggy is not None:
            cell["source"], edited = buggy, edited + 1
    if preamble:
        first = _solution_cells(nb)[0]
        first["source"] = preamble + first["source"]
    assert bug is None or edited == 1, f"the bug's text is not in exactly one answer: {bug.text!r}"
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def answer_functions(assignment: str, bug: Bug | None = None) -> dict:
    """The assignment's graded functions as a student's notebook defines them from the
    reference answers (markers removed), optionally with one planted bug: the seam module's
    helpers, then the answers, executed in one namespace."""
    from coursekit.edition import graded_functions, seam_source
    from minigrad import seams

    functions = graded_functions(seam_source(assignment)).values()
    source = "\n\n".join(without_markers(f) for f in functions)
    if bug is not None:
        source = planted_in(source, bug)
        assert source is not None, f"the bug's text is in no answer: {bug.text!r}"
    helpers = seams.module(assignment)
    namespace = {"__name__": "answers", **{n: getattr(helpers, n) for n in helpers.__all__}}
    exec(compile(source, f"<{assignment} answers>", "exec"), namespace)
    return namespace


@contextlib.contextmanager
def answered_engine(assignment: str, bug: Bug | None = None):
    """minigrad with the assignment's reference answers (`bug` planted in them) bound in,
    as the hidden tests bind a student's (coursekit.exercises.grading.bound)."""
    from coursekit.exercises.grading import bound
    from minigrad import seams

    rules = {rule for decided in seams.graded(assignment).values() for rule in decided}
    with bound(answer_functions(assignment, bug), assignment, rules) as engine:
        yield engine
