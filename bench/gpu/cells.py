"""A notebook's code cells, run in order in this interpreter without a Jupyter kernel:

    python -m bench.gpu.cells NOTEBOOK RESULT.json

for a machine without nbclient and ipykernel (a GPU machine lent with only PyTorch and CuPy).
One namespace, as a kernel has; each cell's printed output captured; a cell that stops on a
missing part (autograder.lecture.went_on: a package such as matplotlib, a function not
built yet) says so and the run goes on, as keep_going() makes a kernel do; any other error is
recorded and the run goes on too, as the kernel runner's does (allow_errors), so one failing
cell hides no GPU cell below it. Unlike a kernel: no rich display (a cell's last value is not
shown) and no IPython magics. The cells' results are written to RESULT.json as a list.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
import warnings
from pathlib import Path

KEEP_CHARS = 2000  # of each cell's stdout and stderr


def source_of(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def run_cells(path: Path) -> list[dict]:
    from autograder.lecture import went_on

    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__"}
    results = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = source_of(cell)
        out, err = io.StringIO(), io.StringIO()
        status, error = "ran", ""
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            with warnings.catch_warnings():
                warnings.simplefilter("default")  # shown once per place, as a kernel shows them
                try:
                    exec(compile(source, f"<cell {index}>", "exec"), namespace)  # noqa: S102
                except Exception as exc:
                    line = went_on(exc, source)
                    if line is None:
                        status = "error"
                        error = "".join(traceback.format_exception_only(exc)).strip()
                        traceback.print_exc()
                    else:
                        status = "went on"
                        print(line)
        results.append(
            {
                "index": index,
                "status": status,
                "error": error,
                "stdout": out.getvalue()[-KEEP_CHARS:],
                "stderr": err.getvalue()[-KEEP_CHARS:],
            }
        )
    return results


def main(argv: list[str]) -> int:
    notebook, result = map(Path, argv)
    Path(result).write_text(json.dumps(run_cells(notebook)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
