"""The first code cell of every lecture and exercise notebook: on Google Colab it installs the
course's package into the runtime; anywhere else it does nothing.

The cell's text lives here only: the exercise builder writes it, and a test holds the lecture
notebooks (written by hand) to it. Colab cannot be reached from the machines that build the
course, so what the cell does there is known only by the test that runs it with a stand-in
`google.colab` module and a recording pip.
"""

PACKAGE = "minigrad-course-student"  # the student's distribution: no reference answers

CELL = f"""\
# On Google Colab: install the course (minigrad, its checker, the exercises) into this
# runtime. Anywhere else this cell does nothing: the course is installed already.
import sys

if "google.colab" in sys.modules:
    import subprocess

    pip = [sys.executable, "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "{PACKAGE}"], check=True)"""


def first_code_cell(nb):
    """The source of a notebook's first code cell, or None when it has none."""
    return next((c.source for c in nb.cells if c.cell_type == "code"), None)
