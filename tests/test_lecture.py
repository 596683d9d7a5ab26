"""autograder/lecture.py: in a lecture's kernel, a cell that stops on a function not built
yet, or on PyTorch or matplotlib not installed, says why in one line and counts as run;
names it would have defined are explained when a later cell needs them; any other error
still fails the cell."""

from __future__ import annotations

import pytest

from autograder import lecture
from minigrad import seams


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_cell("from autograder.lecture import keep_going\nkeep_going()")
    yield shell
    shell.set_custom_exc((), None)
    lecture._unmade.clear()
    InteractiveShell.clear_instance()


def test_a_function_not_built_yet_names_its_assignment_and_the_cell_counts_as_run(shell, capsys):
    result = shell.run_cell(
        "print('PyTorch: 2.0')\n"
        "from minigrad.seams import not_built\n"
        "made_here = 1\n"
        "raise not_built('inplace_versions', 'bump_version')\n"
        "never = 2\n"
    )
    assert result.success
    out = capsys.readouterr().out
    assert "PyTorch: 2.0" in out
    assert "bump_version() is not built yet; you build it in assignment 3 (inplace_versions)" in out
    assert "Traceback" not in out
    later = shell.run_cell("print(never)")
    assert later.success
    assert "needs `never`, which a cell above could not make (bump_version() is not built" in (
        capsys.readouterr().out
    )


def test_a_missing_optional_package_names_the_extra(shell, capsys, monkeypatch):
    monkeypatch.setattr(lecture, "install_hint", lambda package: f"pip install hint-{package}")
    result = shell.run_cell(
        "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\nimport_ok = 1\n"
    )
    assert result.success
    out = capsys.readouterr().out
    assert "skipped: this cell needs PyTorch, not installed here: pip install hint-torch" in out
    assert shell.run_cell("import_ok").success
    assert "(needs PyTorch, not installed here: pip install hint-torch)" in capsys.readouterr().out


def test_any_other_error_still_fails_the_cell(shell):
    assert not shell.run_cell("1 / 0").success
    assert not shell.run_cell("print(undefined_anywhere)").success
    assert not shell.run_cell("import no_such_module_here").success
    assert not shell.run_cell("raise NotImplementedError('a student stub')").success


def test_the_hint_names_the_students_extra_or_the_instructors():
    hint = lecture.install_hint("torch")
    assert hint in ("pip install 'minigrad-course-student[torch]'",
                    "pip install 'minigrad-course[course]'")  # fmt: skip
    assert lecture.why_stopped(seams.not_built("devices", "to_copy")).startswith(
        "minigrad stops here: to_copy() is not built yet; you build it in assignment 5"
    )
