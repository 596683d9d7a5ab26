"""The exercises, graded through real nbgrader (issue 5).

Per assignment, one temporary nbgrader course (shared by that assignment's tests, which run
on one xdist worker) releases the assignment and autogrades, in nbgrader's kernel, the
reference answer and the untouched stub (leaf_nodes also one answer with a planted bug and one
that sets off NumPy's and PyTorch's warnings, and the planted bug again in a notebook made in
Chinese). Planted bugs are edits of the reference answer;
each must cost exactly the points of the test cell of the rule it breaks, with feedback naming
that rule: one through nbgrader's kernel, every one through the hidden tests' own call, run
here (the sealed run grades each one too: tests/test_sealed_planted.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.rules import statement
from coursekit.exercises.__main__ import write_solutions
from coursekit.exercises.assignments import ASSIGNMENTS, BY_NAME
from coursekit.exercises.notebook import build_notebook, cpu_points, notebook_text
from coursekit.exercises.planted import BUGS, WARNING_PREAMBLE, answered
from coursekit.exercises.release import EXERCISES, REPO, SOLUTIONS, Course, release
from coursekit.languages import in_language

NO_GPU = "not run: no GPU on the grader"
KERNEL_BUG = ("leaf_nodes", "L8")  # the planted bug also graded in nbgrader's kernel


def gpu_present() -> bool:
    import torch

    try:
        import cupy

        return torch.cuda.is_available() and cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


class Graded:
    """One assignment released and autograded in a temporary course."""

    def __init__(self, name: str, root: Path):
        self.name = name
        self.course = Course(root, [name])
        self.released = self.course.generate(name)
        submissions = {
            "reference": answered(self.released, name),
            "stub": self.released.read_text(),
        }
        if name == KERNEL_BUG[0]:
            bug = next(b for b in BUGS[name] if b.rule == KERNEL_BUG[1])
            submissions[f"bug_{bug.rule}"] = answered(self.released, name, bug)
            chinese = in_language(nbformat.reads(submissions[f"bug_{bug.rule}"], 4), "zh-CN")
            submissions[f"bug_{bug.rule}_zh"] = nbformat.writes(chinese)
            submissions["warnings"] = answered(self.released, name, preamble=WARNING_PREAMBLE)
        for student, text in submissions.items():
            self.course.submit(name, student, text)
        self.scores = self.course.autograde(name, list(submissions))

    def cell(self, student: str, grade_id: str):
        nb = nbformat.read(self.course.autograded_notebook(self.name, student), as_version=4)
        (cell,) = [
            c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
        ]
        return cell


def error_text(cell) -> str:
    return " ".join(o.get("evalue", "") for o in cell.outputs if o.output_type == "error")


def stderr_cells(notebook_path: Path) -> list[str]:
    nb = nbformat.read(notebook_path, as_version=4)
    return [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and any(o.output_type == "stream" and o.name == "stderr" for o in c.get("outputs", []))
    ]


@pytest.fixture(scope="session")  # kept when the worker runs another module in between
def graded(tmp_path_factory):
    cache = {}

    def get(name: str) -> Graded:
        if name not in cache:
            cache[name] = Graded(name, tmp_path_factory.mktemp(name))
        return cache[name]

    return get


def per_assignment(names=None):
    """Parametrise over assignments, each in its own xdist group (one shared course each)."""
    return pytest.mark.parametrize(
        "name",
        [pytest.param(n, marks=pytest.mark.xdist_group(n)) for n in (names or BY_NAME)],
    )


def cuda_id(name: str) -> str:
    return f"test_cuda_{name}"


# -- generated files are current -------------------------------------------------------------


@pytest.mark.xdist_group("generate")
def test_solution_notebooks_are_regenerated_identically():
    stale = [
        a.name
        for a in ASSIGNMENTS
        if (SOLUTIONS / a.name / f"{a.name}.ipynb").read_text() != notebook_text(build_notebook(a))
    ]
    assert not stale, f"solutions/ is stale for {stale}: run `make exercises`"


@pytest.mark.xdist_group("generate")
def test_generator_writes_the_same_bytes_twice(tmp_path, monkeypatch):
    import coursekit.exercises.__main__ as main

    monkeypatch.setattr(main, "SOLUTIONS", tmp_path)
    write_solutions(["devices"])
    first = (tmp_path / "devices" / "devices.ipynb").read_text()
    write_solutions(["devices"])
    assert (tmp_path / "devices" / "devices.ipynb").read_text() == first


@pytest.mark.xdist_group("generate")
def test_exercises_are_nbgraders_release_of_solutions(tmp_path):
    names = [a.name for a in ASSIGNMENTS]
    release(names, tmp_path / "course", target=tmp_path / "released")
    stale = [
        n
        for n in names
        if (tmp_path / "released" / n / f"{n}.ipynb").read_text()
        != (EXERCISES / n / f"{n}.ipynb").read_text()
    ]
    assert not stale, f"exercises/ is stale for {stale}: run `make exercises`"


def test_instructor_config_points_at_solutions_and_exercises():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO / "course")).load_config()
    root = Path(config.CourseDirectory.root)
    assert (root / config.CourseDirectory.source_directory).resolve() == SOLUTIONS
    assert (root / config.CourseDirectory.release_directory).resolve() == EXERCISES


@per_assignment()
def test_points_are_the_weights_of_the_rules_checked(name):
    from autograder.scenarios import select

    a = BY_NAME[name]
    nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", as_version=4)
    points = {
        c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    expected = {
        f"test_{r}": sum(s.weight for s in select(rules=[r], topics=[a.topic], device="cpu"))
        for r in a.rules
    }
    expected[cuda_id(name)] = sum(
        s.weight for s in select(rules=a.cuda_rules, topics=[a.topic], device="cuda")
    )
    assert points == expected
    assert all(p > 0 for p in points.values())


# -- grading through nbgrader ----------------------------------------------------------------


@per_assignment()
def test_reference_answer_gets_full_marks_except_cuda_without_gpu(graded, name):
    g = graded(name)
    scores = g.scores["reference"]
    cpu = {k: v for k, v in scores.items() if "cuda" not in k}
    assert cpu and all(score == top for score, top in cpu.values()), cpu
    score, top = scores[cuda_id(name)]
    if gpu_present():
        assert score == top
    else:
        assert score == 0 < top
        assert error_text(g.cell("reference", cuda_id(name))) == NO_GPU


@per_assignment()
def test_released_stub_scores_zero(graded, name):
    scores = graded(name).scores["stub"]
    assert len(scores) == len(BY_NAME[name].rules) + 1
    assert all(score == 0 for score, _ in scores.values()), scores


@per_assignment([KERNEL_BUG[0]])
def test_a_planted_bug_loses_exactly_its_rule_in_nbgraders_kernel(graded, name):
    g = graded(name)
    reference = g.scores["reference"]
    rule = KERNEL_BUG[1]
    scores = g.scores[f"bug_{rule}"]
    lost = {k: reference[k][0] - scores[k][0] for k in reference if scores[k] != reference[k]}
    assert lost == {f"test_{rule}": cpu_points(BY_NAME[name], rule)}, (rule, lost)
    feedback = error_text(g.cell(f"bug_{rule}", f"test_{rule}"))
    assert f"rule {rule}" in feedback, feedback


@per_assignment([KERNEL_BUG[0]])
def test_a_chinese_notebook_reads_its_hidden_tests_verdict_in_chinese(graded, name):
    """The planted bug in a notebook made in Chinese, graded in nbgrader's kernel: the same
    points as in English; the failed cell's verdict gives the rule's statement, the section to
    reread and the likely mistake in Chinese, PyTorch's side of the first difference as in
    English; the grading pipeline reads both notebooks' verdicts as the same data (the CUDA
    cell not run on this GPU-less grader included), whatever the words around them."""
    from coursekit.classroom.grading.outputs import read_cells, status_and_message
    from coursekit.exercises import verdict_data
    from coursekit.i18n import catalogue

    g = graded(name)
    rule = KERNEL_BUG[1]
    english, chinese = f"bug_{rule}", f"bug_{rule}_zh"
    assert g.scores[chinese] == g.scores[english]
    said = {s: error_text(g.cell(s, f"test_{rule}")) for s in (english, chinese)}
    zh = catalogue("zh-CN").gettext
    bug = next(b for b in BUGS[name] if b.rule == rule)
    explained = bug.why  # the likely mistake the diagnosis names (autograder/diagnoses.py)
    assert said[english].startswith(f"NOT PASSED: rule {rule}\n{rule}: {statement(rule)}")
    assert said[chinese].startswith(f"未通过：规则 {rule}\n{rule}: {zh(statement(rule))}")
    assert zh(statement(rule)) != statement(rule) and zh(explained) != explained, bug
    assert "\n请重读“02_leaf_nodes”这一讲中的" in said[chinese], said[chinese]
    assert zh(explained) in said[chinese] and explained in said[english]
    pytorch = [line.split(maxsplit=1)[1] for s in (english, chinese)
               for line in said[s].splitlines() if line.lstrip().startswith("PyTorch")]  # fmt: skip
    assert len(pytorch) == 2 and pytorch[0] == pytorch[1], said
    facts = {s: read_cells(g.course.autograded_notebook(name, s).parent, sealed=False)
             for s in (english, chinese)}  # fmt: skip

    def data(found) -> dict:  # each kernel drew its own seed: the rest is the same
        return {key: {k: v for k, v in f.items() if k not in ("error", "seeds")}
                for key, f in found.items()}  # fmt: skip

    assert data(facts[english]) == data(facts[chinese]) != {}
    failed = facts[chinese][name, f"test_{rule}"]
    assert failed["failed"] and len(failed["seeds"]) == 1, failed
    cuda = facts[chinese][name, cuda_id(name)]
    if not gpu_present():
        assert cuda["reason"] == verdict_data.NO_GPU and g.scores[chinese][cuda_id(name)][0] == 0
        assert status_and_message(0.0, 1.0, cuda)[0] == "not run"


@pytest.mark.parametrize("bug", [pytest.param(b, id=f"{n}.{b.rule}") for n in BUGS
                                 for b in BUGS[n]])  # fmt: skip
def test_each_planted_bug_fails_exactly_its_rules_hidden_test(bug):
    """The hidden test cells' call, `grade(globals(), ASSIGNMENT, [RULE])`, for every rule of
    the assignment, on the answers with the bug planted: only the bug's rule fails, and its
    verdict names the rule. On a seed of its own, as grading draws one."""
    from coursekit.exercises.grading import grade
    from coursekit.exercises.planted import answer_functions

    name = next(n for n, bugs in BUGS.items() if bug in bugs)
    answers = answer_functions(name, bug)
    failed = {}
    for rule in BY_NAME[name].rules:
        try:
            grade(answers, name, [rule], seed=20261128)
        except AssertionError as verdict:
            failed[rule] = str(verdict)
    assert list(failed) == [bug.rule], (bug.why, failed)
    assert f"rule {bug.rule}" in failed[bug.rule], failed


@per_assignment(["leaf_nodes"])
def test_warnings_from_numpy_and_pytorch_cost_nothing(graded, name):
    g = graded(name)
    assert g.scores["warnings"] == g.scores["reference"]
    assert not stderr_cells(g.course.autograded_notebook(name, "warnings"))
    assert not stderr_cells(g.course.autograded_notebook(name, "reference"))


# -- nbgrader validate -----------------------------------------------------------------------


def validate(path: Path, invert: bool) -> dict:
    """nbgrader's Validator on one notebook, in a child process (it runs a kernel)."""
    code = (
        "import json, sys\n"
        "from nbgrader.validator import Validator\n"
        "v = Validator()\n"
        f"v.invert = {invert}\n"
        "v.execute_preprocessor_timeout = 900\n"
        f"print(json.dumps(v.validate({str(path)!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@per_assignment()
def test_validate_passes_on_solutions_except_cuda(name):
    result = validate(SOLUTIONS / name / f"{name}.ipynb", invert=False)
    failed = result.get("failed", [])
    if gpu_present():
        assert not failed, failed
    else:
        # the source's hidden CUDA test (an instructor's notebook): never a pass without a GPU
        assert len(failed) == 1 and "gpu_here()" in failed[0]["source"], failed
        assert NO_GPU in failed[0]["raw_error"]
    assert set(result) <= {"failed"}, result


@per_assignment()
def test_validate_invert_flags_every_test_cell_of_the_stubs(name):
    """Every CPU test cell fails on the stubs; without a GPU the CUDA cell passes (it says it
    did not run, and its points are not counted there: a CPU-only student fails nothing)."""
    result = validate(EXERCISES / name / f"{name}.ipynb", invert=True)
    assert "changed" not in result, result
    passed = [cell["source"] for cell in result.get("passed", [])]
    if gpu_present():
        assert passed == [], passed
    else:
        assert len(passed) == 1 and "if gpu_here():" in passed[0], passed


# -- make check ------------------------------------------------------------------------------


@pytest.mark.xdist_group("devices")
def test_self_check_prints_the_graders_feedback(tmp_path):
    from coursekit.exercises.selfcheck import run

    name = "devices"
    bug = BUGS[name][0]
    rule = bug.rule
    answered_path = tmp_path / name / f"{name}.ipynb"
    answered_path.parent.mkdir()
    answered_path.write_text(answered(EXERCISES / name / f"{name}.ipynb", name, bug))
    out = tmp_path / "out.txt"
    with out.open("w") as stream:
        code = run(answered_path, out=stream)
    text = out.read_text()
    assert code == 1
    assert f"NOT PASSED: rule {rule}" in text and f"{rule}: {statement(rule)}" in text
    lines = {line.split()[0]: line for line in text.splitlines() if line.startswith("test_")}
    a = BY_NAME[name]
    for other in a.rules:
        earned = 0 if other == rule else cpu_points(a, other)
        assert lines[f"test_{other}"].split()[1] == f"{earned:g}", lines[f"test_{other}"]


def test_self_check_without_an_argument_checks_the_fetched_copy_and_counts_cpu_only(
    tmp_path, monkeypatch
):
    """`make check` with no NB: the copy in my_assignments/ (what a student submits); a
    right answer passes on CPU, and without a GPU the CUDA cell is neither passed nor failed."""
    import minigrad
    from coursekit.exercises.assignments import FETCH_DIR
    from coursekit.exercises.selfcheck import NOT_RUN_HERE, main

    name = "devices"
    fetched = tmp_path / BY_NAME[name].fetched_copy
    fetched.parent.mkdir(parents=True)
    fetched.write_text(answered(EXERCISES / name / f"{name}.ipynb", name))
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    a = BY_NAME[name]
    out = subprocess.run(
        [sys.executable, "-m", "coursekit.exercises.selfcheck"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert out.stdout.startswith(f"{BY_NAME[name].fetched_copy}: checked against PyTorch")
    total = next(line for line in out.stdout.splitlines() if line.startswith("total")).split()
    cpu_total = sum(cpu_points(a, rule) for rule in a.rules)
    if not minigrad.cuda.is_available():
        assert f"test_cuda_{name}" in out.stdout and NOT_RUN_HERE in out.stdout
        assert total[1:] == [f"{cpu_total:g}", "/", f"{cpu_total:g}"], total
    empty = subprocess.run(
        [sys.executable, "-m", "coursekit.exercises.selfcheck"],
        cwd=tmp_path / FETCH_DIR, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert empty.returncode == 2 and "Assignment List" in empty.stderr


def test_a_failing_visible_check_names_the_rule_the_section_and_the_first_difference():
    """What Validate shows under a wrong answer's test cell: the rule in words, where the
    lecture teaches it, and PyTorch's output next to the engine's, printed as PyTorch prints."""
    from autograder.rules import statement
    from coursekit.exercises.grading import check_rule
    from coursekit.exercises.planted import answer_functions

    bug = next(bug for bug in BUGS["leaf_nodes"] if bug.rule == "L8")
    rule = bug.rule
    check_rule(answer_functions("leaf_nodes"), "leaf_nodes", [rule])  # the right answer: silent
    with pytest.raises(AssertionError) as failed:
        check_rule(answer_functions("leaf_nodes", bug), "leaf_nodes", [rule])
    text = str(failed.value)
    assert text.startswith(f"NOT PASSED: rule {rule}\n{rule}: {statement(rule)}")
    assert 'Reread section "Gradients accumulate" of lecture 02_leaf_nodes' in text
    lines = text.splitlines()
    if lines[-1].startswith("and "):  # how many more differences, and where they are listed
        lines.pop()
    *_, first, pytorch, engine = lines
    assert first.startswith("First difference (leaf.")
    assert pytorch.startswith("  PyTorch:") and engine.startswith("  your engine:")
    assert pytorch.split(":", 1)[1].strip() != engine.split(":", 1)[1].strip()


def test_a_values_difference_shows_tensors_as_pytorch_prints_them():
    from autograder.compare import compare_observation

    def grad(values, text):
        snap = {"shape": [2], "dtype": "float32", "device": "cpu", "requires_grad": False,
                "is_leaf": True, "grad_fn": None, "retains_grad": False, "values": values,
                "repr": text}  # fmt: skip
        return {"label": "a.grad", "kind": "grad", "value": {"tensor": snap}, "raised": None,
                "warnings": []}  # fmt: skip

    torch_says = grad([3.749939203, 2.240463018], "tensor([3.7499, 2.2405])")
    (diff,) = compare_observation(
        torch_says, grad([1.87496960, 1.12023150], "tensor([1.8750, 1.1202])")
    )
    assert (diff["field"], diff["reference"], diff["engine"]) == (
        "values",
        "tensor([3.7499, 2.2405])",
        "tensor([1.8750, 1.1202])",
    )
    # printed alike (a difference below print precision): the numbers in full
    (diff,) = compare_observation(torch_says, grad([3.7499, 2.2405], "tensor([3.7499, 2.2405])"))
    assert diff["reference"] == "[3.749939203, 2.240463018]"


def test_grading_uses_the_pipelines_seed(monkeypatch):
    from coursekit.exercises.grading import SEED_VARIABLE, check_seams
    from coursekit.exercises.planted import answer_functions

    answers = answer_functions("leaf_nodes")
    monkeypatch.setenv(SEED_VARIABLE, "1234")
    report = check_seams(answers, "leaf_nodes", ["L3"])
    assert report.seed == 1234 and report.passed
    monkeypatch.delenv(SEED_VARIABLE)
    assert check_seams(answers, "leaf_nodes", ["L3"], seed=7).seed == 7
