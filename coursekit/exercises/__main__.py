"""python -m coursekit.exercises: regenerate solutions/ (from the kit) and exercises/
(nbgrader generate_assignment of solutions/). Run it after changing the kit or the catalogue;
tests/test_exercises.py fails while either is stale."""

import argparse
import sys
import tempfile

from coursekit.exercises.assignments import ASSIGNMENTS
from coursekit.exercises.notebook import build_notebook, notebook_text
from coursekit.exercises.release import SOLUTIONS, release


def write_solutions(names) -> None:
    for name in names:
        (SOLUTIONS / name).mkdir(parents=True, exist_ok=True)
        path = SOLUTIONS / name / f"{name}.ipynb"
        path.write_text(
            notebook_text(build_notebook(next(a for a in ASSIGNMENTS if a.name == name)))
        )
        print(f"wrote {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit.exercises", description=__doc__)
    parser.add_argument("names", nargs="*", help="assignments (default: all five)")
    args = parser.parse_args(argv)
    names = args.names or [a.name for a in ASSIGNMENTS]
    write_solutions(names)
    with tempfile.TemporaryDirectory() as course:
        release(names, course)
    print(f"released {', '.join(names)} into exercises/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
