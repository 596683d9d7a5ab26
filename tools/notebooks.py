"""Notebook chores for the course: execute headless, strip outputs, render the static site.

    python tools/notebooks.py strip [NOTEBOOK ...]     # default: course/*.ipynb
    python tools/notebooks.py html [--out site]        # execute course/*.ipynb, write HTML

Notebooks are committed without outputs (tests/test_notebooks.py checks it) and executed
from course/ as their working directory, so relative paths behave as in JupyterLab.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "course"
CELL_TIMEOUT_S = 120
KERNEL = "python3"
EXPECTED_WARNING_TAG = "warning-expected"  # cells whose lesson is a warning
_LECTURE_LINK = re.compile(r"\]\((\d\d_\w+)\.ipynb")


def course_notebooks():
    return sorted(COURSE.glob("*.ipynb"))


def execute(path, timeout=CELL_TIMEOUT_S, allow_errors=False, env=None):
    """The notebook at `path`, executed top to bottom (raises nbclient's CellExecutionError
    on the first failing cell; with allow_errors, every cell runs and errors are outputs);
    `env`: the kernel's environment, if not this process's."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=KERNEL,
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(Path(path).parent)}},
    )
    client.execute(**({"env": env} if env is not None else {}))
    return nb


def unexpected_warnings(nb):
    """(cell index, text) of every warning printed by a cell not tagged warning-expected."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or EXPECTED_WARNING_TAG in cell.metadata.get("tags", []):
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                if "Warning" in out.get("text", ""):
                    found.append((index, out["text"]))
    return found


def strip(nb):
    """Remove outputs, execution counts and per-run metadata; True when anything changed."""
    before = nbformat.writes(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "collapsed", "scrolled", "ExecuteTime"):
            cell.metadata.pop(key, None)
    nb.metadata.pop("widgets", None)
    return nbformat.writes(nb) != before


def has_outputs(nb):
    return any(
        cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
        for cell in nb.cells
    )


def strip_files(paths):
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if strip(nb):
            nbformat.write(nb, path)
            print(f"stripped {path}")


def build_site(out, notebooks=None):
    """Execute every lecture notebook (or `notebooks`) and write one HTML page each, plus
    index.html."""
    from nbconvert import HTMLExporter

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    pages = []
    for path in notebooks or course_notebooks():
        started = time.perf_counter()
        nb = execute(path)
        seconds = time.perf_counter() - started
        for cell in nb.cells:  # links between lectures point at the pages
            if cell.cell_type == "markdown":
                cell.source = _LECTURE_LINK.sub(r"](\1.html", cell.source)
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        (out / f"{path.stem}.html").write_text(body, encoding="utf-8")
        pages.append((path.stem, _title(nb, path.stem), seconds))
        print(f"{path.name}: {seconds:.1f} s")
    (out / "index.html").write_text(_index(pages), encoding="utf-8")
    print(f"wrote {len(pages)} pages and index.html to {out}")


def _title(nb, fallback):
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return re.sub(r"<[^>]+>", "", line[2:]).strip()
    return fallback


def _inline_code(text):
    """Escape a markdown title for HTML, keeping `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _index(pages):
    items = "\n".join(
        f'<li><a href="{stem}.html">{_inline_code(title)}</a> '
        f"<small>({stem}.ipynb, ran in {seconds:.1f} s)</small></li>"
        for stem, title, seconds in pages
    )
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>minigrad course</title>"
        "</head>\n<body style='font-family:sans-serif;max-width:50em;margin:2em auto'>\n"
        "<h1>minigrad course: how PyTorch autograd really behaves</h1>\n"
        f"<ol>\n{items}\n</ol>\n</body></html>\n"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    strip_cmd = commands.add_parser("strip", help="remove outputs from notebooks")
    strip_cmd.add_argument("paths", nargs="*", type=Path)
    html_cmd = commands.add_parser("html", help="execute the lectures and render a static site")
    html_cmd.add_argument("--out", type=Path, default=ROOT / "site")
    args = parser.parse_args(argv)
    if args.command == "strip":
        strip_files(args.paths or course_notebooks())
    else:
        build_site(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
