"""Sealed grading: scores for untrusted notebooks that no student code can influence.

    from coursekit import sealed
    contract = sealed.Contract.from_notebook("source/leaf_nodes/leaf_nodes.ipynb")
    result = sealed.grade_notebook(contract, "submitted/alice/leaf_nodes/leaf_nodes.ipynb")
    result.cells["test_L3"].points, result.notes, result.seed, result.to_json()

In nbgrader (nbgrader_steps): SealedExecute replaces nbgrader's Execute in autograde, so no
student code runs in nbgrader's kernel; write_scores(gradebook, assignment, student, result)
and seal_outputs(notebook, result) serve a pipeline that writes grades itself.
The trust model (what is defended, how, and what is not) is in the README, "Trust model".
"""

from coursekit.sealed.contract import Contract, ContractError
from coursekit.sealed.grade import CellScore, SealedResult, grade_notebook
from coursekit.sealed.sandbox import Limits, layers, missing_layers

__all__ = [
    "CellScore",
    "Contract",
    "ContractError",
    "Limits",
    "SealedResult",
    "grade_notebook",
    "layers",
    "missing_layers",
]
