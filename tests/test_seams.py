"""One engine: the graded functions live in minigrad itself (minigrad/seams), the exercises
bind a student's functions into it, and nobody's copy carries a reference body it should not.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import nbformat
import pytest

import minigrad
from coursekit.edition import graded_functions, seam_source, stubbed
from coursekit.exercises.assignments import ASSIGNMENTS, BY_NAME
from coursekit.exercises.cells import SOLUTION_MARKERS, without_markers
from coursekit.exercises.grading import check_seams
from coursekit.exercises.planted import answer_functions
from coursekit.exercises.release import EXERCISES
from minigrad import seams

MAX_GIVEN_LINES = 400
NAMES = [a.name for a in ASSIGNMENTS]


def reference_bodies(assignment: str) -> dict[str, str]:
    """Each graded function's reference body: the lines between its solution markers."""
    bodies = {}
    for name, text in graded_functions(seam_source(assignment)).items():
        inside = text.split("### BEGIN SOLUTION\n", 1)[1].rsplit("### END SOLUTION", 1)[0]
        lines = [line.strip() for line in inside.splitlines() if line.strip()]
        bodies[name] = "\n".join(lines)
    return bodies


def _normalised(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def test_course_order_is_the_lectures():
    assert NAMES == list(seams.ASSIGNMENTS)
    assert [a.lecture for a in ASSIGNMENTS] == sorted(a.lecture for a in ASSIGNMENTS)


@pytest.mark.parametrize("assignment", NAMES)
def test_every_graded_function_is_in_graded_and_marked(assignment):
    module = seams.module(assignment)
    assert set(graded_functions(seam_source(assignment))) == set(module.GRADED)
    assert not set(module.GRADED) & set(module.__all__), "helpers must not export answers"
    assert BY_NAME[assignment].rules, "an assignment grades at least one rule"


@pytest.mark.parametrize("assignment", NAMES)
def test_the_engine_calls_each_graded_function(assignment):
    """Binding a stub for one function fails a scenario of its rules, with the message that
    names the assignment: the engine goes through the seam, not through a copy of it."""
    for name, rules in seams.graded(assignment).items():
        namespace = with_stubs(assignment, [name])
        report = check_seams(namespace, assignment, list(rules), seed=5)
        assert not report.passed, (
            f"{name} stubbed, yet rules {rules} pass: the engine never calls it"
        )
        text = str(report)
        assert f"{name}() is not built yet" in text and assignment in text, text[:2000]


def test_one_right_function_earns_exactly_its_rules():
    """Grading in isolation: with only read_grad written, the L3 cell passes and every other
    cell of leaf_nodes fails, the reference standing in for nothing but the others' rules."""
    written = with_stubs("leaf_nodes", [n for n in seams.graded("leaf_nodes") if n != "read_grad"])
    outcome = {rule: check_seams(written, "leaf_nodes", [rule], seed=9).passed
               for rule in BY_NAME["leaf_nodes"].rules}  # fmt: skip
    assert outcome == {rule: rule == "L3" for rule in outcome}


def with_stubs(assignment: str, names) -> dict:
    """The reference answers' namespace with the functions `names` replaced by stubs."""
    namespace = answer_functions(assignment)
    for name in names:
        text = graded_functions(seam_source(assignment))[name]
        exec(
            stubbed(text + "\n", assignment), {**namespace, "not_built": seams.not_built}, namespace
        )
    return namespace


def test_use_names_a_missing_function_and_a_wrong_signature():
    with pytest.raises(NameError, match="read_grad is not defined"):
        seams.use("leaf_nodes", {}, ["read_grad"])
    with pytest.raises(TypeError, match=r"read_grad must take the parameters \(tensor\)"):
        seams.use("leaf_nodes", {"read_grad": lambda t, extra: None}, ["read_grad"])
    with pytest.raises(ValueError, match="no assignment named"):
        seams.use("leaf", {})
    seams.reset()


def test_use_then_reset_gives_the_engine_back():
    x = minigrad.tensor([1.0], requires_grad=True)
    seams.use("leaf_nodes", {"read_grad": lambda tensor: "mine"}, ["read_grad"])
    try:
        assert x.grad == "mine"
    finally:
        seams.reset()
    assert x.grad is None


def _given_lines(nb) -> int:
    return sum(
        len(c.source.splitlines())
        for c in nb.cells
        if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("solution")
    )


@pytest.mark.parametrize("assignment", NAMES)
def test_released_notebook_is_short(assignment):
    nb = nbformat.read(EXERCISES / assignment / f"{assignment}.ipynb", as_version=4)
    assert _given_lines(nb) <= MAX_GIVEN_LINES


def test_no_released_file_holds_a_reference_body():
    """Every file under exercises/ (each cell of a notebook read on its own), for the
    reference body of every graded function of every assignment."""
    bodies = {(a, n): b for a in NAMES for n, b in reference_bodies(a).items()}
    texts = {}
    for path in EXERCISES.rglob("*"):
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text())
            text = "\n".join("".join(c["source"]) for c in nb["cells"])
        elif path.is_file():
            text = path.read_text(errors="replace")
        else:
            continue
        texts[path] = _normalised(text)
    assert texts
    found = [(str(p), key) for p, text in texts.items() for key, b in bodies.items() if b in text]
    assert not found


