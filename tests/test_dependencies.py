"""What the course's dependency bounds buy (pyproject.toml says why each is there)."""

from __future__ import annotations

import subprocess
import sys

from coursekit.edition import STUDENT_PROJECT, course_requirement


def test_reading_a_notebook_builds_no_iri_parsers():
    """jsonschema below 4.24: importing nbformat (every Validate, `check` and grading step
    does) must not import rfc3987-syntax, which builds its Earley parsers at import."""
    probe = "import sys, nbformat; print(sorted(m for m in sys.modules if 'rfc3987' in m))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout


def test_the_students_distribution_carries_the_same_bounds():
    project = STUDENT_PROJECT.format(
        version="0", torch=course_requirement("torch"),
        jsonschema=course_requirement("jsonschema"),
    )  # fmt: skip
    assert '"torch==2.13.0"' in project
    assert '"jsonschema<4.24,>=4.18"' in project
