"""PyTorch's graph beside the student's (autograder/graph_diff.py) in the course's windows:
the graded feedback page (an output of the failing test cell, nbgrader_steps.seal_outputs),
a test cell's visible check in the notebook, and `check`'s one line per failing cell."""

from __future__ import annotations

from autograder.graph_diff import pictures_html, summary


def graph_outputs(graph: dict | None) -> list:
    """The pictures as a test cell's output: HTML (two <img> of SVG data: URLs, which the
    feedback page's sanitiser keeps) and the one line of text where HTML is not shown."""
    if not graph:
        return []
    import nbformat  # here, not above: the sealed grade imports this module where it is absent

    data = {"text/html": pictures_html(graph), "text/plain": summary(graph)}
    return [nbformat.v4.new_output("display_data", data=data)]


def show_graph(report) -> None:
    """In Jupyter, the pictures of a failing report's first graph difference; elsewhere
    nothing (the verdict's text says what differs)."""
    if report.graph is None:
        return
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        return
    if get_ipython() is not None:
        display(HTML(pictures_html(report.graph)))


def graph_line(report) -> str:
    """`check`'s line for a failing cell's first graph difference ("" when there is none)."""
    return summary(report.graph) if report.graph else ""