def class_edition(tmp_path) -> Path:
    """`minigrad-course edition` run as an instructor runs it: the student distribution's
    project (the class edition's minigrad, the checker, the student side of coursekit)."""
    edition = tmp_path / "edition"
    cli = [sys.executable, "-m", "coursekit.cli", "edition", str(edition)]
    subprocess.run(cli, check=True, capture_output=True)
    return edition


def test_the_class_edition_installs_holds_no_reference_body_and_names_the_assignment(tmp_path):
    """`minigrad-course edition DIR`, pip-installed: every installed file searched for every
    reference body; a graded function not built yet says which assignment builds it, and
    what the engine does without one (plain tensors, arithmetic) still works."""
    edition = class_edition(tmp_path)
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
           "--target", str(site), str(edition)]  # fmt: skip
    subprocess.run(pip, check=True, capture_output=True)
    installed = [p for p in site.rglob("*") if p.is_file() and p.suffix in (".py", ".txt", "")]
    text = "\n".join(_normalised(p.read_text(errors="replace")) for p in installed)
    assert "def read_grad(tensor):" in text  # the search reads the installed sources
    for assignment in NAMES:
        for name, body in reference_bodies(assignment).items():
            assert body not in text, f"{assignment}.{name}'s reference body is installed"
    assert not SOLUTION_MARKERS.search(text + "\n")
    probe = (
        "import minigrad\n"
        "x = minigrad.tensor([1.0, 2.0], requires_grad=True)\n"
        "print((x * 2 + 1).tolist())\n"
        "try:\n    (x * 2).sum().backward()\nexcept NotImplementedError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(site)})  # fmt: skip
    assert out.stdout.splitlines()[0] == "[3.0, 5.0]"
    assert re.match(
        r"accumulate_grad\(\) is not built yet: you write it in assignment 1, leaf_nodes",
        out.stdout.splitlines()[1],
    ), out.stdout


def test_the_class_edition_carries_a_students_functions_into_the_next_kernel(tmp_path):
    """Binding all of leaf_nodes' functions in one process saves them; a new process's
    `import minigrad` binds them again, so the next notebook (or a lecture) runs on them."""
    edition = class_edition(tmp_path)
    env = {"PYTHONPATH": str(edition), "MINIGRAD_MY_SEAMS": str(tmp_path / "mine")}
    answers = tmp_path / "answers.py"
    functions = graded_functions(seam_source("leaf_nodes")).values()
    answers.write_text(
        "import minigrad\nfrom minigrad.seams.leaf_nodes import *\n\n"
        + "\n\n".join(without_markers(f) for f in functions)
        + '\n\nminigrad.seams.use("leaf_nodes", globals())\n'
    )
    subprocess.run([sys.executable, str(answers)], check=True, env=env, cwd=tmp_path)
    assert (tmp_path / "mine" / "leaf_nodes.py").is_file()
    probe = (
        "import minigrad\n"
        "x = minigrad.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * x).sum().backward()\n"
        "print(x.grad.tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path,
                         capture_output=True, text=True)  # fmt: skip
    assert out.stdout.strip() == "[2.0, 4.0]", out.stderr[-2000:]
    (tmp_path / "mine" / "leaf_nodes.py").write_text("def read_grad(:\n")  # broken
    out = subprocess.run([sys.executable, "-c", "import minigrad"], env=env, cwd=tmp_path,
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 0 and "rerun the leaf_nodes notebook" in out.stderr


def test_until_built_behaviour_never_passes_its_own_rules():
    """The class edition's stand-ins for version counters and .to() (UNTIL_BUILT) are the
    engine without the rule: bound as a student's answer, they earn nothing."""
    for assignment in ("inplace_versions", "devices"):
        fallback = seams.module(assignment).UNTIL_BUILT
        namespace = {**answer_functions(assignment), **fallback}
        for rule in BY_NAME[assignment].rules:
            if set(seams.functions_for(assignment, [rule])) & set(fallback):
                assert not check_seams(namespace, assignment, [rule], seed=3).passed, rule


def test_a_seam_defined_in_the_engine_matches_its_reference_edition():
    """The self-paced engine is the reference edition: its seams carry the markers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for assignment in NAMES:
            assert "### BEGIN SOLUTION" in seam_source(assignment)


def test_the_self_paced_edition_never_loads_saved_functions(tmp_path):
    """The engine graders use (the clone's) ignores whatever a student saved."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "leaf_nodes.py").write_text(
        "def read_grad(tensor):\n    return 'saved'\n\n"
        "def retain_grad(tensor):\n    pass\n\n"
        "def accumulate_grad(tensor, grad, version=None, retained=False):\n    pass\n\n"
        "def set_grad(tensor, value):\n    pass\n"
    )
    probe = "import minigrad\nprint(minigrad.tensor([1.0], requires_grad=True).grad)\n"
    checkout = str(Path(minigrad.__file__).resolve().parent.parent)
    env = {**os.environ, "MINIGRAD_MY_SEAMS": str(mine), "PYTHONPATH": checkout}
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path,
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert out.stdout.strip() == "None"


def _run_lecture(name: str) -> tuple[list[str], str]:
    """Execute a lecture in a fresh kernel (which inherits this process's environment): the
    errors it showed, as "Name: message", and the text its cells printed."""
    from nbclient import NotebookClient

    course = Path(minigrad.__file__).resolve().parent.parent / "course"
    nb = nbformat.read(course / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(course)}}).execute()  # fmt: skip
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [f"{o['ename']}: {o['evalue']}" for o in outputs if o.output_type == "error"]
    return errors, "".join(o.get("text", "") for o in outputs if o.output_type == "stream")


