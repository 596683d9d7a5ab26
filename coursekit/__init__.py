"""coursekit: the course built on the checker (the `autograder` package).

- `coursekit.exercises`: builds the nbgrader exercise notebooks (solutions/, exercises/) and
  the self-paced check (`make check`);
- `coursekit.sealed`: grades a submission in a sealed process, verdicts as JSON per test cell;
- `coursekit.classroom`: the class pipeline (roster, collect, grade, feedback, export, report)
  behind the `minigrad-course` command (`coursekit.cli`).

The checker itself (catalogue, observe, compare, check) knows nothing of these.
"""
