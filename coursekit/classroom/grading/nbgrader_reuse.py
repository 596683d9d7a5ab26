"""What nbgrader's autograde rebuilds for every notebook, built once per grading process.

A grading process grades job after job (supervisor.py); nbgrader, written for one run per
process, rebuilds on every autograde things that never change between jobs. Two of them
were a third of what a submission cost in the grading process, measured with
`python -m bench cluster` (0.08 and about 0.02 CPU-s per submission):

- its gradebook opens a new SQLAlchemy engine about ten times per autograde, each with an
  empty cache of compiled statements: here one engine per database URL serves them all
  (nbgrader's close() still hands the connections back, so a file replaced between jobs
  is opened afresh);
- it validates each cell's nbgrader metadata with `jsonschema.validate`, which checks
  nbgrader's own schema against the JSON Schema meta-schema on every call: here each schema
  is checked once, and every cell still against it, with the same errors.

Only the grading processes install these (grade_one.grade_submission); nbgrader's behaviour
is otherwise unchanged.
"""

from __future__ import annotations

from functools import cache, lru_cache


@cache
def install() -> None:
    import nbgrader.api
    import nbgrader.nbgraderformat.common as metadata

    nbgrader.api.create_engine = engine_per_url()
    metadata.jsonschema = SchemaCheckedOnce()


def engine_per_url():
    """sqlalchemy.create_engine, but the same engine again for a URL it has made one for."""
    from sqlalchemy import create_engine

    return lru_cache(maxsize=4)(lambda url, **options: create_engine(url, **options))


class SchemaCheckedOnce:
    """The part of the jsonschema module nbgrader's metadata check uses: validate()."""

    def __init__(self):
        self._validators = {}  # id(schema) -> (schema, validator); the schema kept alive

    def validate(self, instance, schema) -> None:
        import jsonschema

        known = self._validators.get(id(schema))
        if known is None or known[0] is not schema:
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            known = self._validators[id(schema)] = (schema, cls(schema))
        error = jsonschema.exceptions.best_match(known[1].iter_errors(instance))
        if error is not None:
            raise error