def test_a_lecture_runs_on_the_class_edition_once_the_students_functions_are_saved(
    tmp_path, monkeypatch
):
    """Lecture 02 in the class edition runs top to bottom: before the student built leaf_nodes
    the cells that need it say so, naming the assignment; with every assignment's functions
    saved (here: the reference answers, as a student who finished would have them) they run."""
    edition = class_edition(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(edition))
    monkeypatch.setenv("MINIGRAD_MY_SEAMS", str(tmp_path / "mine"))
    errors, text = _run_lecture("02_leaf_nodes.ipynb")
    assert errors == [] and "is not built yet; you build it in assignment 1 (leaf_nodes)" in text
    (tmp_path / "mine").mkdir()
    for assignment in NAMES:
        functions = graded_functions(seam_source(assignment)).values()
        (tmp_path / "mine" / f"{assignment}.py").write_text(
            f"from minigrad.seams.{assignment} import *\n\n\n"
            + "\n\n".join(without_markers(f) for f in functions)
        )
    errors, text = _run_lecture("02_leaf_nodes.ipynb")
    assert errors == [] and "is not built yet" not in text


COURSE_ORDER_PROBE = """
import json, sys
from pathlib import Path
import coursekit.edition as edition
edition.SEAMS = Path(sys.argv[1])  # the clone's seams: where the reference answers are
from coursekit.exercises.assignments import BY_NAME
from coursekit.exercises.grading import check_rule, check_seams
from coursekit.exercises.planted import BUGS, answer_functions
from minigrad import seams

assert seams.EDITION == "class"
verdicts = {}
for assignment in seams.ASSIGNMENTS:  # each finished in turn, later ones still stubs
    namespace = answer_functions(assignment)
    seams.use(assignment, namespace)
    for rule in BY_NAME[assignment].rules:
        report = check_seams(namespace, assignment, [rule], seed=2024)
        try:
            check_rule(namespace, assignment, [rule])
            validated = True
        except AssertionError:
            validated = False
        verdicts[f"{assignment} {rule}"] = {
            "validated": validated,
            "statuses": sorted({r.status for r in report.results}),
            "waiting_for": sorted({r.waiting_for for r in report.waiting}),
        }
rule = BUGS["leaf_nodes"][0].rule
wrong = answer_functions("leaf_nodes", BUGS["leaf_nodes"][0])
try:
    check_rule(wrong, "leaf_nodes", [rule])
    verdicts["planted"] = True
except AssertionError:
    verdicts["planted"] = False
print(json.dumps(verdicts))
"""


