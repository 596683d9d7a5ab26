"""A private gradebook per submission: the course's assignments without anyone's grades.

nbgrader's autograde writes to the gradebook it is given. Each worker gets a copy of this
template (an SQLite file), so workers never write to the course's database: the one writer
copies their results over (SQLite, and good sense, want a single writer).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import MetaData, create_engine, select

VERSION_TABLE = "alembic_version"
# Everything that describes the course, nothing that belongs to a student.
DEFINITION_TABLES = (
    "course",
    "assignment",
    "notebook",
    "base_cell",
    "source_cell",
    "grade_cells",
    "solution_cells",
    "task_cells",
)


def build_template(course, path: Path) -> Path:
    """Write an SQLite gradebook at `path` holding the course's assignment definitions."""
    from nbgrader.api import Base

    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    source, target = create_engine(course.url), create_engine(f"sqlite:///{path}")
    # nbgrader's schema, and the course database's alembic version (which nbgrader would
    # otherwise ask an `alembic` subprocess for, at seconds a time)
    versions = MetaData()
    versions.reflect(bind=source, only=[VERSION_TABLE])
    tables = [t for t in Base.metadata.sorted_tables if t.name in DEFINITION_TABLES]
    try:
        Base.metadata.create_all(bind=target)
        versions.create_all(bind=target)
        with source.connect() as read, target.begin() as write:
            for table in [versions.tables[VERSION_TABLE], *tables]:
                rows = [dict(row) for row in read.execute(select(table)).mappings()]
                if rows:
                    write.execute(table.insert(), rows)
    finally:
        source.dispose()
        target.dispose()
    return path
