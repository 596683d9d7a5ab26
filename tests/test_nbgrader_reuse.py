"""What a grading process builds once for nbgrader (coursekit/classroom/grading/nbgrader_reuse.py)
must leave nbgrader's results as they were: the same metadata errors, and a gradebook file
replaced between jobs read afresh through the engine kept for its URL."""

from __future__ import annotations

import shutil

import jsonschema
import nbgrader.api
import pytest
from nbgrader.api import Gradebook

from coursekit.classroom.grading.nbgrader_reuse import SchemaCheckedOnce, engine_per_url

SCHEMA = {"type": "object", "properties": {"points": {"type": "number"}}, "required": ["points"]}


def test_metadata_is_checked_as_jsonschema_does_with_the_schema_checked_once(monkeypatch):
    checks = []
    real = jsonschema.Draft202012Validator.check_schema
    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema",
                        classmethod(lambda cls, s: checks.append(s) or real(s)))  # fmt: skip
    shim = SchemaCheckedOnce()
    for bad in ({}, {"points": "two"}):
        with pytest.raises(jsonschema.ValidationError) as ours:
            shim.validate(bad, SCHEMA)
        with pytest.raises(jsonschema.ValidationError) as theirs:
            jsonschema.validate(bad, SCHEMA)
        assert ours.value.message == theirs.value.message
    shim.validate({"points": 2}, SCHEMA)
    assert len([s for s in checks if s is SCHEMA]) == 1 + 2  # ours once, jsonschema's twice


def test_a_gradebook_replaced_between_jobs_is_read_afresh(tmp_path, monkeypatch):
    monkeypatch.setattr(nbgrader.api, "create_engine", engine_per_url())
    url, path = f"sqlite:///{tmp_path / 'private.db'}", tmp_path / "private.db"
    for student in ("first", "second"):
        with Gradebook(f"sqlite:///{tmp_path / student}.db") as gb:
            gb.add_student(student)
    seen = []
    for student in ("first", "second"):  # each job copies its template over the same file
        shutil.copy(tmp_path / f"{student}.db", path)
        with Gradebook(url) as gb:
            seen.append(([s.id for s in gb.students], gb.engine))
    assert [ids for ids, _ in seen] == [["first"], ["second"]]
    assert seen[0][1] is seen[1][1]  # one engine, its compiled statements kept