@pytest.mark.slow
def test_the_class_edition_validates_each_right_answer_in_course_order(tmp_path):
    """A student of a class works through the assignments in order, each answer right: every
    visible check passes, though later assignments are stubs (and the version counters and
    .to() stand-ins). What needs a later assignment waits for it, named, and never fails;
    nothing waits on the assignment being checked; a planted bug still fails its rule."""
    engine = tmp_path / "engine"  # the class edition's minigrad alone: coursekit from here
    engine.mkdir()
    (engine / "minigrad").symlink_to(class_edition(tmp_path) / "minigrad")
    checkout = Path(minigrad.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": f"{engine}{os.pathsep}{checkout}",
           "MINIGRAD_MY_SEAMS": str(tmp_path / "mine")}  # fmt: skip
    probe = [sys.executable, "-c", COURSE_ORDER_PROBE, str(checkout / "minigrad" / "seams")]
    out = subprocess.run(probe, env=env, cwd=tmp_path, capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    verdicts = json.loads(out.stdout.splitlines()[-1])
    assert verdicts.pop("planted") is False
    for key, verdict in verdicts.items():
        assignment = key.split()[0]
        assert verdict["validated"], (key, verdict)
        assert "failed" not in verdict["statuses"], (key, verdict)
        later = seams.ASSIGNMENTS[seams.ASSIGNMENTS.index(assignment) + 1 :]
        assert set(verdict["waiting_for"]) <= set(later), (key, verdict)
    waited = {part for v in verdicts.values() for part in v["waiting_for"]}
    assert waited == {"inplace_versions", "rebuilding_tensors", "devices"}  # the probe sees them


STUB_PROBE = """
import json
from minigrad import seams

raised = {}
for assignment in seams.ASSIGNMENTS:
    seam = seams.module(assignment)
    for name in seam.GRADED:
        if name in getattr(seam, "UNTIL_BUILT", {}):
            continue
        fn = getattr(seam, name)
        try:
            fn(*[None] * fn.__code__.co_argcount)
            raised[f"{assignment}.{name}"] = "returned"
        except Exception as exc:
            raised[f"{assignment}.{name}"] = [type(exc).__name__, getattr(exc, "waiting_for", "")]
print(json.dumps(raised))
"""


def test_every_class_edition_stub_names_its_assignment(tmp_path):
    """Each graded function of the class edition (stand-ins aside) raises SeamNotBuilt
    carrying its assignment, the mark the checker reads to report 'waiting' (a module that
    lacked `not_built` gave a NameError: a failure where the student could do nothing)."""
    edition = class_edition(tmp_path)
    out = subprocess.run([sys.executable, "-c", STUB_PROBE], env={"PYTHONPATH": str(edition)},
                         cwd=tmp_path, capture_output=True, text=True, check=True)  # fmt: skip
    raised = json.loads(out.stdout)
    assert len(raised) >= 15
    for key, outcome in raised.items():
        assert outcome == ["SeamNotBuilt", key.split(".")[0]], (key, outcome)


def test_a_scenario_stopped_by_an_unbuilt_part_waits_and_never_passes(monkeypatch):
    """The checker's side: an engine exception carrying `waiting_for` ends the scenario as
    waiting for that part (not passed, not a failure to fix here); a difference before it
    is still a failure."""
    import autograder

    def unbuilt(tensor):
        raise seams.not_built("leaf_nodes", "read_grad")

    monkeypatch.setattr(seams.leaf_nodes, "read_grad", unbuilt)
    report = autograder.check(minigrad, rules=["L3"], topics=["leaf"], seed=5)
    assert report.waiting and not report.passed
    assert {r.waiting_for for r in report.waiting} == {"leaf_nodes"}
    assert "waiting for leaf_nodes" in report.summary()
    assert all(r.status in ("waiting", "passed") for r in report.results)

    monkeypatch.setattr(seams.leaf_nodes, "retain_grad", lambda tensor: None)  # L4 wrong
    report = autograder.check(minigrad, rules=["L4"], topics=["leaf"], seed=5)
    assert report.failures, "a difference before the unbuilt part must fail"


def test_the_class_edition_saves_only_written_functions(tmp_path, monkeypatch):
    """A function still raising NotImplementedError as released is not carried forward (the
    stub that names the assignment stays); the written ones are saved and loaded again."""
    monkeypatch.setattr(seams, "EDITION", "class")
    monkeypatch.setenv("MINIGRAD_MY_SEAMS", str(tmp_path / "mine"))
    import runpy

    engines_own = seams.leaf_nodes.retain_grad
    functions = graded_functions(seam_source("leaf_nodes"))
    functions["retain_grad"] = (
        'def retain_grad(tensor):\n    """Doc."""\n    raise NotImplementedError()'
    )
    notebook = tmp_path / "notebook.py"  # functions with a source file, as a kernel's cells
    notebook.write_text(
        "from minigrad.seams.leaf_nodes import *\n\n\n"
        + "\n\n".join(without_markers(f) for f in functions.values())
    )
    namespace = runpy.run_path(str(notebook))
    try:
        seams.use("leaf_nodes", namespace)
        saved = (tmp_path / "mine" / "leaf_nodes.py").read_text()
        assert "def read_grad(" in saved and "def retain_grad(" not in saved
        seams.reset()
        assert seams.load_saved() == ["leaf_nodes"]
        assert seams.leaf_nodes.read_grad.__module__ == "my_leaf_nodes"
        assert seams.leaf_nodes.retain_grad is engines_own
    finally:
        seams.reset()


def _cells_namespace(tmp_path, name: str, sources) -> dict:
    """The namespace a notebook's kernel has after running these cells (the functions keep
    a source file, as a kernel's cells do)."""
    import runpy

    cells = tmp_path / f"{name}.py"
    cells.write_text("from minigrad.seams.leaf_nodes import *\n\n\n" + "\n\n".join(sources))
    return runpy.run_path(str(cells))


def _released_answers() -> list[str]:
    nb = nbformat.read(EXERCISES / "leaf_nodes" / "leaf_nodes.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]


def test_saved_work_survives_an_untouched_copy_and_every_version_can_be_restored(
    tmp_path, monkeypatch
):
    """A right leaf_nodes is bound and saved; binding an untouched copy (each answer still
    raising NotImplementedError, as `check` runs it) or the engine's own functions changes
    nothing; a later wrong answer replaces the saved one, the right one stays in the history
    and restore() brings it back."""
    from coursekit.exercises.planted import BUGS
    from coursekit.planted import planted_in

    monkeypatch.setattr(seams, "EDITION", "class")
    monkeypatch.setenv("MINIGRAD_MY_SEAMS", str(tmp_path / "mine"))
    saved = tmp_path / "mine" / "leaf_nodes.py"
    right = [without_markers(f) for f in graded_functions(seam_source("leaf_nodes")).values()]
    engines_own = {n: getattr(seams.leaf_nodes, n) for n in seams.graded("leaf_nodes")}
    try:
        seams.use("leaf_nodes", _cells_namespace(tmp_path, "right", right))
        first = saved.read_text()
        assert all(f"def {name}(" in first for name in seams.graded("leaf_nodes"))

        seams.use("leaf_nodes", _cells_namespace(tmp_path, "untouched", _released_answers()))
        seams.use("leaf_nodes", engines_own)
        assert saved.read_text() == first
        assert [v["version"] for v in seams.saved_versions("leaf_nodes")] == [0]

        bug = BUGS["leaf_nodes"][0]
        wrong = [planted_in(s, bug) or s for s in right]
        seams.use("leaf_nodes", _cells_namespace(tmp_path, "wrong", wrong))
        assert saved.read_text() != first
        versions = seams.saved_versions("leaf_nodes")
        assert [v["version"] for v in versions] == [1, 0]
        assert versions[0]["path"].read_text() == first

        seams.restore("leaf_nodes", 1)
        assert saved.read_text() == first
        assert len(seams.saved_versions("leaf_nodes")) == 3  # the wrong one is kept too
        with pytest.raises(ValueError, match="saved list leaf_nodes"):
            seams.restore("leaf_nodes", 7)
    finally:
        seams.reset()


def test_a_saved_function_that_fails_to_load_is_named_and_the_others_load(tmp_path, monkeypatch):
    monkeypatch.setattr(seams, "EDITION", "class")
    monkeypatch.setenv("MINIGRAD_MY_SEAMS", str(tmp_path / "mine"))
    functions = graded_functions(seam_source("leaf_nodes"))
    functions["set_grad"] = "def set_grad(tensor):\n    pass\n"  # the engine passes two
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "leaf_nodes.py").write_text(
        "from minigrad.seams.leaf_nodes import *\n\n\n"
        + "\n\n".join(without_markers(f) for f in functions.values())
    )
    try:
        with pytest.warns(UserWarning) as caught:
            assert seams.load_saved() == ["leaf_nodes"]
        (message,) = [str(w.message) for w in caught]
        assert "set_grad()" in message and "minigrad-course saved list leaf_nodes" in message
        assert seams.leaf_nodes.read_grad.__module__ == "my_leaf_nodes"
        assert seams.leaf_nodes.set_grad.__module__ != "my_leaf_nodes"
    finally:
        seams.reset()
