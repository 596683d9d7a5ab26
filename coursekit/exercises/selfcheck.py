"""`make check [NB=my_assignments/<n>_<name>/<name>.ipynb]`: grade your own notebook, no instructor
needed (no NB: every assignment fetched into my_assignments/, the copies you submit).

Runs the notebook top to bottom in a fresh kernel (cells that fail do not stop it), then, in
the same kernel, runs for each test cell the check its hidden tests run when graded
(grading.grade: the autograder's scenarios for that rule, fresh values, against PyTorch),
and prints the same report and verdict a graded student reads, with the points each cell
would earn: a cell earns its points when its visible asserts and its hidden check pass.
Without a GPU the CUDA cell is neither passed nor failed: "CUDA: not run here (no GPU), not
counted", and the total is the CPU points.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import nbformat

from autograder.report import NOT_RUN_NO_GPU
from coursekit.exercises.assignments import ASSIGNMENTS, BY_NAME, FETCH_DIR
from coursekit.exercises.grading import check_seams, report_text, settled, verdict, waiting_note

RESULTS_MARK = "@@selfcheck-results@@ "
NOT_RUN_HERE = "CUDA: not run here (no GPU), not counted"


def graded_cells(nb) -> list[dict]:
    """grade_id and points of each test cell, in notebook order."""
    cells = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            cells.append({"grade_id": meta["grade_id"], "points": meta["points"], "cell": cell})
    return cells


def hidden_checks_in_kernel(namespace: dict, assignment_name: str) -> None:
    """Kernel side: print each test cell's report and verdict, then one line of results."""
    a = BY_NAME[assignment_name]
    checks = [(f"test_{rule}", [rule], "cpu") for rule in a.rules]
    checks.append((f"test_cuda_{a.name}", list(a.cuda_rules), "cuda"))
    results = {}
    for grade_id, rules, device in checks:
        report = check_seams(namespace, a.name, rules, device)
        print(f"\n===== {grade_id}: hidden tests, rule {', '.join(rules)} on {device} =====")
        print(report_text(report))
        passed, later = settled(report, a.name)
        line = verdict(report, rules)
        if passed and later:  # the class edition, before a later assignment is built
            line = f"PASSED: rule {', '.join(rules)}; {waiting_note(later)}"
        print(line)
        results[grade_id] = {"passed": passed, "verdict": line}
    print(RESULTS_MARK + json.dumps(results))


def run(path: Path, out=sys.stdout) -> int:
    # The kernel's messaging logs a socket's late close as a traceback on stderr (tornado's
    # logger, when the kernel stops): not the student's business, and never about their code.
    logging.getLogger("tornado").setLevel(logging.CRITICAL)
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    name = path.stem
    if name not in BY_NAME:
        raise SystemExit(f"{path}: not one of the course's assignments ({', '.join(BY_NAME)})")
    cells = graded_cells(nb)
    probe = nbformat.v4.new_code_cell(
        "from coursekit.exercises.selfcheck import hidden_checks_in_kernel\n"
        f"hidden_checks_in_kernel(globals(), {name!r})"
    )
    nb.cells.append(probe)
    client = NotebookClient(
        nb,
        timeout=1800,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    client.execute()

    text = "".join(o.get("text", "") for o in probe.outputs if o.output_type == "stream")
    errors = [o for o in probe.outputs if o.output_type == "error"]
    if errors or RESULTS_MARK not in text:
        detail = errors[0]["evalue"] if errors else text[-2000:]
        print(f"the notebook's engine could not be checked: {detail}", file=out)
        return 2
    report_text, _, results_line = text.rpartition(RESULTS_MARK)
    hidden = json.loads(results_line)
    print(report_text.strip("\n"), file=out)

    print(f"\n===== summary: {path} =====", file=out)
    earned = possible = 0.0
    cpu_complete = True
    for entry in cells:
        check = hidden.get(entry["grade_id"], {"passed": False, "verdict": "not checked"})
        points = entry["points"]
        if check["verdict"] == NOT_RUN_NO_GPU:  # never a pass, never a failure of CPU work
            print(f"{entry['grade_id']:<28} {NOT_RUN_HERE}", file=out)
            continue
        visible = _visible_error(entry["cell"])
        ok = visible is None and check["passed"]
        earned += points if ok else 0
        possible += points
        cpu_complete &= ok or "cuda" in entry["grade_id"]
        why = "" if ok else f"  ({'visible tests: ' + visible if visible else check['verdict']})"
        print(f"{entry['grade_id']:<28} {points if ok else 0:>5g} / {points:<5g}{why}", file=out)
    print(f"{'total':<28} {earned:>5g} / {possible:<5g}", file=out)
    return 0 if cpu_complete else 1


def _visible_error(cell) -> str | None:
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            if output["ename"] == "NotImplementedError":
                return "NotImplementedError: a function is still to write"
            return f"{output['ename']}: {output['evalue']}".strip()[:300]
        if output.output_type == "stream" and output.name == "stderr":
            return "wrote to stderr (a graded cell must not)"
    return None


def default_notebooks(root: Path = Path(".")) -> list[Path]:
    """The copies a student works in, in course order: fetched from the Assignment List into
    my_assignments/ (`make lab`), else a `minigrad-course start` folder's exercises/."""
    for copy in ("fetched_copy", "started_copy"):
        found = [root / getattr(a, copy) for a in ASSIGNMENTS]
        found = [path for path in found if path.is_file()]
        if found:
            return found
    return []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="minigrad-course check", description=__doc__)
    parser.add_argument(
        "notebooks", type=Path, nargs="*",
        help=f"default: every notebook in {FETCH_DIR}/, else in exercises/ (start's copy)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    notebooks = args.notebooks or default_notebooks()
    if not notebooks:
        print(
            f"no exercise here: fetch one in JupyterLab (`make lab`, then Nbgrader > "
            f"Assignment List > Fetch) into {FETCH_DIR}/, run this in a folder made by "
            "`minigrad-course start`, or name a notebook: minigrad-course check NOTEBOOK",
            file=sys.stderr,
        )
        return 2
    missing = [str(path) for path in notebooks if not path.is_file()]
    if missing:
        print(f"no such notebook: {', '.join(missing)}", file=sys.stderr)
        return 2
    return max(run(path) for path in notebooks)


if __name__ == "__main__":
    sys.exit(main())
